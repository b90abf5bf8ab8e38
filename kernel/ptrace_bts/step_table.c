// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: kmod-step's table of stepped tasks, and the life of an entry.
 *
 * The trap notifier finds the state of the trapping task here, under RCU
 * (it runs with interrupts off).  An entry is made at attach, when the
 * module sets the trap flag, and leaves the table only where the flag is
 * taken back: at the end of the attachment if the thread is in a ptrace
 * stop then (the flag is cleared there), else at the thread's next trap
 * (the notifier clears it: the thread may be running when its tracer dies
 * or closes the session), or at the thread's exit.
 *
 * The notifier must outlive every trap flag the module set, and module
 * exit must never wait for user space: a thread in a ptrace stop, a group
 * stop or an uninterruptible sleep can stay there for as long as someone
 * wants.  So every state holds a module reference from attach until it is
 * freed, which is after its flag was taken back and its task_works ran:
 * while one is left, rmmod fails at once (EBUSY) instead of waiting.  An
 * attachment that ends while its thread is not in a ptrace stop asks the
 * thread at once, through a task_work that interrupts a sleep as a signal
 * does, to take the flag back itself on its way to user mode; a thread in
 * a stop or in an uninterruptible sleep does so when it goes on, and keeps
 * the module loaded until then.
 */
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/wait.h>

#include "step.h"

static DEFINE_HASHTABLE(ptbts_steps, 6);
/* Writers of the table; readers use RCU. */
static DEFINE_SPINLOCK(ptbts_steps_lock);

static struct ptbts_step *ptbts_step_lookup(struct task_struct *task)
{
	struct ptbts_step *st;

	hash_for_each_possible_rcu(ptbts_steps, st, hnode, (unsigned long)task)
		if (st->task == task)
			return st;
	return NULL;
}

/**
 * ptbts_step_find() - the state of a stepped task
 * @task: the task
 *
 * Call under rcu_read_lock() or with interrupts off; the state stays valid
 * until then.
 *
 * Return: the state, or NULL.
 */
struct ptbts_step *ptbts_step_find(struct task_struct *task)
{
	return ptbts_step_lookup(task);
}

static void ptbts_step_free(struct rcu_head *rcu)
{
	struct ptbts_step *st = container_of(rcu, struct ptbts_step, rcu);

	put_task_struct(st->task);
	kfree(st);
}

/**
 * ptbts_step_put() - drop a reference; any context
 * @st: the state
 */
void ptbts_step_put(struct ptbts_step *st)
{
	if (!refcount_dec_and_test(&st->ref))
		return;
	call_rcu(&st->rcu, ptbts_step_free);
	/*
	 * Nothing can reach the state now: rmmod may go on.  Its
	 * rcu_barrier() (ptbts_step_exit()) waits for the callback, and its
	 * synchronize_rcu_tasks() (main.c) for the caller's way out.
	 */
	module_put(THIS_MODULE);
}

/* Under the lock: out of the table.  Return: whether it was in. */
static bool ptbts_step_unhash_locked(struct ptbts_step *st)
{
	if (!st->hashed)
		return false;
	hash_del_rcu(&st->hnode);
	st->hashed = false;
	return true;
}

/**
 * ptbts_step_unhash() - take an entry out and drop the table's reference
 * @st: the state; the caller holds it (RCU or a reference)
 *
 * Any context: the notifier calls it to take the flag back.
 *
 * Return: whether it was in (the caller then owns the flag).
 */
bool ptbts_step_unhash(struct ptbts_step *st)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&ptbts_steps_lock, flags);
	was = ptbts_step_unhash_locked(st);
	spin_unlock_irqrestore(&ptbts_steps_lock, flags);
	if (was)
		ptbts_step_put(st);
	return was;
}

static struct ptbts_step *ptbts_step_new(struct ptbts_thread *t)
{
	struct pt_regs *regs = task_pt_regs(t->task);
	struct ptbts_step *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (!st)
		return NULL;
	st->task = t->task;
	get_task_struct(st->task);
	refcount_set(&st->ref, 2);
	RCU_INIT_POINTER(st->thread, t);
	/*
	 * The thread resumes at regs->ip: that instruction is the first to
	 * run, also when the stop interrupted a syscall (a restart runs the
	 * syscall again, which records nothing, and returns there).
	 */
	st->prev_pc = regs->ip;
	st->prev_ax = regs->ax;
	st->has_prev = true;
	/* The caller's session holds a reference: the module is live. */
	__module_get(THIS_MODULE);
	return st;
}

/**
 * ptbts_step_start() - start stepping an attached, ptrace-stopped thread
 * @t: the attachment, its ring started
 *
 * The trap flag is set in the thread's saved user registers, which it
 * cannot use before its tracer resumes it.  TIF_FORCED_TF is cleared so
 * that ptrace, on the next resume, takes the flag for the program's own
 * and leaves it set.
 *
 * Return: 0, -ENOMEM, or -ESRCH when the thread is exiting.
 */
int ptbts_step_start(struct ptbts_thread *t)
{
	struct ptbts_step *st = ptbts_step_new(t), *old;
	unsigned long flags;

	if (!st)
		return -ENOMEM;
	spin_lock_irqsave(&ptbts_steps_lock, flags);
	/* PF_EXITING comes before the exit probe, which takes this lock. */
	if (t->task->flags & PF_EXITING) {
		spin_unlock_irqrestore(&ptbts_steps_lock, flags);
		refcount_set(&st->ref, 1);
		ptbts_step_put(st);
		return -ESRCH;
	}
	/* A flag left by an earlier attachment is this one's now. */
	old = ptbts_step_lookup(t->task);
	if (old && !ptbts_step_unhash_locked(old))
		old = NULL;
	hash_add_rcu(ptbts_steps, &st->hnode, (unsigned long)st->task);
	st->hashed = true;
	clear_tsk_thread_flag(t->task, TIF_FORCED_TF);
	task_pt_regs(t->task)->flags |= X86_EFLAGS_TF;
	t->step = st;
	spin_unlock_irqrestore(&ptbts_steps_lock, flags);
	if (old)
		ptbts_step_put(old);
	return 0;
}

/*
 * In the thread, before it returns to user mode: its attachment ended, so
 * a flag that is still the module's goes (one a new attachment took over
 * is no longer this state's: the unhash fails).  A ptrace single-step's
 * flag is ptrace's.
 */
static void ptbts_step_kick_work(struct callback_head *cb)
{
	struct ptbts_step *st = container_of(cb, struct ptbts_step, kick);

	if (ptbts_step_unhash(st) && !test_thread_flag(TIF_SINGLESTEP))
		current_pt_regs()->flags &= ~X86_EFLAGS_TF;
	ptbts_step_put(st);
}

/* Ask the thread of @st (held by the caller) to take its flag back. */
static void ptbts_step_kick(struct ptbts_step *st)
{
	/* One just taken out gets a kick that finds nothing to do. */
	if (test_and_set_bit(0, &st->kicked) ||
	    !refcount_inc_not_zero(&st->ref))
		return;
	init_task_work(&st->kick, ptbts_step_kick_work);
	/* Exiting: its exit probe takes the entry out. */
	if (task_work_add(st->task, &st->kick, TWA_SIGNAL))
		ptbts_step_put(st);
}

/**
 * ptbts_step_stop() - no more records for this attachment
 * @t: the attachment
 *
 * Sleeps.  When it returns, no producer writes into @t's ring: the
 * notifier and the probes write only inside an RCU read-side section that
 * found @t, and the grace period waits for them.  The trap flag is taken
 * back now if the thread is in a ptrace stop (it cannot run before its
 * tracer, the caller or a dying one, resumes it), else by the thread
 * itself, at its next trap or before it returns to user mode, whichever
 * comes first.  Never waits for the thread.
 */
void ptbts_step_stop(struct ptbts_thread *t)
{
	struct ptbts_step *st = t->step;
	unsigned long flags;
	bool unhashed = false, kick;

	if (!st)
		return;
	spin_lock_irqsave(&ptbts_steps_lock, flags);
	rcu_assign_pointer(st->thread, NULL);
	if (st->hashed && task_is_traced(st->task) &&
	    !(st->task->flags & PF_EXITING)) {
		task_pt_regs(st->task)->flags &= ~X86_EFLAGS_TF;
		unhashed = ptbts_step_unhash_locked(st);
	}
	kick = st->hashed;
	spin_unlock_irqrestore(&ptbts_steps_lock, flags);
	/* A BLOCK-mode thread waiting for room sees the end and goes on. */
	wake_up_all(&t->ring.room_wq);
	/* Running or asleep with the flag: it takes the flag back itself. */
	if (kick)
		ptbts_step_kick(st);
	synchronize_rcu();
	if (unhashed)
		ptbts_step_put(st);
	t->step = NULL;
	ptbts_step_put(st);
}

/**
 * ptbts_step_task_exit() - a task exits: forget its state
 * @p: the task (from the sched_process_exit probe; does not sleep)
 */
void ptbts_step_task_exit(struct task_struct *p)
{
	struct ptbts_step *st;

	rcu_read_lock();
	st = ptbts_step_lookup(p);
	if (st)
		ptbts_step_unhash(st);
	rcu_read_unlock();
}

/**
 * ptbts_step_init() - the notifiers and the probes kmod-step needs
 *
 * Its tracepoint probes are registered by ptbts_tracepoints_init().
 *
 * Return: 0 or a negative errno.
 */
int ptbts_step_init(void)
{
	int err = ptbts_step_sigret_init();

	if (err)
		return err;
	err = ptbts_step_uprobe_init();
	if (err)
		goto sigret_exit;
	err = ptbts_step_notifier_init();
	if (err)
		goto uprobe_exit;
	return 0;

uprobe_exit:
	ptbts_step_uprobe_exit();
sigret_exit:
	ptbts_step_sigret_exit();
	return err;
}

/**
 * ptbts_step_exit() - remove notifiers and probes
 *
 * Every state holds a module reference, so none is left here: no task has
 * a trap flag of the module's and no task_work of the module's is queued.
 * What may still run is the end of the RCU callback that dropped the last
 * reference; rcu_barrier() waits for it.  The tracepoint probes stay
 * until ptbts_tracepoints_exit(); they find nothing to do by then.
 */
void ptbts_step_exit(void)
{
	ptbts_step_notifier_exit();
	ptbts_step_uprobe_exit();
	ptbts_step_sigret_exit();
	rcu_barrier();
}
