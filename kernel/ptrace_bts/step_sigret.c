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

#ifdef CONFIG_KRETPROBES
static int ptbts_sigret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ptbts_step *st;

	rcu_read_lock();
	st = ptbts_step_find(current);
	/* Pending since the trap before it: this syscall instruction. */
	if (st && st->has_prev && st->prev_ax == __NR_rt_sigreturn) {
		st->sigret_pc = current_pt_regs()->ip;
		st->sigret_ok = true;
	}
	rcu_read_unlock();
	return 0;
}

static struct kretprobe ptbts_sigret_probe = {
	.handler	= ptbts_sigret_ret,
	.kp.symbol_name	= "__x64_sys_rt_sigreturn",
	/* Instances are held only while the syscall runs. */
	.maxactive	= 64,
};

/**
 * ptbts_step_sigret_init() - probe rt_sigreturn's return
 *
 * Return: 0 or a negative errno.
 */
int ptbts_step_sigret_init(void)
{
	return register_kretprobe(&ptbts_sigret_probe);
}

/**
 * ptbts_step_sigret_exit() - remove the probe; waits for running handlers
 */
void ptbts_step_sigret_exit(void)
{
	unregister_kretprobe(&ptbts_sigret_probe);
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
