// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: kmod-step and uprobes.
 *
 * A uprobe is an int3 written over the probed instruction.  uprobes' die
 * notifier (priority INT_MAX - 1, before the module's recording notifier)
 * claims every int3 of a task whose mm has uprobes, and on the way back to
 * user mode (uprobe_notify_resume()) runs the probe's handlers, then either
 * emulates the instruction or single-steps a copy of it out of line (XOL)
 * with the trap flag set, claiming that step in its notifier too.  A trap
 * flag it finds already set it takes for the program's own, and answers it
 * with a SIGTRAP (arch_uprobe_post_xol(), arch_uprobe_skip_sstep()): the
 * program would die of the module's flag.  So the module hands the int3
 * over without its flag, and takes the thread back afterwards:
 *
 *  - a notifier of priority INT_MAX (after kprobes, before uprobes) sees
 *    the int3 first and, under uprobes' own test (the one of
 *    uprobe_pre_sstep_notifier()), clears the flag and queues the thread's
 *    task_work;
 *  - that task_work runs after uprobe_notify_resume() (the exit to user
 *    mode handles TIF_UPROBE before TIF_NOTIFY_RESUME).  If uprobes is
 *    stepping the copy (utask->active_uprobe), the same early notifier
 *    queues the work again at that step's trap, and it then runs after
 *    uprobes' fixups;
 *  - then the probed instruction has run and the pc is where it went.  Its
 *    bytes come from the mapped file: memory holds the int3, uprobes only
 *    probes file mappings, and never writes the file.  It is recorded like
 *    any other instruction, and the flag is set again.
 *
 * An int3 that was no uprobe's (uprobes then sends the SIGTRAP itself)
 * reads as an int3 from the file too, and stays pending as it would have
 * without uprobes.  A thread that ptrace single-steps is left alone.
 *
 * Why uprobes' private test: uprobes exports uprobe_register() for probes
 * of one's own, but no way to learn that it is about to take over a
 * thread for someone else's probe, nor to hand it a thread whose trap
 * flag is not the program's.  The early notifier shares INT_MAX with
 * hw_breakpoint's (registered first, so it runs first) and only reads
 * uprobes' state (MMF_HAS_UPROBES, utask->return_instances,
 * utask->active_uprobe) and clears the module's own flag.  That state and
 * the order of TIF_UPROBE before task_work on the way to user mode are
 * uprobes' and the entry code's inside: checked on the kernels Kbuild
 * names, and the build refuses others.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task_stack.h>
#include <linux/uprobes.h>

#include "branch.h"
#include "step.h"

#ifdef CONFIG_UPROBES
/* Will uprobes claim an int3 of current?  Its own test. */
static bool ptbts_uprobes_claim(void)
{
	struct uprobe_task *utask = current->utask;

	if (!current->mm)
		return false;
	return test_bit(MMF_HAS_UPROBES, &current->mm->flags) ||
	       (utask && utask->return_instances);
}

/* Is uprobes single-stepping an out-of-line copy for current? */
static bool ptbts_uprobe_stepping(void)
{
	struct uprobe_task *utask = current->utask;

	return utask && utask->active_uprobe;
}
#else
static bool ptbts_uprobes_claim(void)
{
	return false;
}

static bool ptbts_uprobe_stepping(void)
{
	return false;
}
#endif

/* An int3 of an armed thread, before uprobes sees it. */
static void ptbts_step_int3(struct ptbts_step *st, struct ptbts_thread *t,
			    struct pt_regs *regs)
{
	u64 bp = regs->ip - 1;

	if (!(regs->flags & X86_EFLAGS_TF) || !ptbts_uprobes_claim())
		return;
	/* It ran right after a syscall, with no trap before it. */
	if (st->has_prev && st->prev_pc != bp)
		ptbts_step_complete(st, t, regs);
	st->prev_pc = bp;
	st->prev_ax = regs->ax;
	st->has_prev = true;
	st->sigret_ok = false;
	st->up_wait = true;
	regs->flags &= ~X86_EFLAGS_TF;
	ptbts_step_queue_work(st, t);
}

static int ptbts_step_early_notify(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	struct ptbts_thread *t;
	struct ptbts_step *st;

	if ((val != DIE_INT3 && val != DIE_DEBUG) || !regs ||
	    !user_mode(regs) || test_thread_flag(TIF_SINGLESTEP))
		return NOTIFY_DONE;
	rcu_read_lock();
	st = ptbts_step_find(current);
	t = st ? rcu_dereference(st->thread) : NULL;
	if (t && !st->off) {
		if (val == DIE_INT3)
			ptbts_step_int3(st, t, regs);
		else if (st->up_wait && ptbts_uprobe_stepping())
			ptbts_step_queue_work(st, t);
	}
	rcu_read_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block ptbts_step_early_nb = {
	.notifier_call	= ptbts_step_early_notify,
	.priority	= INT_MAX,
};

/*
 * The bytes of the file mapped at @pc, up to @size.  Sleeps.
 * Return: how many, or a negative errno.
 */
static ssize_t ptbts_file_code(u64 pc, u8 *code, size_t size)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct file *file = NULL;
	loff_t pos = 0;
	size_t len = 0;
	ssize_t n;

	if (!mm || mmap_read_lock_killable(mm))
		return -EFAULT;
	vma = vma_lookup(mm, pc);
	if (vma && vma->vm_file) {
		file = get_file(vma->vm_file);
		pos = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
		      (pc - vma->vm_start);
		len = min_t(u64, size, vma->vm_end - pc);
	}
	mmap_read_unlock(mm);
	if (!file)
		return -EFAULT;
	n = kernel_read(file, code, len, &pos);
	fput(file);
	return n;
}

/*
 * The probed instruction at @st->prev_pc, @n bytes of it in @code, ran and
 * the thread is at @regs->ip: its record, then the next pending one.
 */
static void ptbts_step_up_record(struct ptbts_step *st, struct ptbts_thread *t,
				 struct pt_regs *regs, const u8 *code,
				 ssize_t n)
{
	struct ptbts_insn insn;
	int err = n > 0 ? ptbts_branch_classify(code, n, user_64bit_mode(regs),
						&insn) : -EFAULT;

	if (err) {
		if (!st->in_gap)
			ptbts_step_emit(st, t, 0, err == -EINVAL ?
					PTBTS_GAP_UNDECODABLE :
					PTBTS_GAP_UNREADABLE, PTBTS_KIND_GAP);
		st->in_gap = true;
	} else {
		st->in_gap = false;
		/* The program's own int3: pending, as without uprobes. */
		if (insn.kind == PTBTS_BR_SYSCALL)
			return;
		if (ptbts_step_taken(&insn, st->prev_pc, regs->ip))
			ptbts_step_emit(st, t, st->prev_pc, regs->ip,
					PTBTS_KIND_BRANCH);
	}
	ptbts_step_pend(st, regs);
}

/**
 * ptbts_step_uprobe_done() - take the thread back from uprobes, if it is done
 * @st: the state of current, from its task_work (may sleep)
 */
void ptbts_step_uprobe_done(struct ptbts_step *st)
{
	struct pt_regs *regs = current_pt_regs();
	struct ptbts_thread *t;
	u8 code[15];
	ssize_t n;

	if (!st->up_wait || ptbts_uprobe_stepping())
		return;
	st->up_wait = false;
	n = ptbts_file_code(st->prev_pc, code, sizeof(code));
	rcu_read_lock();
	t = rcu_dereference(st->thread);
	if (t && !st->off) {
		/*
		 * Unless a signal's handler took over (its record is made), or
		 * the int3 is to run again (uprobes restarts it).
		 */
		if (!st->sig_pending && regs->ip != st->prev_pc)
			ptbts_step_up_record(st, t, regs, code, n);
		ptbts_step_rearm();
	}
	rcu_read_unlock();
}

/**
 * ptbts_step_uprobe_init() - see int3s before uprobes does
 *
 * Return: 0 or a negative errno.
 */
int ptbts_step_uprobe_init(void)
{
	return register_die_notifier(&ptbts_step_early_nb);
}

/**
 * ptbts_step_uprobe_exit() - stop; waits for running notifiers
 */
void ptbts_step_uprobe_exit(void)
{
	unregister_die_notifier(&ptbts_step_early_nb);
}
