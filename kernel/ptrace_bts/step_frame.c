// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: no trap flag of the module's in a signal frame.
 *
 * A signal frame saves the user flags and the handler's rt_sigreturn
 * restores them.  A frame written while the module steps the thread saves
 * the module's trap flag, which would come back whenever the handler
 * returns: after the attachment ended, in a child the handler forked, after
 * module unload, with nothing left to claim the trap, and the program would
 * die of SIGTRAP.  So the flag never stays in a frame: it is taken out once
 * the frame is written, before the handler runs (the handler then sees the
 * frame it would see without the module), and the return probe of
 * rt_sigreturn sets it again if the thread is still stepped then
 * (step_sigret.c), also when the frame was written before the attachment.
 *
 * Only the flags word of a frame the kernel just wrote for this delivery
 * is touched, in the thread's own context, before the thread runs user
 * code again.
 */
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <asm/sigframe.h>

#include "step.h"

/*
 * Where the saved flags are in the frame of @ka's handler, from the start
 * of the frame, and whether they are 32 bits wide.  0: no frame we know.
 */
static u16 ptbts_frame_flags_off(const struct k_sigaction *ka, bool *is32)
{
	unsigned long f = ka->sa.sa_flags;

	*is32 = false;
#ifdef CONFIG_IA32_EMULATION
	if (f & SA_IA32_ABI) {
		*is32 = true;
		if (f & SA_SIGINFO)
			return offsetof(struct rt_sigframe_ia32,
					uc.uc_mcontext.flags);
		return offsetof(struct sigframe_ia32, sc.flags);
	}
#endif
#ifdef CONFIG_X86_X32_ABI
	if (f & SA_X32_ABI)
		return offsetof(struct rt_sigframe_x32, uc.uc_mcontext.flags);
#endif
	if (f & (SA_IA32_ABI | SA_X32_ABI))
		return 0;
	return offsetof(struct rt_sigframe, uc.uc_mcontext.flags);
}

/**
 * ptbts_step_frame_note() - a handler's frame is about to be written
 * @st:   the state of current
 * @ka:   the handler's action
 * @regs: current's user registers, the frame's contents
 *
 * From the signal delivery probe.  Does not sleep.
 */
void ptbts_step_frame_note(struct ptbts_step *st, const struct k_sigaction *ka,
			   const struct pt_regs *regs)
{
	st->frame_off = 0;
	if (!(regs->flags & X86_EFLAGS_TF))
		return;
	st->frame_off = ptbts_frame_flags_off(ka, &st->frame32);
	st->frame_handler = (unsigned long)ka->sa.sa_handler;
}

/**
 * ptbts_step_frame_untf() - take the trap flag out of the frame just written
 * @st: the state of current, from its task_work (may fault)
 *
 * The frame starts at the handler's stack pointer.  A frame that could not
 * be written leaves the thread somewhere else than at its handler (it is
 * killed): nothing is touched then.
 */
void ptbts_step_frame_untf(struct ptbts_step *st)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long at = regs->sp + st->frame_off;
	u32 __user *p32 = (u32 __user *)at;
	u64 __user *p64 = (u64 __user *)at;
	u32 f32;
	u64 f64;

	if (!st->frame_off || regs->ip != st->frame_handler)
		goto out;
	if (st->frame32) {
		if (!get_user(f32, p32) && (f32 & X86_EFLAGS_TF))
			put_user(f32 & ~X86_EFLAGS_TF, p32);
	} else {
		if (!get_user(f64, p64) && (f64 & X86_EFLAGS_TF))
			put_user(f64 & ~X86_EFLAGS_TF, p64);
	}
out:
	st->frame_off = 0;
}
