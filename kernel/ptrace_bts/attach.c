// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: ATTACH and DETACH.
 *
 * The access check is the ptrace relationship itself: the caller must be
 * the tracer of the thread (ptrace_may_access() was done by PTRACE_ATTACH or
 * PTRACE_SEIZE), and the thread must sit in a ptrace stop, where it cannot
 * run until the caller resumes it.
 */
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "ptbts.h"

/*
 * The stop of PTRACE_EVENT_EXIT comes before PF_EXITING is set, but the
 * thread in it is on its way out: it never returns to user mode.  The
 * stop's siginfo says which stop it is; it lives on the thread's stack
 * for as long as the stop lasts, and the siglock keeps the stop from
 * ending while it is read, as for PTRACE_GETSIGINFO.  The lock is taken
 * by hand, not with lock_task_sighand(), whose annotations sparse cannot
 * follow; a sighand that changed under us means the thread is gone.
 */
static bool ptbts_in_exit_stop(struct task_struct *task)
{
	struct sighand_struct *sighand;
	bool exiting = true;

	rcu_read_lock();
	sighand = rcu_dereference(task->sighand);
	if (sighand) {
		spin_lock_irq(&sighand->siglock);
		if (rcu_access_pointer(task->sighand) == sighand)
			exiting = task->last_siginfo &&
				  task->last_siginfo->si_code ==
					(SIGTRAP | (PTRACE_EVENT_EXIT << 8));
		spin_unlock_irq(&sighand->siglock);
	}
	rcu_read_unlock();
	return exiting;
}

/*
 * -ESRCH: no such thread, or it is exiting (in its PTRACE_EVENT_EXIT stop
 * too); -EPERM: the caller is not its tracer; -EBUSY: it is the caller's
 * tracee but not in a ptrace stop.
 */
static int ptbts_check_tracee(struct task_struct *task)
{
	struct task_struct *tracer;

	if ((task->flags & PF_EXITING) || task->exit_state)
		return -ESRCH;
	rcu_read_lock();
	tracer = ptrace_parent(task);
	rcu_read_unlock();
	/* Only compared, never followed: no reference is needed. */
	if (tracer != current)
		return -EPERM;
	if (!task_is_traced(task))
		return -EBUSY;
	if (ptbts_in_exit_stop(task))
		return -ESRCH;
	return 0;
}

/* The thread @tid of the caller's pid namespace, referenced and checked. */
static struct task_struct *ptbts_get_tracee(u32 tid, int *err)
{
	struct task_struct *task = NULL;
	struct pid *pid;

	*err = -ESRCH;
	if (tid > PID_MAX_LIMIT)
		return NULL;
	pid = find_get_pid(tid);
	if (pid) {
		task = get_pid_task(pid, PIDTYPE_PID);
		put_pid(pid);
	}
	if (!task)
		return NULL;
	*err = ptbts_check_tracee(task);
	if (*err) {
		put_task_struct(task);
		return NULL;
	}
	return task;
}

/*
 * A thread that exited or lost its tracer stays listed (STATUS reports
 * how it ended) until it is detached or its id is attached anew.
 */
static int ptbts_forget_ended(struct ptbts_session *s, pid_t tid)
{
	struct ptbts_thread *old = ptbts_session_find(s, tid);

	if (!old)
		return 0;
	/* Pairs with cmpxchg(@gone): ptbts_thread_unlink(), ptbts_thread_end(). */
	if (!READ_ONCE(old->gone))
		return -EEXIST;
	list_del_init(&old->node);
	ptbts_thread_end(old);
	return 0;
}

/*
 * The second region first: once @t->buf is set, ptbts_thread_release()
 * owns both, so a failure here must give back only what it took.
 */
static int ptbts_attach_pin(struct ptbts_thread *t,
			    const struct ptbts_config *cfg)
{
	struct ptbts_buf *buf2 = NULL;
	int err;

	if (cfg->buffer2_size) {
		err = ptbts_buf_pin(&buf2, cfg->buffer2, cfg->buffer2_size);
		if (err)
			return err;
	}
	err = ptbts_buf_pin(&t->buf, cfg->buffer, cfg->buffer_size);
	if (err) {
		if (buf2)
			ptbts_buf_release(buf2);
		return err;
	}
	t->buf2 = buf2;
	return 0;
}

static int ptbts_attach_locked(struct ptbts_session *s,
			       const struct ptbts_config *cfg)
{
	const struct ptbts_source_ops *ops;
	struct task_struct *task;
	struct ptbts_thread *t;
	int err;

	err = ptbts_forget_ended(s, cfg->tid);
	if (err)
		return err;
	task = ptbts_get_tracee(cfg->tid, &err);
	if (!task)
		return err;
	t = ptbts_thread_new(s, task, cfg);
	if (!t) {
		put_task_struct(task);
		return -ENOMEM;
	}
	err = ptbts_attach_pin(t, cfg);
	if (err)
		goto put_thread;
	ptbts_ring_start(&t->ring, t->buf);
	ptbts_thread_watch(t);
	err = ptbts_registry_add(t);
	if (err)
		goto release;
	ops = ptbts_source_get(t->source, &err);
	if (ops && ops->start) {
		err = ops->start(t);
		if (err)
			goto unregister;
	}
	list_add_tail(&t->node, &s->threads);
	return 0;

unregister:
	ptbts_registry_del(t);
	flush_work(&t->release_work);
release:
	ptbts_thread_release(t);
put_thread:
	ptbts_thread_put(t);
	return err;
}

/**
 * ptbts_ioctl_attach() - %PTBTS_IOC_ATTACH
 * @s:    the session, owned by the caller's process
 * @uarg: a &struct ptbts_config
 *
 * Return: 0; the errors of ptbts_config_get(); -ESRCH when the thread does
 * not exist or is exiting (its PTRACE_EVENT_EXIT stop included); -EPERM
 * when the caller is not its ptrace tracer; -EBUSY when it is not in a
 * ptrace stop; -EEXIST when it is attached already (to any session); the
 * errors of ptbts_buf_pin().
 */
long ptbts_ioctl_attach(struct ptbts_session *s, void __user *uarg)
{
	struct ptbts_config cfg;
	int err;

	err = ptbts_config_get(&cfg, uarg);
	if (err)
		return err;
	mutex_lock(&s->lock);
	err = ptbts_attach_locked(s, &cfg);
	mutex_unlock(&s->lock);
	return err;
}

/**
 * ptbts_ioctl_detach() - %PTBTS_IOC_DETACH
 * @s:   the session, owned by the caller's process
 * @tid: the thread, by value
 *
 * Detaching is allowed in any state, after the thread exited or its tracer
 * let it go too: it is how the session forgets it.
 *
 * Return: 0, or -ESRCH when the session holds no such thread.
 */
long ptbts_ioctl_detach(struct ptbts_session *s, unsigned long tid)
{
	struct ptbts_thread *t = NULL;

	mutex_lock(&s->lock);
	if (tid <= PID_MAX_LIMIT)
		t = ptbts_session_find(s, tid);
	if (t)
		list_del_init(&t->node);
	mutex_unlock(&s->lock);
	if (!t)
		return -ESRCH;
	ptbts_thread_end(t);
	return 0;
}
