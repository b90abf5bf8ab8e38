// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the registry of attached threads, the ptrace link, and the
 * release of an attachment when its thread or its tracer exits.
 *
 * A thread is attached to at most one session.  The registry holds every
 * attachment whose thread and tracer are both alive, hashed by thread and
 * by tracer, so that an exit finds its own attachments in O(1) and the
 * exit of a task that has none takes no lock.  The exit probe
 * (tracepoints.c) sees every exiting task: when it is an attached thread
 * (state EXITED) or the tracer of one (ptrace detaches the tracees of a
 * dying tracer: state DETACHED), the attachment leaves the registry and
 * its buffer is released from a workqueue.  The probe runs with
 * preemption off and must not sleep; unpinning and vunmap sleep.
 *
 * Every source checks the ptrace link before it records
 * (ptbts_thread_linked()); an attachment whose link ended is released the
 * same way.  The hardware writes without asking, so for kmod-bts and
 * kmod-pebs the end of the link also stops it at once, wherever the thread
 * runs, and writes the final marker (ptbts_thread_cut()): at the tracer's
 * exit and exec (its probes here) and at an exec of the thread's own that
 * leaves it non-dumpable.  A PTRACE_DETACH needs no probe: the thread sits
 * in a ptrace stop, off its CPU, and either its next slice does not start
 * (ptbts_hw_in()) or the tracer's STATUS or WAIT ends it first
 * (ptbts_thread_settle()).
 */
#include <linux/hashtable.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ptbts.h"

#define PTBTS_REG_BITS	8

/* Writers of both tables; the exit probe looks without it first. */
static DEFINE_SPINLOCK(ptbts_reg_lock);
static DEFINE_HASHTABLE(ptbts_by_task, PTBTS_REG_BITS);
static DEFINE_HASHTABLE(ptbts_by_tracer, PTBTS_REG_BITS);
static struct workqueue_struct *ptbts_wq;
/* Releases queued and not yet done; sysfs shows it (caps.c). */
static atomic_t ptbts_nr_queued = ATOMIC_INIT(0);

/**
 * ptbts_thread_unlink() - the attachment ends: no more records, release it
 * @t:   the thread object; the caller holds a reference, or is the thread
 *       recording into it (its source holds one)
 * @why: %PTBTS_STATE_EXITED or %PTBTS_STATE_DETACHED
 *
 * Any context: the buffer is released from a workqueue (unpinning and
 * vunmap sleep), which also wakes the tracer (ptbts_ring_stop()).  Only the
 * first call for an attachment counts.
 *
 * Return: whether this call ended it.
 */
bool ptbts_thread_unlink(struct ptbts_thread *t, u32 why)
{
	/* Pairs with READ_ONCE(@gone): ptbts_thread_state(), _settle(). */
	if (cmpxchg(&t->gone, 0, why))
		return false;
	refcount_inc(&t->ref);
	atomic_inc(&ptbts_nr_queued);
	queue_work(ptbts_wq, &t->release_work);
	return true;
}

/**
 * ptbts_thread_cut() - the link of @t ended, or its thread exits: end it
 * @t:   the thread object, referenced by the caller
 * @why: %PTBTS_STATE_EXITED or %PTBTS_STATE_DETACHED
 *
 * A hardware source stops writing at once, wherever the thread runs, and
 * its final marker (DETACHED only) is in the buffer before the state
 * reads as ended and the release wakes the tracer.  A cut that loses the
 * race to another end only stops what that end stops too.  Any context
 * with interrupts on.
 *
 * Return: whether this call ended it.
 */
bool ptbts_thread_cut(struct ptbts_thread *t, u32 why)
{
	/* Pairs with cmpxchg(@gone) in ptbts_thread_unlink(), _end(). */
	if (READ_ONCE(t->gone))
		return false;
	ptbts_source_cut(t, why);
	return ptbts_thread_unlink(t, why);
}

/* Under the registry lock: out of both tables, if it is in. */
static void ptbts_registry_unhash(struct ptbts_thread *t)
{
	hash_del(&t->reg_node);
	hash_del(&t->tracer_node);
}

/*
 * Under the registry lock: the attachment ends, a hardware source stops
 * writing at once (wherever the thread runs), its release is queued.
 */
static void ptbts_registry_evict(struct ptbts_thread *t, u32 why)
{
	ptbts_registry_unhash(t);
	ptbts_thread_cut(t, why);
}

/**
 * ptbts_tracer_linked() - whether @t's tracer still holds its ptrace link
 * @t: the thread object
 *
 * The link ends when the tracer lets the thread go (PTRACE_DETACH), exits
 * (ptrace detaches its tracees), or exec's: the buffer was its old image's
 * memory, and nothing of the new image asked for a recording.  Any context.
 *
 * Return: true while it holds.
 */
bool ptbts_tracer_linked(const struct ptbts_thread *t)
{
	bool traced;

	rcu_read_lock();
	traced = ptrace_parent(t->task) == t->tracer;
	rcu_read_unlock();
	/* Pairs with the WRITE_ONCE() in begin_new_exec() (fs/exec.c). */
	return traced &&
	       READ_ONCE(t->tracer->self_exec_id) == t->tracer_exec_id;
}

/**
 * ptbts_thread_linked() - whether current may still be recorded into @t
 * @t: an attachment of current's
 *
 * Called by every source before it records (kmod-step at each trap,
 * kmod-bts and kmod-pebs at each slice) and at exec.  Besides the ptrace
 * link, an exec since attach must have left the thread dumpable: that is
 * the rule fs/exec.c applies to perf events (they end when get_dumpable()
 * != SUID_DUMP_USER), and it covers every exec that changes credentials
 * (setuid, setgid, file capabilities: commit_creds() then makes the mm
 * non-dumpable) and every exec of an unreadable program.  A thread that was
 * already non-dumpable at attach was so with the tracer's ptrace access.
 *
 * Return: true while it may.
 */
bool ptbts_thread_linked(struct ptbts_thread *t)
{
	if (!ptbts_tracer_linked(t))
		return false;
	/* Pairs with the WRITE_ONCE() in begin_new_exec() (fs/exec.c). */
	if (READ_ONCE(current->self_exec_id) == t->exec_id)
		return true;
	return current->mm && get_dumpable(current->mm) == SUID_DUMP_USER;
}

/*
 * Whether @p may have attachments, without the lock.  An attachment of
 * @p's as the thread is entered before its PF_EXITING is checked, and
 * @p's PF_EXITING is set before its exit probe looks: one of the two sees
 * the other (a tracer is never exiting while it attaches).
 */
static bool ptbts_registry_may_hold(struct task_struct *p)
{
	/* R, matches Q in ptbts_registry_add() */
	smp_mb();
	return !hlist_empty(&ptbts_by_task[hash_min((unsigned long)p,
						    PTBTS_REG_BITS)]) ||
	       !hlist_empty(&ptbts_by_tracer[hash_min((unsigned long)p,
						      PTBTS_REG_BITS)]);
}

/**
 * ptbts_on_exit() - the exit probe (sched_process_exit, tracepoints.c)
 * @data: unused
 * @p:    the exiting task, current
 */
void ptbts_on_exit(void *data, struct task_struct *p)
{
	struct ptbts_thread *t;
	struct hlist_node *next;

	ptbts_step_task_exit(p);
	if (!ptbts_registry_may_hold(p))
		return;
	spin_lock(&ptbts_reg_lock);
	hash_for_each_possible_safe(ptbts_by_task, t, next, reg_node,
				    (unsigned long)p)
		if (t->task == p)
			ptbts_registry_evict(t, PTBTS_STATE_EXITED);
	hash_for_each_possible_safe(ptbts_by_tracer, t, next, tracer_node,
				    (unsigned long)p)
		if (t->tracer == p)
			ptbts_registry_evict(t, PTBTS_STATE_DETACHED);
	spin_unlock(&ptbts_reg_lock);
}

/*
 * The hardware sources' attachments of @p, as the thread or as its
 * tracer, whose link this exec ended: a tracer's exec ends all of its own
 * (ptbts_tracer_linked()), the thread's own exec those it left
 * non-dumpable (ptbts_thread_linked()).  A running thread would otherwise
 * record on until its next slice.  kmod-step checks at its own probe.
 */
static void ptbts_registry_exec(struct task_struct *p)
{
	struct ptbts_thread *t;
	struct hlist_node *next;

	if (!ptbts_registry_may_hold(p))
		return;
	spin_lock(&ptbts_reg_lock);
	hash_for_each_possible_safe(ptbts_by_task, t, next, reg_node,
				    (unsigned long)p)
		if (t->task == p && t->source != PTBTS_SOURCE_KMOD_STEP &&
		    !ptbts_thread_linked(t))
			ptbts_registry_evict(t, PTBTS_STATE_DETACHED);
	hash_for_each_possible_safe(ptbts_by_tracer, t, next, tracer_node,
				    (unsigned long)p)
		if (t->tracer == p && t->source != PTBTS_SOURCE_KMOD_STEP &&
		    !ptbts_tracer_linked(t))
			ptbts_registry_evict(t, PTBTS_STATE_DETACHED);
	spin_unlock(&ptbts_reg_lock);
}

/**
 * ptbts_on_exec() - the exec probe (sched_process_exec, tracepoints.c)
 * @data:    unused
 * @p:       the task that exec'd, current
 * @old_pid: its pid before
 * @bprm:    the new image
 *
 * The new image is in place, its credentials and dumpability set.
 */
void ptbts_on_exec(void *data, struct task_struct *p, pid_t old_pid,
		   struct linux_binprm *bprm)
{
	ptbts_step_on_exec(data, p, old_pid, bprm);
	ptbts_registry_exec(p);
}

/**
 * ptbts_release_work() - release the buffer of a thread that has gone
 * @work: &struct ptbts_thread.release_work
 */
void ptbts_release_work(struct work_struct *work)
{
	struct ptbts_thread *t = container_of(work, struct ptbts_thread,
					      release_work);

	ptbts_registry_del(t);
	ptbts_thread_release(t);
	ptbts_thread_put(t);
	atomic_dec(&ptbts_nr_queued);
}

/**
 * ptbts_registry_add() - enter a new attachment
 * @t: the thread object, its buffer pinned
 *
 * An older attachment of the same thread whose tracer's link ended (it
 * detached through ptrace, not through the session, or exec'd) is evicted.
 *
 * Return: 0; -EEXIST when the thread is attached already; -ESRCH when it is
 * exiting (its exit probe may have run before it was entered).
 */
int ptbts_registry_add(struct ptbts_thread *t)
{
	struct hlist_node *next;
	struct ptbts_thread *o;
	int err = 0;

	spin_lock(&ptbts_reg_lock);
	hash_for_each_possible_safe(ptbts_by_task, o, next, reg_node,
				    (unsigned long)t->task) {
		if (o->task != t->task)
			continue;
		if (ptbts_tracer_linked(o)) {
			err = -EEXIST;
			goto unlock;
		}
		ptbts_registry_evict(o, PTBTS_STATE_DETACHED);
	}
	hash_add(ptbts_by_task, &t->reg_node, (unsigned long)t->task);
	hash_add(ptbts_by_tracer, &t->tracer_node, (unsigned long)t->tracer);
	/* Q, matches R in ptbts_registry_may_hold() */
	smp_mb();
	if (t->task->flags & PF_EXITING) {
		ptbts_registry_unhash(t);
		err = -ESRCH;
	}
unlock:
	spin_unlock(&ptbts_reg_lock);
	return err;
}

/**
 * ptbts_registry_del() - take an attachment out, if it is still in
 * @t: the thread object
 */
void ptbts_registry_del(struct ptbts_thread *t)
{
	spin_lock(&ptbts_reg_lock);
	ptbts_registry_unhash(t);
	spin_unlock(&ptbts_reg_lock);
}

/**
 * ptbts_releases_queued() - releases queued by exits and not yet done
 *
 * Return: the count.
 */
int ptbts_releases_queued(void)
{
	return atomic_read(&ptbts_nr_queued);
}

/**
 * ptbts_lifetime_init() - the release workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int ptbts_lifetime_init(void)
{
	ptbts_wq = alloc_workqueue("ptrace_bts", 0, 0);
	return ptbts_wq ? 0 : -ENOMEM;
}

/**
 * ptbts_lifetime_exit() - finish queued releases
 *
 * The exit probe is gone from every CPU (ptbts_tracepoints_exit()) and no
 * source records any more, so nothing can queue behind the drain.
 */
void ptbts_lifetime_exit(void)
{
	destroy_workqueue(ptbts_wq);
}
