// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: kmod-step's trap notifier, where records are made.
 *
 * At each single-step trap of a stepped thread the instruction it was
 * about to run at the previous trap has run, and the pc says where it
 * went: a control transfer whose next pc is not the instruction after it
 * (or that always transfers) is a taken branch, {its address -> the pc},
 * exactly the rule of libbts's ptrace-step (bts_insn_taken()), so that both
 * sources give the same records for the same run.
 *
 * A syscall (and an int) runs with the trap flag masked, and the kernel
 * returns to user mode with it set again: the instruction after the
 * syscall then runs with no trap before it, and the next trap comes one
 * instruction late.  That instruction is classified too.  rt_sigreturn
 * returns elsewhere, to the pc it restored from its frame, which the
 * thread's task_work takes from the registers after the syscall ran
 * (step_sigret.c): a frame read before could differ from what it restored.
 *
 * The notifier runs with interrupts off and never sleeps: code is read with
 * copy_from_user_nofault() (a failure is a GAP marker, never a guess), the
 * record goes straight into the pinned buffer, a full BLOCK-mode buffer
 * defers to task_work, wakeups go through irq_work.
 */
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/debugreg.h>

#include "branch.h"
#include "step.h"

/**
 * ptbts_step_taken() - whether an instruction that ran was a taken branch
 * @insn: the classifier's view of it
 * @pc:   its address
 * @next: the pc after it ran
 *
 * Return: true when it is recorded.
 */
bool ptbts_step_taken(const struct ptbts_insn *insn, u64 pc, u64 next)
{
	switch (insn->kind) {
	case PTBTS_BR_JCC:
	case PTBTS_BR_LOOP:
	case PTBTS_BR_OTHER:	/* XBEGIN: taken when it aborts */
		return next != pc + insn->len;
	case PTBTS_BR_JMP:
	case PTBTS_BR_CALL:
	case PTBTS_BR_RET:
	case PTBTS_BR_JMP_IND:
	case PTBTS_BR_CALL_IND:
	case PTBTS_BR_FAR:
		return true;
	default:
		return false;
	}
}

/*
 * Classifies the instruction at @pc.  Return: 0, or a &enum ptbts_gap
 * reason.  The first read stops at the end of the page, so that a short
 * instruction before an unmapped page is still read.
 */
static int ptbts_fetch(u64 pc, bool mode64, struct ptbts_insn *insn)
{
	unsigned int avail = min_t(unsigned long, 15, PAGE_SIZE - offset_in_page(pc));
	const void __user *src = (const void __user *)(unsigned long)pc;
	u8 code[15];
	int err;

	if (copy_from_user_nofault(code, src, avail))
		return PTBTS_GAP_UNREADABLE;
	err = ptbts_branch_classify(code, avail, mode64, insn);
	if (err == -ENODATA && avail < sizeof(code)) {
		if (copy_from_user_nofault(code + avail, src + avail,
					   sizeof(code) - avail))
			return PTBTS_GAP_UNREADABLE;
		err = ptbts_branch_classify(code, sizeof(code), mode64, insn);
	}
	if (err == -ENODATA)
		return PTBTS_GAP_UNREADABLE;
	return err ? PTBTS_GAP_UNDECODABLE : 0;
}

/**
 * ptbts_step_emit() - write a record, or keep it while BLOCK waits
 * @st:   the state
 * @t:    its attachment (found under RCU)
 * @from: the record's @from
 * @to:   its @to
 * @kind: its &enum ptbts_kind
 */
void ptbts_step_emit(struct ptbts_step *st, struct ptbts_thread *t,
		     u64 from, u64 to, u32 kind)
{
	/* Behind records that wait, in order. */
	if (!st->ndefer && !ptbts_ring_put(&t->ring, from, to, kind))
		return;
	if (st->ndefer == PTBTS_STEP_DEFER) {
		/* Pairs with READ_ONCE(@lost) in ptbts_status_fill(). */
		WRITE_ONCE(t->ring.lost, t->ring.lost + 1);
		return;
	}
	st->defer[st->ndefer].from = from;
	st->defer[st->ndefer].to = to;
	st->defer[st->ndefer].flags = PTBTS_MKKIND(kind);
	st->ndefer++;
	ptbts_step_queue_work(st, t);
}

/* Classifies @pc; on failure one GAP marker per hole.  Return: 0 or not. */
static int ptbts_step_fetch(struct ptbts_step *st, struct ptbts_thread *t,
			    u64 pc, bool mode64, struct ptbts_insn *insn)
{
	int gap = ptbts_fetch(pc, mode64, insn);

	if (!gap) {
		st->in_gap = false;
		return 0;
	}
	if (!st->in_gap)
		ptbts_step_emit(st, t, 0, gap, PTBTS_KIND_GAP);
	st->in_gap = true;
	return gap;
}

/*
 * The pending syscall at @st->prev_pc ran; the thread then resumed at the
 * next instruction, or where rt_sigreturn's frame said, and has reached @pc.
 */
static void ptbts_step_after_syscall(struct ptbts_step *st,
				     struct ptbts_thread *t, u64 len, u64 pc,
				     bool mode64)
{
	u64 mid = st->prev_pc + len;
	struct ptbts_insn insn;

	if (ptbts_step_is_sigret(st->prev_ax, mode64)) {
		/* Where it went is unknown (not seen to run): say so. */
		if (!st->sigret_ok) {
			ptbts_step_emit(st, t, 0, PTBTS_GAP_UNREADABLE,
					PTBTS_KIND_GAP);
			st->in_gap = true;
			return;
		}
		if (st->sigret_pc != mid)
			ptbts_step_emit(st, t, st->prev_pc, st->sigret_pc,
					PTBTS_KIND_SIGRETURN);
		mid = st->sigret_pc;
	}
	/* Nothing ran since (a signal stopped it first). */
	if (pc == mid)
		return;
	if (ptbts_step_fetch(st, t, mid, mode64, &insn))
		return;
	if (ptbts_step_taken(&insn, mid, pc))
		ptbts_step_emit(st, t, mid, pc, PTBTS_KIND_BRANCH);
}

/**
 * ptbts_step_complete() - the pending instruction ran; the thread is at @regs
 * @st:   the state
 * @t:    its attachment
 * @regs: the thread's user registers
 */
void ptbts_step_complete(struct ptbts_step *st, struct ptbts_thread *t,
			 struct pt_regs *regs)
{
	bool mode64 = user_64bit_mode(regs);
	struct ptbts_insn insn;

	if (!st->has_prev)
		return;
	st->has_prev = false;
	if (ptbts_step_fetch(st, t, st->prev_pc, mode64, &insn))
		return;
	if (insn.kind == PTBTS_BR_SYSCALL)
		ptbts_step_after_syscall(st, t, insn.len, regs->ip, mode64);
	else if (ptbts_step_taken(&insn, st->prev_pc, regs->ip))
		ptbts_step_emit(st, t, st->prev_pc, regs->ip, PTBTS_KIND_BRANCH);
}

/**
 * ptbts_step_pend() - the instruction at regs->ip is the next to run
 * @st:   the state
 * @regs: the thread's user registers
 */
void ptbts_step_pend(struct ptbts_step *st, struct pt_regs *regs)
{
	st->prev_pc = regs->ip;
	st->prev_ax = regs->ax;
	st->has_prev = true;
	/* Set after an rt_sigreturn that ran (step_sigret.c). */
	st->sigret_ok = false;
}

/* A trap of an attached thread. */
static void ptbts_step_trap(struct ptbts_step *st, struct ptbts_thread *t,
			    struct pt_regs *regs)
{
	if (st->off)
		return;
	ptbts_step_complete(st, t, regs);
	/* The program cleared the flag (popf): its last step is this one. */
	if (!(regs->flags & X86_EFLAGS_TF)) {
		ptbts_step_emit(st, t, 0, PTBTS_GAP_DISABLED, PTBTS_KIND_GAP);
		st->off = true;
		return;
	}
	ptbts_step_pend(st, regs);
}

/*
 * The same trap may have other causes than the module's step: a hardware
 * breakpoint of a ptrace watchpoint (hw_breakpoint's notifier, which runs
 * first, moved its bit from DR6 into virtual_dr6 for the signal), or a
 * bus lock.  Then only the step is the module's: its bit goes, from what
 * the kernel sends and from what PTRACE_PEEKUSER shows as DR6 (exc_debug_user()
 * starts virtual_dr6 with it), and the rest goes on to the SIGTRAP.
 *
 * Return: whether the trap must go on.
 */
static bool ptbts_step_shared(unsigned long *dr6)
{
	struct thread_struct *th = &current->thread;

	if (!(*dr6 & ~DR_STEP) && !(th->virtual_dr6 & DR_TRAP_BITS))
		return false;
	*dr6 &= ~DR_STEP;
	th->virtual_dr6 &= ~DR_STEP;
	return true;
}

/*
 * Whose single-step is this?  Ours only when the task is in the table and
 * the trap came from user mode.  A ptrace single-step of the same thread
 * (TIF_SINGLESTEP) is recorded too, but left to ptrace, which turns it into
 * the tracer's SIGTRAP; kprobes do not step user code, and uprobes'
 * notifier runs before this one (higher priority) and claims the step of
 * its out-of-line copy, which step_uprobe.c arranges to happen without the
 * module's trap flag.  Nothing is recorded once the ptrace link ended: the
 * attachment ends at that trap and the flag is taken back.
 */
static int ptbts_step_notify(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct die_args *args = data;
	unsigned long *dr6 = (unsigned long *)args->err;
	struct pt_regs *regs = args->regs;
	int ret = NOTIFY_STOP;
	struct ptbts_thread *t;
	struct ptbts_step *st;

	if (val != DIE_DEBUG || !user_mode(regs) || !(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	rcu_read_lock();
	st = ptbts_step_find(current);
	if (!st) {
		ret = NOTIFY_DONE;
		goto out;
	}
	if (test_thread_flag(TIF_SINGLESTEP))
		ret = NOTIFY_DONE;
	t = rcu_dereference(st->thread);
	if (t && !ptbts_thread_linked(t)) {
		ptbts_step_end(st, t);
		t = NULL;
	}
	if (t) {
		ptbts_step_trap(st, t, regs);
	} else if (ret == NOTIFY_STOP && ptbts_step_unhash(st)) {
		/* The attachment ended while the thread ran: take the flag back. */
		regs->flags &= ~X86_EFLAGS_TF;
	}
	if (ret == NOTIFY_STOP && ptbts_step_shared(dr6))
		ret = NOTIFY_DONE;
out:
	rcu_read_unlock();
	return ret;
}

static struct notifier_block ptbts_step_nb = {
	.notifier_call	= ptbts_step_notify,
};

/**
 * ptbts_step_notifier_init() - claim the traps of stepped threads
 *
 * Return: 0 or a negative errno.
 */
int ptbts_step_notifier_init(void)
{
	return register_die_notifier(&ptbts_step_nb);
}

/**
 * ptbts_step_notifier_exit() - stop claiming; waits for running notifiers
 */
void ptbts_step_notifier_exit(void)
{
	unregister_die_notifier(&ptbts_step_nb);
}
