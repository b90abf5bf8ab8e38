/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptrace_bts: the hardware sources (kmod-bts, kmod-pebs) and the per-CPU
 * mode, on top of the DS code of arch/x86/ds (ds.h).
 *
 * None of this has run on a real CPU with BTS: the logic is tested in user
 * space against a simulated CPU (tests/sim), the refusal paths in QEMU on
 * its default CPU, which has no DS, and kmod-bts's recording on QEMU's
 * emulated CPU with BTS (tests/vcpu).
 */
#ifndef PTBTS_HW_H
#define PTBTS_HW_H

#include <linux/types.h>

#include "ds.h"
#include "ptbts.h"

/* hw_detect.c */
extern const struct ds_ops ptbts_hw_ops;
#define PTBTS_HW_MACHINE	2	/* ptbts_hw_unavail(): machine reasons only */
u8 ptbts_hw_unavail(u32 source, int audit);
u32 ptbts_hw_pebs_format(void);
u32 ptbts_hw_pebs_record_size(void);
u8 ptbts_hw_percpu_unavail(void);
u8 ptbts_hw_caller_unavail(void);
int ptbts_hw_errno(u8 why);

/* hw_bts.c: kmod-bts, and the recorder kmod-pebs shares */
extern const struct ptbts_source_ops ptbts_bts_ops;
int ptbts_hw_start(struct ptbts_thread *t);
bool ptbts_hw_slice_here(void);
void ptbts_hw_stop(struct ptbts_thread *t);
bool ptbts_hw_end(struct ptbts_thread *t);
void ptbts_hw_cut(struct ptbts_thread *t, bool final);

/* task_gone.c: the one reader of the scheduler's fields */
struct task_struct;
bool ptbts_task_gone(struct task_struct *p);

/*
 * The test build's knob (PTBTS_TEST_HOOKS=y, tests/kernel/kmod-test/):
 * force_pti=1 lets the hardware sources start under page-table isolation,
 * so that the guest's tests show the CPU failing to store through the
 * vmap alias the user page tables lack: why PTI is refused.  A module
 * built otherwise never ignores PTI.
 */
#ifdef PTBTS_TEST_HOOKS
bool ptbts_hw_test_force_pti(void);
#else
static inline bool ptbts_hw_test_force_pti(void)
{
	return false;
}
#endif

/* hw_pebs.c: kmod-pebs */
extern const struct ptbts_source_ops ptbts_pebs_ops;
int ptbts_pebs_setup(struct ds_task *ds, struct ptbts_thread *t, u8 **scratch);

#endif /* PTBTS_HW_H */
