// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: what kmod-step does around its traps.  The probes here are
 * on tracepoints that tracepoints.c registers (it says why).
 *
 *  - exec resets the user registers, trap flag included: the probe on
 *    sched_process_exec (the new image's registers are set) writes the
 *    EXEC marker {0 -> entry} and sets the flag again, unless the exec
 *    ended what the tracer may record (ptbts_thread_linked());
 *  - fork, vfork and clone copy the parent's registers, trap flag
 *    included: the probe on sched_process_fork (before the child first
 *    runs) clears it in every child of a stepped task, which would
 *    otherwise die of SIGTRAP at its first instruction.  A tracer that
 *    wants the child attaches it itself;
 *  - signal delivery clears the flag for the handler: the probe on
 *    signal_deliver (before the frame is written) notes the interrupted pc,
 *    and a task_work, which runs once the frame is set up and before the
 *    thread returns to user mode, writes the SIGNAL record {interrupted pc
 *    -> handler} and sets the flag again.  The frame keeps no flag of the
 *    module's (step_frame.c): after rt_sigreturn the same task_work sets
 *    it again (step_sigret.c), and step_trap.c writes its record;
 *  - in BLOCK mode, records that found the buffer full wait in the same
 *    task_work for the tracer's ACK, giving way to signals, stops and the
 *    freezer;
 *  - a uprobe's int3 is handed to uprobes without the trap flag, and the
 *    same task_work takes the thread back (step_uprobe.c).
 *
 * A resume from a ptrace stop needs nothing: ptrace clears the trap flag on
 * PTRACE_CONT only when TIF_FORCED_TF says that ptrace itself set it, and
 * the module clears that flag whenever it sets the trap flag.
 */
#include <linux/binfmts.h>
#include <linux/freezer.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/sched/task_stack.h>
#include <linux/task_work.h>
#include <linux/wait.h>

#include "step.h"

/* The attachment @st records into, under RCU, or NULL. */
static struct ptbts_thread *ptbts_step_armed(struct ptbts_step *st)
{
	return rcu_dereference(st->thread);
}

/**
 * ptbts_step_rearm() - set the trap flag of current again, as the module's
 */
void ptbts_step_rearm(void)
{
	clear_thread_flag(TIF_FORCED_TF);
	current_pt_regs()->flags |= X86_EFLAGS_TF;
}

/* The handler's frame is written: {interrupted pc -> handler}, step on. */
static void ptbts_step_signal_done(struct ptbts_step *st)
{
	struct pt_regs *regs = current_pt_regs();
	struct ptbts_thread *t;

	if (!st->sig_pending)
		return;
	st->sig_pending = false;
	ptbts_step_frame_untf(st);
	rcu_read_lock();
	t = ptbts_step_armed(st);
	if (t && !st->off) {
		if (regs->ip != st->sig_from)
			ptbts_step_emit(st, t, st->sig_from, regs->ip,
					PTBTS_KIND_SIGNAL);
		ptbts_step_pend(st, regs);
		ptbts_step_rearm();
	}
	rcu_read_unlock();
}

/* Writes what fits of the records that wait.  Return: how many are left. */
static u32 ptbts_step_flush(struct ptbts_step *st, struct ptbts_thread *t)
{
	struct ptbts_record *r;
	u32 n = 0;

	rcu_read_lock();
	if (ptbts_step_armed(st) == t) {
		for (; n < st->ndefer; n++) {
			r = &st->defer[n];
			if (ptbts_ring_put(&t->ring, r->from, r->to,
					   PTBTS_KIND(r->flags)))
				break;
		}
	} else {
		n = st->ndefer;		/* detached: nowhere to go */
	}
	rcu_read_unlock();
	st->ndefer -= n;
	memmove(st->defer, st->defer + n, st->ndefer * sizeof(*st->defer));
	return st->ndefer;
}

static bool ptbts_step_may_go(struct ptbts_step *st, struct ptbts_thread *t)
{
	return rcu_access_pointer(st->thread) != t ||
	       ptbts_ring_has_room(&t->ring);
}

/*
 * BLOCK mode: wait for room, freezable and interruptible, so that nothing
 * that needs the thread first waits for the tracer: the freezer freezes
 * it where it waits, and a signal, PTRACE_INTERRUPT or a group stop ends
 * the wait with the records kept, in order, in @st->defer.  The thread
 * then takes its signal or its stop on the way to user mode, and its next
 * record joins the kept ones and waits again (ptbts_step_emit()).  Only a
 * fatal signal loses them: a killed thread never returns to user mode, so
 * they are counted lost.  A slow tracer is no bug: the wait is not one the
 * hung-task detector reports.
 */
static void ptbts_step_drain(struct ptbts_step *st, struct ptbts_thread *t)
{
	bool held;
	int err;

	while (ptbts_step_flush(st, t)) {
		held = ptbts_ring_at_limit(&t->ring);
		if (held)
			ptbts_ring_hold(&t->ring, true);
		err = wait_event_freezable(t->ring.room_wq,
					   ptbts_step_may_go(st, t));
		if (held)
			ptbts_ring_hold(&t->ring, false);
		if (!err)
			continue;
		if (fatal_signal_pending(current)) {
			/* Pairs with READ_ONCE(@lost) in ptbts_status_fill(). */
			WRITE_ONCE(t->ring.lost, t->ring.lost + st->ndefer);
			st->ndefer = 0;
		}
		return;
	}
}

static void ptbts_step_work(struct callback_head *cb)
{
	struct ptbts_step *st = container_of(cb, struct ptbts_step, twork);
	struct ptbts_thread *t = st->tw_thread;

	/* Anything queued from here on needs a new run. */
	clear_bit(0, &st->tw_queued);
	ptbts_step_sigret_done(st);
	ptbts_step_uprobe_done(st);
	ptbts_step_signal_done(st);
	ptbts_step_drain(st, t);
	ptbts_thread_put(t);
	ptbts_step_put(st);
}

/**
 * ptbts_step_queue_work() - run ptbts_step_work() before user mode
 * @st: the state of current
 * @t:  its attachment, found under RCU
 *
 * Any context of current.  The work holds a reference on both; module
 * unload waits for the state, and so for the work.
 */
void ptbts_step_queue_work(struct ptbts_step *st, struct ptbts_thread *t)
{
	if (test_and_set_bit(0, &st->tw_queued))
		return;
	/* Attached: the session's reference keeps @t above zero. */
	refcount_inc(&t->ref);
	refcount_inc(&st->ref);
	st->tw_thread = t;
	init_task_work(&st->twork, ptbts_step_work);
	if (!task_work_add(current, &st->twork, TWA_RESUME))
		return;
	/* Exiting: it never returns to user mode. */
	clear_bit(0, &st->tw_queued);
	refcount_dec(&t->ref);
	ptbts_step_put(st);
}

/**
 * ptbts_step_end() - the ptrace link of current ended: record no more
 * @st: the state of current
 * @t:  its attachment, found under RCU
 *
 * Any context of current.  A final GAP marker says that tracing was turned
 * off, the attachment ends (DETACHED; its release wakes the tracer), and
 * nothing of current is recorded from here on: the trap notifier and the
 * probes check @st->off and ptbts_thread_linked() before they record.  The
 * caller takes the trap flag back.
 */
void ptbts_step_end(struct ptbts_step *st, struct ptbts_thread *t)
{
	if (!st->off)
		ptbts_step_emit(st, t, 0, PTBTS_GAP_DISABLED, PTBTS_KIND_GAP);
	st->off = true;
	st->has_prev = false;
	st->sig_pending = false;
	ptbts_thread_unlink(t, PTBTS_STATE_DETACHED);
}

/*
 * The new image's registers are set and its trap flag is clear.  Stepping
 * goes on only while current may still be recorded: an exec that made it
 * non-dumpable (a setuid program, say) ends the attachment here, before
 * the program's first instruction, and with no EXEC marker.
 */
/* sched_process_exec (tracepoints.c) */
void ptbts_step_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			struct linux_binprm *bprm)
{
	struct pt_regs *regs = current_pt_regs();
	struct ptbts_thread *t;
	struct ptbts_step *st;

	rcu_read_lock();
	st = ptbts_step_find(current);
	t = st ? ptbts_step_armed(st) : NULL;
	if (t && !ptbts_thread_linked(t)) {
		ptbts_step_end(st, t);
		ptbts_step_unhash(st);
	} else if (t) {
		ptbts_step_emit(st, t, 0, regs->ip, PTBTS_KIND_EXEC);
		st->in_gap = false;
		st->off = false;
		st->has_prev = false;
		/* A 32-bit image too, as ptrace-step does. */
		ptbts_step_pend(st, regs);
		ptbts_step_rearm();
	}
	rcu_read_unlock();
}

/* sched_process_fork (tracepoints.c) */
void ptbts_step_on_fork(void *data, struct task_struct *parent,
			struct task_struct *child)
{
	rcu_read_lock();
	if (ptbts_step_find(parent))
		task_pt_regs(child)->flags &= ~X86_EFLAGS_TF;
	rcu_read_unlock();
}

/*
 * signal_deliver (tracepoints.c).
 * In get_signal(), after any signal-delivery-stop, with the siglock held:
 * the pending instruction ran if the pc moved (a syscall that finished, an
 * int3), and the one at the pc now will not run before the handler.
 */
void ptbts_step_on_signal(void *data, int sig, struct kernel_siginfo *info,
			  struct k_sigaction *ka)
{
	struct pt_regs *regs = current_pt_regs();
	struct ptbts_thread *t;
	struct ptbts_step *st;

	if (ka->sa.sa_handler == SIG_DFL || ka->sa.sa_handler == SIG_IGN)
		return;
	rcu_read_lock();
	st = ptbts_step_find(current);
	t = st ? ptbts_step_armed(st) : NULL;
	if (t && !ptbts_thread_linked(t)) {
		/* Before the frame saves the flags: no frame keeps the flag. */
		ptbts_step_end(st, t);
		if (ptbts_step_unhash(st) && !test_thread_flag(TIF_SINGLESTEP))
			regs->flags &= ~X86_EFLAGS_TF;
	} else if (t && !st->off) {
		if (st->has_prev && regs->ip != st->prev_pc)
			ptbts_step_complete(st, t, regs);
		st->has_prev = false;
		st->sig_from = regs->ip;
		st->sig_pending = true;
		ptbts_step_frame_note(st, ka, regs);
		ptbts_step_queue_work(st, t);
	}
	rcu_read_unlock();
}
