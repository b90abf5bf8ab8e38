// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: a session, the state behind one open file of the device.
 *
 * The session belongs to the process that opened it.  Closing the file
 * (explicitly, or by the tracer's exit) detaches every thread it holds.
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "ptbts.h"

/**
 * ptbts_session_new() - a session owned by the calling process
 *
 * Return: the session, or NULL.
 */
struct ptbts_session *ptbts_session_new(void)
{
	struct ptbts_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->threads);
	init_waitqueue_head(&s->poll_wq);
	s->owner = get_pid(task_tgid(current));
	return s;
}

/**
 * ptbts_session_free() - detach everything and free the session
 * @s: the session; its file is being released, so no ioctl runs
 */
void ptbts_session_free(struct ptbts_session *s)
{
	struct ptbts_thread *t, *next;

	list_for_each_entry_safe(t, next, &s->threads, node) {
		list_del_init(&t->node);
		ptbts_thread_end(t);
	}
	ptbts_percpu_end(s);
	put_pid(s->owner);
	mutex_destroy(&s->lock);
	kfree(s);
}

/**
 * ptbts_session_is_owner() - whether the caller's process opened @s
 * @s: the session
 *
 * Return: true when it did.
 */
bool ptbts_session_is_owner(const struct ptbts_session *s)
{
	return task_tgid(current) == s->owner;
}

/**
 * ptbts_session_find() - the thread attached under an id
 * @s:   the session, locked
 * @tid: the id as the tracer sees it
 *
 * Return: the thread object (the session's reference), or NULL.
 */
struct ptbts_thread *ptbts_session_find(struct ptbts_session *s, pid_t tid)
{
	struct ptbts_thread *t;

	lockdep_assert_held(&s->lock);
	list_for_each_entry(t, &s->threads, node)
		if (t->tid == tid)
			return t;
	return NULL;
}
