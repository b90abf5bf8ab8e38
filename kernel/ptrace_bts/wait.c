// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: WAIT, ACK and poll(), the consumer's side of a ring.
 *
 * Both wake when a thread becomes ready: its unread records reach the
 * threshold (ring.c), it ends, or it enters a ptrace stop (the attachment
 * watches its tracer's child-notification queue, thread.c): a tracer
 * blocked in WAIT or poll() would otherwise never learn of the stop.  A
 * WAIT also sleeps on that queue itself, as waitpid() does.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "ptbts.h"

/* The thread with a reference of the caller's, or NULL. */
static struct ptbts_thread *ptbts_get_thread(struct ptbts_session *s,
					     pid_t tid)
{
	struct ptbts_thread *t;

	mutex_lock(&s->lock);
	t = ptbts_session_find(s, tid);
	if (t)
		refcount_inc(&t->ref);
	mutex_unlock(&s->lock);
	return t;
}

/* NULL (no limit) or @exp set to the absolute end of the wait. */
static ktime_t *ptbts_deadline(u64 timeout_ns, ktime_t *exp)
{
	ktime_t now = ktime_get();

	if (timeout_ns == PTBTS_WAIT_FOREVER || timeout_ns > KTIME_MAX - now)
		return NULL;
	*exp = ktime_add_ns(now, timeout_ns);
	return exp;
}

static int ptbts_wait_ready(struct ptbts_thread *t, u64 timeout_ns)
{
	DECLARE_WAITQUEUE(w_ring, current);
	DECLARE_WAITQUEUE(w_chld, current);
	ktime_t end, *exp;
	int err = 0;

	if (ptbts_thread_ready(t))
		return 0;
	if (!timeout_ns)
		return -ETIMEDOUT;
	exp = ptbts_deadline(timeout_ns, &end);
	add_wait_queue(&t->ring.wq, &w_ring);
	add_wait_queue(&current->signal->wait_chldexit, &w_chld);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (ptbts_thread_ready(t))
			break;
		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
		if (!schedule_hrtimeout(exp, HRTIMER_MODE_ABS)) {
			err = ptbts_thread_ready(t) ? 0 : -ETIMEDOUT;
			break;
		}
	}
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&current->signal->wait_chldexit, &w_chld);
	remove_wait_queue(&t->ring.wq, &w_ring);
	return err;
}

/**
 * ptbts_ioctl_wait() - %PTBTS_IOC_WAIT
 * @s:    the session, owned by the caller's process
 * @uarg: a &struct ptbts_status with @size, @tid and @timeout_ns set
 *
 * Return: 0 with the status written; -ESRCH; -EINVAL for a reserved field
 * or a bad size; -E2BIG; -EFAULT; -ETIMEDOUT; -EINTR.
 */
long ptbts_ioctl_wait(struct ptbts_session *s, void __user *uarg)
{
	struct ptbts_status in, st;
	struct ptbts_thread *t;
	u32 usize;
	int err;

	err = ptbts_get_usize(&usize, uarg, PTBTS_STATUS_SIZE_VER0);
	if (err)
		return err;
	err = copy_struct_from_user(&in, sizeof(in), uarg, usize);
	if (err)
		return err;
	if (in.__reserved[0] || in.__reserved[1])
		return -EINVAL;
	t = ptbts_get_thread(s, in.tid);
	if (!t)
		return -ESRCH;
	err = ptbts_wait_ready(t, in.timeout_ns);
	if (!err) {
		/* EXITED and DETACHED mean the pages are back. */
		ptbts_thread_settle(t);
		ptbts_status_fill(&st, t, usize);
		st.timeout_ns = in.timeout_ns;
	}
	ptbts_thread_put(t);
	if (err)
		return err;
	return ptbts_copy_out(uarg, usize, &st, sizeof(st));
}

/**
 * ptbts_ioctl_ack() - %PTBTS_IOC_ACK
 * @s:    the session, owned by the caller's process
 * @uarg: a &struct ptbts_ack
 *
 * Return: 0; -ESRCH; -EINVAL for a reserved field, a bad size or a @tail
 * that goes back or passes the records written; -E2BIG; -EFAULT.
 */
long ptbts_ioctl_ack(struct ptbts_session *s, void __user *uarg)
{
	struct ptbts_thread *t;
	struct ptbts_ack a;
	u32 usize;
	int err;

	err = ptbts_get_usize(&usize, uarg, PTBTS_ACK_SIZE_VER0);
	if (err)
		return err;
	err = copy_struct_from_user(&a, sizeof(a), uarg, usize);
	if (err)
		return err;
	if (a.__reserved[0] || a.__reserved[1])
		return -EINVAL;
	mutex_lock(&s->lock);
	t = ptbts_session_find(s, a.tid);
	err = t ? ptbts_ring_ack(&t->ring, a.tail) : -ESRCH;
	mutex_unlock(&s->lock);
	return err;
}

/**
 * ptbts_poll_session() - poll() on a session
 * @s:    the session
 * @file: its file
 * @pt:   the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM while a thread is ready as for WAIT;
 * EPOLLERR for a process that does not own the session.
 */
__poll_t ptbts_poll_session(struct ptbts_session *s, struct file *file,
			    poll_table *pt)
{
	struct ptbts_thread *t;
	__poll_t mask = 0;

	poll_wait(file, &s->poll_wq, pt);
	if (!ptbts_session_is_owner(s))
		return EPOLLERR;
	mutex_lock(&s->lock);
	list_for_each_entry(t, &s->threads, node) {
		if (ptbts_thread_ready(t)) {
			mask = EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	mutex_unlock(&s->lock);
	return mask;
}
