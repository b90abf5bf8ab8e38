// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: where an rt_sigreturn of a stepped thread resumed.
 *
 * The syscall runs with the trap flag masked and restores the registers
 * from the signal frame; the next trap comes one instruction after the pc
 * it restored.  That pc is taken from the restored registers, by a return
 * probe on the syscall, in the thread's own context: the frame itself is
 * user memory that the program, another thread or a tracer (at the syscall
 * entry stop) may change before the kernel reads it, and it is gone once
 * the syscall ran.
 *
 * A 32-bit thread (issue 9) returns through the compat rt_sigreturn (173)
 * or sigreturn (119), entered by int $0x80: both are probed too.
 *
 * Without kretprobes, the pc stays unknown and each rt_sigreturn of a
 * stepped thread ends in a GAP marker (step_trap.c).
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

#ifdef CONFIG_KRETPROBES
static int ptbts_sigret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ptbts_step *st;

	rcu_read_lock();
	st = ptbts_step_find(current);
	/* Pending since the trap before it: this syscall instruction. */
	if (st && st->has_prev &&
	    ptbts_step_is_sigret(st->prev_ax, user_64bit_mode(current_pt_regs()))) {
		st->sigret_pc = current_pt_regs()->ip;
		st->sigret_ok = true;
	}
	rcu_read_unlock();
	return 0;
}

/* Instances are held only while the syscall runs. */
static struct kretprobe ptbts_sigret_probe = {
	.handler	= ptbts_sigret_ret,
	.kp.symbol_name	= "__x64_sys_rt_sigreturn",
	.maxactive	= 64,
};

#ifdef CONFIG_IA32_EMULATION
static struct kretprobe ptbts_sigret32_probes[] = {
	{
		.handler	= ptbts_sigret_ret,
		.kp.symbol_name	= "__ia32_compat_sys_rt_sigreturn",
		.maxactive	= 64,
	}, {
		.handler	= ptbts_sigret_ret,
		.kp.symbol_name	= "__ia32_compat_sys_sigreturn",
		.maxactive	= 64,
	},
};
static struct kretprobe *ptbts_sigret_probes[] = {
	&ptbts_sigret_probe, &ptbts_sigret32_probes[0], &ptbts_sigret32_probes[1],
};
#else
static struct kretprobe *ptbts_sigret_probes[] = { &ptbts_sigret_probe };
#endif

/**
 * ptbts_step_sigret_init() - probe rt_sigreturn's return
 *
 * Return: 0 or a negative errno.
 */
int ptbts_step_sigret_init(void)
{
	return register_kretprobes(ptbts_sigret_probes,
				   ARRAY_SIZE(ptbts_sigret_probes));
}

/**
 * ptbts_step_sigret_exit() - remove the probe; waits for running handlers
 */
void ptbts_step_sigret_exit(void)
{
	unregister_kretprobes(ptbts_sigret_probes,
			      ARRAY_SIZE(ptbts_sigret_probes));
}
#else
int ptbts_step_sigret_init(void)
{
	return 0;
}

void ptbts_step_sigret_exit(void)
{
}
#endif
