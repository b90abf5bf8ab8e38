// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The event kmod-pebs samples and how often: IA32_PERFEVTSEL0 and the
 * counter's reload value.
 *
 * Counter 0 counts the event up from -period; each overflow makes the CPU
 * store one PEBS record and reload the counter from the DS area's reset
 * field, which ds_task_arm() sets to -period.  The counter is written
 * through its legacy MSR, which takes 32 bits and sign-extends them, so a
 * period must fit in 31 bits; 0 would be no sampling at all.
 *
 * Only the event select and unit mask are the caller's: the other
 * PERFEVTSEL bits (edge, any thread, invert, counter mask, the interrupt
 * bit) change what a record means or who gets the PMI, and stay this
 * code's.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

#include "ds.h"

#define DS_EVTSEL_EVENT		0xffULL		/* event select */
#define DS_EVTSEL_CALLER	0xffffULL	/* event select, unit mask */
#define DS_EVTSEL_USR		BIT_ULL(16)
#define DS_EVTSEL_OS		BIT_ULL(17)

/**
 * ds_pebs_event_check() - whether an event and period can be sampled
 * @event:  event select (bits 0-7, not 0) and unit mask (bits 8-15)
 * @period: events per record, 1 to %PTBTS_PEBS_PERIOD_MAX
 *
 * Return: 0 or -EINVAL.
 */
int ds_pebs_event_check(u64 event, u64 period)
{
	if (event & ~DS_EVTSEL_CALLER || !(event & DS_EVTSEL_EVENT))
		return -EINVAL;
	if (!period || period > PTBTS_PEBS_PERIOD_MAX)
		return -EINVAL;
	return 0;
}

/**
 * ds_task_pebs_event() - the event a thread's PEBS region samples
 * @t:      the thread's DS state, not running
 * @event:  as ds_pebs_event_check() accepts it
 * @period: the same
 * @kernel: count in kernel mode too (the per-CPU mode); else user only
 *
 * No interrupt bit: the PMI is the DS threshold's, as perf's large PEBS
 * buffers have it.
 */
void ds_task_pebs_event(struct ds_task *t, u64 event, u64 period, bool kernel)
{
	t->pebs_evtsel = DS_EVTSEL_EN | DS_EVTSEL_USR |
			 (event & DS_EVTSEL_CALLER);
	if (kernel)
		t->pebs_evtsel |= DS_EVTSEL_OS;
	t->pebs_reset = period;
	t->pebs_ctr = -period;
}
