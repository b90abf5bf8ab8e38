// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: where an rt_sigreturn of a stepped thread resumed.
 *
 * The syscall runs with the trap flag masked and restores the registers
 * from the signal frame; the next trap comes one instruction after the pc
 * it restored.  That pc is taken from the restored registers, in the
 * thread's own context once the syscall ran: a probe at the syscall's
 * entry queues the thread's task_work, which runs before the thread
 * returns to user mode.  The frame itself is user memory that the
 * program, another thread or a tracer (at the syscall entry stop) may
 * change before the kernel reads it, and it is gone once the syscall ran.
 *
 * The same task_work sets the module's trap flag again, which no signal
 * frame keeps (step_frame.c): also the frame of a handler that ran before
 * the thread was attached gives the thread back stepped.  A kprobe never
 * misses a thread (a kretprobe can, with more threads in the syscall than
 * its instances), and task_work_add() fails only for an exiting thread.
 *
 * A 32-bit thread returns through the compat rt_sigreturn (173) or
 * sigreturn (119), entered by int $0x80: both are probed too.
 *
 * Why a kprobe on syscall symbols: nothing exported tells a module that a
 * thread entered a syscall.  The raw_syscalls tracepoints are not exported
 * to modules, syscall stops belong to the tracer, and the frame, read at
 * the trap before the syscall, is user memory that the program or a
 * tracer may change before the kernel reads it.  register_kprobes() is
 * exported; what is private is the symbol names (__x64_sys_rt_sigreturn,
 * __ia32_compat_sys_rt_sigreturn, __ia32_compat_sys_sigreturn) and that
 * nothing runs task_work between the syscall's entry and its exit to user
 * mode: checked on the kernels Kbuild names, and the build refuses
 * others.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/unistd.h>

#include "step.h"

/* The i386 numbers (asm/unistd_32.h is not there in a 64-bit build). */
#define PTBTS_NR32_SIGRETURN	119
#define PTBTS_NR32_RT_SIGRETURN	173

/**
 * ptbts_step_is_sigret() - whether syscall @nr restores a signal frame
 * @nr:     the syscall number (ax before the syscall ran)
 * @mode64: the thread runs 64-bit code
 *
 * Return: true for rt_sigreturn, or for a 32-bit thread also sigreturn.
 */
bool ptbts_step_is_sigret(u64 nr, bool mode64)
{
	if (mode64)
		return nr == __NR_rt_sigreturn;
	/* eax: the upper half of ax is not the syscall's */
	return (u32)nr == PTBTS_NR32_SIGRETURN ||
	       (u32)nr == PTBTS_NR32_RT_SIGRETURN;
}

/* At the syscall's entry: the task_work looks once it ran. */
static int ptbts_sigret_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct ptbts_thread *t;
	struct ptbts_step *st;

	rcu_read_lock();
	st = ptbts_step_find(current);
	t = st ? rcu_dereference(st->thread) : NULL;
	if (t && !st->off) {
		st->sigret_wait = true;
		ptbts_step_queue_work(st, t);
	}
	rcu_read_unlock();
	return 0;
}

/**
 * ptbts_step_sigret_done() - the rt_sigreturn current entered has run
 * @st: the state of current, from its task_work
 */
void ptbts_step_sigret_done(struct ptbts_step *st)
{
	struct pt_regs *regs = current_pt_regs();

	if (!st->sigret_wait)
		return;
	st->sigret_wait = false;
	/* Pending since the trap before it: this syscall instruction. */
	if (st->has_prev &&
	    ptbts_step_is_sigret(st->prev_ax, user_64bit_mode(regs))) {
		st->sigret_pc = regs->ip;
		st->sigret_ok = true;
	}
	/* Stepped on, ptrace's single-step aside. */
	rcu_read_lock();
	if (rcu_access_pointer(st->thread) && !st->off &&
	    !test_thread_flag(TIF_SINGLESTEP))
		ptbts_step_rearm();
	rcu_read_unlock();
}

static struct kprobe ptbts_sigret_probes[] = {
	{ .symbol_name = "__x64_sys_rt_sigreturn",
	  .pre_handler = ptbts_sigret_entry },
#ifdef CONFIG_IA32_EMULATION
	{ .symbol_name = "__ia32_compat_sys_rt_sigreturn",
	  .pre_handler = ptbts_sigret_entry },
	{ .symbol_name = "__ia32_compat_sys_sigreturn",
	  .pre_handler = ptbts_sigret_entry },
#endif
};

static struct kprobe *ptbts_sigret_kps[ARRAY_SIZE(ptbts_sigret_probes)];

/**
 * ptbts_step_sigret_init() - probe rt_sigreturn's entry
 *
 * Return: 0 or a negative errno.
 */
int ptbts_step_sigret_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ptbts_sigret_probes); i++)
		ptbts_sigret_kps[i] = &ptbts_sigret_probes[i];
	return register_kprobes(ptbts_sigret_kps, ARRAY_SIZE(ptbts_sigret_kps));
}

/**
 * ptbts_step_sigret_exit() - remove the probes; waits for running handlers
 */
void ptbts_step_sigret_exit(void)
{
	unregister_kprobes(ptbts_sigret_kps, ARRAY_SIZE(ptbts_sigret_kps));
}
