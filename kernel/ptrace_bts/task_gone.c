// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: whether an exiting thread has switched for the last time.
 *
 * kmod-bts registers a preempt notifier on the traced thread.  The thread
 * unregisters it itself, in a task_work; a thread whose attachment ends
 * after it ran its last task_works at exit still switches (and runs the
 * notifier) until it is dead, and the notifier's list may only be changed
 * from elsewhere once it never will again.  The kernel has this test
 * (wait_task_inactive(), task_call_func()) but exports neither, nor any
 * other way to learn that a task made its final switch: the exit and
 * free paths of a task_struct offer modules no callback, and pid and
 * exit_state change before the last switch.  So this file, and only this
 * file, reads two fields of the scheduler's, the way wait_task_inactive()
 * does without the runqueue lock: TASK_DEAD in __state, set before the
 * final __schedule(), and on_cpu, cleared by finish_task_switch() once
 * the previous task is off the CPU (after the sched_out notifiers ran).
 *
 * Checked against Linux 6.1 (Debian's 6.1.0-56 sources: kernel/exit.c's
 * do_task_dead() and kernel/sched/core.c's finish_task_switch()); the
 * build (Kbuild) refuses other kernels.
 */
#include <linux/sched.h>

#include "hw.h"

/**
 * ptbts_task_gone() - @p will never run again
 * @p: a task the caller holds a reference on
 *
 * Return: true once @p is dead and off its CPU; false can be stale.
 */
bool ptbts_task_gone(struct task_struct *p)
{
	/* Pairs with set_special_state(TASK_DEAD) in do_task_dead(). */
	if (!(READ_ONCE(p->__state) & TASK_DEAD))
		return false;
	/* Pairs with the release of on_cpu in finish_task_switch(). */
	return !smp_load_acquire(&p->on_cpu);
}
