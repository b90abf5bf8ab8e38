// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the recording sources, what each needs and why it may be
 * missing here.
 *
 * kmod-step works on every x86-64 CPU.  kmod-bts and kmod-pebs need an
 * Intel CPU with DS, no PTI and a privileged caller (hw_detect.c says why
 * not); kmod-pebs also fills a second region, with PEBS records.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "hw.h"
#include "ptbts.h"

static const struct ptbts_source_ops ptbts_step_ops = {
	.has_buffer2	= false,
	.start		= ptbts_step_start,
	.stop		= ptbts_step_stop,
};

/**
 * ptbts_source_unavail() - why a source cannot record here
 * @source: an &enum ptbts_source
 *
 * Return: an &enum ptbts_unavail, %PTBTS_OK when it can.
 */
u8 ptbts_source_unavail(u32 source)
{
	switch (source) {
	case PTBTS_SOURCE_KMOD_STEP:
		return PTBTS_OK;
	case PTBTS_SOURCE_KMOD_BTS:
		return ptbts_hw_unavail(source, false);
	case PTBTS_SOURCE_KMOD_PEBS:
		return ptbts_hw_unavail(source, false);
	case PTBTS_SOURCE_PERF_BTS:
	case PTBTS_SOURCE_PTRACE_STEP:
		return PTBTS_UNAVAIL_NOT_KERNEL;
	default:
		/* No source has this number. */
		return PTBTS_UNAVAIL_NOT_BUILT;
	}
}

/**
 * ptbts_unavail_name() - a reason in words, as sysfs shows it
 * @reason: an &enum ptbts_unavail
 *
 * Return: a constant string.
 */
const char *ptbts_unavail_name(u8 reason)
{
	static const char *const names[] = {
		[PTBTS_OK]			= "ok",
		[PTBTS_UNAVAIL_NOT_BUILT]	= "not built",
		[PTBTS_UNAVAIL_NOT_INTEL]	= "not an Intel CPU",
		[PTBTS_UNAVAIL_NO_DS]		= "no debug store",
		[PTBTS_UNAVAIL_BTS_OFF]		= "BTS unavailable",
		[PTBTS_UNAVAIL_PEBS_OFF]	= "PEBS unavailable",
		[PTBTS_UNAVAIL_PTI]		= "page-table isolation",
		[PTBTS_UNAVAIL_PEBS_FMT]	= "PEBS format not supported",
		[PTBTS_UNAVAIL_NOT_KERNEL]	= "a user-space source",
		[PTBTS_UNAVAIL_ERRATUM]		= "BTS erratum on this CPU model",
		[PTBTS_UNAVAIL_NO_CAP]		= "needs CAP_PERFMON or CAP_SYS_ADMIN",
		[PTBTS_UNAVAIL_PERF_BUSY]	= "perf is using the PMU",
		[PTBTS_UNAVAIL_NO_PMU]		= "no architectural PMU v2",
		[PTBTS_UNAVAIL_LOCKDOWN]	= "kernel lockdown",
	};

	if (reason >= ARRAY_SIZE(names) || !names[reason])
		return "unknown";
	return names[reason];
}

/**
 * ptbts_source_uses_buffer2() - whether a source fills a second region
 * @source: an &enum ptbts_source from user space
 *
 * Known from the number alone, on any machine.
 *
 * Return: true for kmod-pebs.
 */
bool ptbts_source_uses_buffer2(u32 source)
{
	return source == PTBTS_SOURCE_KMOD_PEBS;
}

/**
 * ptbts_source_get() - the operations of a source ATTACH may use
 * @source: an &enum ptbts_source from user space
 * @err:    set to -EINVAL for a number that is not a module source, to
 *          -EPERM for kmod-pebs and a caller without CAP_PERFMON or
 *          CAP_SYS_ADMIN (kmod-bts's start answers so), or to -EOPNOTSUPP
 *          for a hardware source that cannot record here
 *
 * Return: the source's operations, or NULL with @err set.
 */
const struct ptbts_source_ops *ptbts_source_get(u32 source, int *err)
{
	switch (source) {
	case PTBTS_SOURCE_KMOD_STEP:
		return &ptbts_step_ops;
	case PTBTS_SOURCE_KMOD_BTS:
		/*
		 * Only the machine's reasons here: they never change, so a
		 * thread that started is always stopped.  The caller's
		 * privilege and perf's use of the PMU are start's to check.
		 */
		if (ptbts_hw_unavail(source, PTBTS_HW_MACHINE) == PTBTS_OK)
			return &ptbts_bts_ops;
		*err = -EOPNOTSUPP;
		return NULL;
	case PTBTS_SOURCE_KMOD_PEBS:
		/* As kmod-bts: the machine here, the caller in start. */
		if (ptbts_hw_unavail(source, PTBTS_HW_MACHINE) == PTBTS_OK)
			return &ptbts_pebs_ops;
		*err = -EOPNOTSUPP;
		return NULL;
	default:
		*err = -EINVAL;
		return NULL;
	}
}

/**
 * ptbts_source_cut() - stop a hardware source's writes into @t's buffer now
 * @t:   the thread object, whose ptrace link or dumpability just ended, or
 *       whose thread exits
 * @why: %PTBTS_STATE_DETACHED (the link ended: a final GAP marker) or
 *       %PTBTS_STATE_EXITED
 *
 * The hardware writes while the thread runs, wherever it runs, so the end
 * of the link must reach its CPU at once (ptbts_hw_cut()).  kmod-step
 * records only in its own trap, which checks the link itself and writes
 * its own marker.  Any context with interrupts on.
 *
 * Return: whether @t's source writes by hardware (and was cut).
 */
bool ptbts_source_cut(struct ptbts_thread *t, u32 why)
{
	switch (t->source) {
	case PTBTS_SOURCE_KMOD_BTS:
	case PTBTS_SOURCE_KMOD_PEBS:
		ptbts_hw_cut(t, why == PTBTS_STATE_DETACHED);
		return true;
	default:
		return false;
	}
}
