// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: an attached thread, from attach to its last reference.
 *
 * Its buffer is released exactly once, by whichever comes first: a detach,
 * the session's close, or the release queued when the thread or its tracer
 * exited.  Whoever takes the buffer pointer releases it.
 */
#include <linux/sched.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "ptbts.h"

/**
 * ptbts_thread_new() - a thread object for a checked configuration
 * @s:    the session it is attached through
 * @task: the thread, referenced by the caller; the new object takes over
 *        that reference
 * @cfg:  the configuration, already checked
 *
 * The caller (current) is recorded as the tracer.
 *
 * Return: the object with one reference, or NULL.
 */
struct ptbts_thread *ptbts_thread_new(struct ptbts_session *s,
				      struct task_struct *task,
				      const struct ptbts_config *cfg)
{
	struct ptbts_thread *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	INIT_LIST_HEAD(&t->node);
	INIT_HLIST_NODE(&t->reg_node);
	INIT_HLIST_NODE(&t->tracer_node);
	refcount_set(&t->ref, 1);
	INIT_WORK(&t->release_work, ptbts_release_work);
	t->task = task;
	t->tracer = current;
	get_task_struct(current);
	t->tid = cfg->tid;
	/*
	 * The thread is in a ptrace stop: neither id can change now.  Pair
	 * with the WRITE_ONCE() of self_exec_id in begin_new_exec() (fs/exec.c).
	 */
	t->exec_id = READ_ONCE(task->self_exec_id);
	t->tracer_exec_id = READ_ONCE(current->self_exec_id);
	t->source = cfg->source;
	t->mode = cfg->mode;
	t->pebs_event = cfg->pebs_event;
	t->pebs_period = cfg->pebs_period;
	t->session = s;
	ptbts_ring_init(&t->ring, cfg);
	return t;
}

/*
 * The tracer's process is told of every state change of its children
 * (signal->wait_chldexit, what waitpid() sleeps on), a ptrace stop of
 * @t's thread included: that one makes the thread ready.  Called under the
 * queue's lock with interrupts off: the wakeup goes through the ring's
 * irq_work, as a producer's does.
 */
static int ptbts_thread_chld_wake(struct wait_queue_entry *wq,
				  unsigned int mode, int sync, void *key)
{
	struct ptbts_thread *t = container_of(wq, struct ptbts_thread,
					      chld_wait);

	if (key == t->task)
		irq_work_queue(&t->ring.wake_work);
	return 0;
}

/**
 * ptbts_thread_watch() - wake WAIT and poll() when the thread stops
 * @t: the thread object, its buffer held, attached by current
 *
 * Undone when the buffer is released.  The tracer's task reference keeps
 * its signal_struct, and so the queue, alive until then.
 */
void ptbts_thread_watch(struct ptbts_thread *t)
{
	init_waitqueue_func_entry(&t->chld_wait, ptbts_thread_chld_wake);
	add_wait_queue(&t->tracer->signal->wait_chldexit, &t->chld_wait);
}

/**
 * ptbts_thread_put() - drop a reference
 * @t: the thread object
 */
void ptbts_thread_put(struct ptbts_thread *t)
{
	if (!refcount_dec_and_test(&t->ref))
		return;
	WARN_ON_ONCE(t->buf || t->buf2);
	put_task_struct(t->task);
	put_task_struct(t->tracer);
	kfree(t);
}

/**
 * ptbts_thread_release() - stop recording and release the buffer, once
 * @t: the thread object
 *
 * Sleeps.  Safe to call any number of times from any path.
 */
void ptbts_thread_release(struct ptbts_thread *t)
{
	/* Pairs with READ_ONCE(@buf) in ptbts_thread_ready(). */
	struct ptbts_buf *buf = xchg(&t->buf, NULL);
	const struct ptbts_source_ops *ops;
	struct ptbts_buf *buf2;
	int err;

	if (!buf)
		return;
	ops = ptbts_source_get(t->source, &err);
	if (ops && ops->stop)
		ops->stop(t);
	remove_wait_queue(&t->tracer->signal->wait_chldexit, &t->chld_wait);
	ptbts_ring_stop(&t->ring);
	ptbts_buf_release(buf);
	/* Only the taker of @buf gets here: the source has stopped. */
	buf2 = xchg(&t->buf2, NULL);
	if (buf2)
		ptbts_buf_release(buf2);
}

/**
 * ptbts_thread_end() - detach a thread: the session's side of the end
 * @t: the thread object, already off the session's list
 *
 * Marks it DETACHED unless it ended before, takes it out of the registry,
 * waits for a release its exit may have queued, releases what is left and
 * drops the session's reference.
 */
void ptbts_thread_end(struct ptbts_thread *t)
{
	/*
	 * A WAIT that holds a reference returns with this state.  Pairs
	 * with READ_ONCE(@gone) in ptbts_thread_state().
	 */
	cmpxchg(&t->gone, 0, PTBTS_STATE_DETACHED);
	ptbts_registry_del(t);
	flush_work(&t->release_work);
	ptbts_thread_release(t);
	ptbts_thread_put(t);
}

/**
 * ptbts_thread_settle() - end an attachment whose ptrace link ended
 * @t: the thread object, referenced by the caller
 *
 * The tracer's side of ptbts_thread_linked(): a PTRACE_DETACH is seen here
 * even before the thread runs again, and ends it as the thread would have,
 * a hardware source's final marker included (ptbts_thread_cut()).
 * Sleeps.  Afterwards a thread that reads as EXITED or DETACHED has its
 * buffer released.
 */
void ptbts_thread_settle(struct ptbts_thread *t)
{
	/* Pairs with cmpxchg(@gone): ptbts_thread_unlink(), ptbts_thread_end(). */
	if (!READ_ONCE(t->gone) && !ptbts_tracer_linked(t))
		ptbts_thread_cut(t, PTBTS_STATE_DETACHED);
	if (READ_ONCE(t->gone))
		flush_work(&t->release_work);
}

/**
 * ptbts_thread_state() - where the thread is, for STATUS
 * @t: the thread object
 *
 * Return: an &enum ptbts_state.
 */
u32 ptbts_thread_state(const struct ptbts_thread *t)
{
	/* Pairs with cmpxchg(@gone): ptbts_thread_unlink(), ptbts_thread_end(). */
	u32 gone = READ_ONCE(t->gone);

	if (gone)
		return gone;
	/* Until the thread or ptbts_thread_settle() ends it. */
	if (!ptbts_tracer_linked(t))
		return PTBTS_STATE_DETACHED;
	if (task_is_traced(t->task))
		return PTBTS_STATE_STOPPED;
	/* Pairs with WRITE_ONCE(@held) in ptbts_ring_hold(). */
	return READ_ONCE(t->ring.held) ? PTBTS_STATE_HELD : PTBTS_STATE_RUNNING;
}

/**
 * ptbts_thread_ready() - whether WAIT returns and poll() reports EPOLLIN
 * @t: the thread object
 *
 * Return: true when the unread records reach the threshold, or the thread
 * is not running (stopped, exited, detached, or released).
 */
bool ptbts_thread_ready(const struct ptbts_thread *t)
{
	/* Pairs with the xchg() of @buf in ptbts_thread_release(). */
	if (!READ_ONCE(t->buf) || ptbts_thread_state(t) != PTBTS_STATE_RUNNING)
		return true;
	return ptbts_ring_unread(&t->ring) >= t->ring.wakeup;
}
