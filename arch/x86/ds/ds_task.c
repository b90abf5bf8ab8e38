// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A traced thread's time slice on one CPU: sched-in points the DS area at
 * the thread's regions and turns BTS (and PEBS) on; the threshold PMI moves
 * the window on; sched-out turns them off, takes in what was stored and
 * gives the DS area back as it was.
 *
 * Every call runs on the CPU concerned with interrupts off (sched-out
 * under the runqueue lock, sched-in with preemption off and the caller
 * disabling interrupts, the PMI in NMI context), so nothing here races
 * with the hardware of another CPU: migration is a sched-out on one CPU
 * and a sched-in on the next, and the positions move with the thread.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#include <stddef.h>
#endif

#include "ds.h"

static bool ds_task_reached(const struct ds_fields *f)
{
	return f->index >= f->threshold;
}

/* Whether a threshold in the installed area's fields (ours) is reached. */
static bool ds_task_fields_reached(const struct ds_task *t)
{
	struct ds_fields f;

	ds_area_get_bts(t->area, &f);
	if (ds_task_reached(&f))
		return true;
	if (!t->has_pebs)
		return false;
	ds_area_get_pebs(t->area, &f);
	return ds_task_reached(&f);
}

/**
 * ds_task_init() - a thread that has not run yet
 * @t:        the state; its regions are initialised by the caller
 *            (ds_win_init()) before or after
 * @ctl:      the DEBUGCTL bits of its slices (ds_debugctl_bts())
 * @own_area: a zeroed DS area to install when IA32_DS_AREA is 0
 */
void ds_task_init(struct ds_task *t, u64 ctl, struct ds_area *own_area)
{
	t->ctl = ctl;
	t->own_area = own_area;
	t->area = NULL;
	t->running = false;
	t->foreign = 0;
	t->gap = false;
	t->pmi_owed = false;
}

static struct ds_area *ds_task_area(const struct ds_ops *ops,
				    struct ds_task *t)
{
	u64 val;

	if (ops->rdmsr(ops->ctx, DS_MSR_DS_AREA, &val))
		return NULL;
	t->saved_area = val;
	if (val)
		return (struct ds_area *)(unsigned long)val;
	/* Nobody uses DS on this CPU: ours, until sched-out. */
	if (ops->wrmsr(ops->ctx, DS_MSR_DS_AREA,
		       (u64)(unsigned long)t->own_area))
		return NULL;
	return t->own_area;
}

static void ds_task_pebs_on(const struct ds_ops *ops, struct ds_task *t)
{
	u64 ctrl = 0;

	/* Adaptive PEBS: the basic group only, whatever was left there. */
	if (t->pebs_adaptive)
		ops->wrmsr(ops->ctx, DS_MSR_PEBS_DATA_CFG, 0);
	ops->wrmsr(ops->ctx, DS_MSR_PMC0, t->pebs_ctr);
	ops->wrmsr(ops->ctx, DS_MSR_EVNTSEL0, t->pebs_evtsel);
	ops->wrmsr(ops->ctx, DS_MSR_PEBS_ENABLE, 1);
	ops->rdmsr(ops->ctx, DS_MSR_GLOBAL_CTRL, &ctrl);
	ops->wrmsr(ops->ctx, DS_MSR_GLOBAL_CTRL, ctrl | 1);
}

static void ds_task_pebs_off(const struct ds_ops *ops, struct ds_task *t)
{
	u64 ctrl = 0;

	ops->rdmsr(ops->ctx, DS_MSR_GLOBAL_CTRL, &ctrl);
	ops->wrmsr(ops->ctx, DS_MSR_GLOBAL_CTRL, ctrl & ~1ULL);
	ops->rdmsr(ops->ctx, DS_MSR_PMC0, &t->pebs_ctr);
	ops->wrmsr(ops->ctx, DS_MSR_PEBS_ENABLE, 0);
	ops->wrmsr(ops->ctx, DS_MSR_EVNTSEL0, 0);
}

static void ds_task_arm(struct ds_task *t, u64 tail, u64 tail2)
{
	struct ds_fields f;

	ds_win_arm(&t->bts, tail, &f);
	ds_area_set_bts(t->area, &f);
	if (t->has_pebs) {
		ds_win_arm(&t->pebs, tail2, &f);
		ds_area_set_pebs(t->area, &f);
		t->area->pebs_reset[0] = -t->pebs_reset;
	}
}

static void ds_task_collect(struct ds_task *t, u64 tail, u64 tail2)
{
	ds_win_collect(&t->bts, t->area->bts_index, tail);
	if (t->has_pebs)
		ds_win_collect(&t->pebs, t->area->pebs_index, tail2);
}

/**
 * ds_task_sched_in() - the thread starts a slice on this CPU
 * @ops:   this CPU
 * @t:     the thread's state
 * @tail:  records of the BTS region the consumer acknowledged
 * @tail2: the same for the PEBS region
 *
 * Coexistence with perf: perf owns IA32_DS_AREA whenever it has an event
 * (its per-CPU area in the cpu_entry_area).  This code never moves that
 * MSR away from perf's area: it saves the BTS (and PEBS) fields of
 * whatever area is installed, points them at the thread's regions for the
 * slice and puts them back at sched-out, as perf's own intel_bts does.
 * Only when the MSR is 0 (no perf user at all) does it install its own
 * area, and it writes 0 back at sched-out.  If BTS is already on in
 * DEBUGCTL, someone else (perf's BTS event, intel_bts) is using the
 * fields now: the slice is not recorded, which the region shows as a GAP
 * marker, rather than corrupt the other user's trace; so is a PEBS slice
 * on a CPU where any counter is enabled (perf's, the NMI watchdog's).
 * All of it is asked again at every sched-in, never remembered: perf may
 * have started or stopped using the DS area since the last slice.
 *
 * Return: 0; -EBUSY when the slice is skipped; -EIO when an MSR faulted.
 */
int ds_task_sched_in(const struct ds_ops *ops, struct ds_task *t, u64 tail,
		     u64 tail2)
{
	u64 ctl;

	if (ops->rdmsr(ops->ctx, DS_MSR_DEBUGCTL, &ctl))
		return -EIO;
	if ((ctl & (DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS)) ||
	    (t->has_pebs && ds_perf_busy(ops, DS_FEAT_PEBS))) {
		t->foreign++;
		t->gap = true;
		return -EBUSY;
	}
	t->area = ds_task_area(ops, t);
	if (!t->area)
		return -EIO;
	if (t->gap && ds_win_marker(&t->bts, tail, PTBTS_KIND_GAP,
				    PTBTS_GAP_UNKNOWN))
		t->gap = false;
	ds_area_get_bts(t->area, &t->saved);
	ds_area_get_pebs(t->area, &t->saved_pebs);
	t->saved_reset = t->area->pebs_reset[0];
	ds_task_arm(t, tail, tail2);
	if (t->has_pebs)
		ds_task_pebs_on(ops, t);
	/*
	 * The fields before @running: pairs with this CPU's NMI reading
	 * @running first in ds_task_pmi() and ds_task_pmi_pending().
	 */
	ds_compiler_barrier();
	t->running = true;
	/* WRMSR is serialising: the fields are in place before the first store. */
	ops->wrmsr(ops->ctx, DS_MSR_DEBUGCTL, ctl | t->ctl);
	return 0;
}

/**
 * ds_task_sched_out() - the thread's slice on this CPU ends
 * @ops:   this CPU
 * @t:     the thread's state
 * @tail:  records of the BTS region the consumer acknowledged
 * @tail2: the same for the PEBS region
 *
 * Turning BTS off in DEBUGCTL is a serialising WRMSR: every record the
 * slice produced is in memory when the index is read.
 *
 * perf may have installed its own DS area during the slice (an IPI when
 * its first event is created): IA32_DS_AREA is then perf's, and writing 0
 * or our area back would pull it from under perf's PEBS and BTS.  The MSR
 * is left as perf set it, and the records stored after the switch went
 * to perf's fields, not ours: the region owes a GAP marker.
 */
void ds_task_sched_out(const struct ds_ops *ops, struct ds_task *t,
		       u64 tail, u64 tail2)
{
	u64 ctl = 0, area = 0;

	if (!t->running)
		return;
	ops->rdmsr(ops->ctx, DS_MSR_DEBUGCTL, &ctl);
	ops->wrmsr(ops->ctx, DS_MSR_DEBUGCTL, ctl & ~DS_DEBUGCTL_BTS_MASK);
	t->pmi_owed = ds_task_fields_reached(t);
	/*
	 * From here on the fields stop being ours.  An NMI on this CPU
	 * (ds_task_pmi_pending()) must see both stores before the fields
	 * change: program order on one CPU, kept by the compiler barrier,
	 * which pairs with that NMI's reads of @pmi_owed and @running.
	 */
	t->running = false;
	ds_compiler_barrier();
	if (t->has_pebs)
		ds_task_pebs_off(ops, t);
	ds_task_collect(t, tail, tail2);
	ds_area_set_bts(t->area, &t->saved);
	ds_area_set_pebs(t->area, &t->saved_pebs);
	t->area->pebs_reset[0] = t->saved_reset;
	if (ops->rdmsr(ops->ctx, DS_MSR_DS_AREA, &area) ||
	    area != (u64)(unsigned long)t->area) {
		t->foreign++;
		t->gap = true;
	} else if (!t->saved_area) {
		ops->wrmsr(ops->ctx, DS_MSR_DS_AREA, 0);
	}
	t->area = NULL;
}

/**
 * ds_task_pmi_pending() - whether a PMI during a switch is this thread's
 * @t: the thread being switched in or out on this CPU
 *
 * A PMI raised just before sched-out turned BTS off may arrive while the
 * switch still runs, when ds_task_pmi() can no longer judge it.  It is
 * ours if the thread's fields had reached a threshold when BTS went off
 * (claimed once), or, in a slice, if they have now; any other NMI is left
 * to its owner.
 *
 * Return: true when the caller should claim the NMI.
 */
bool ds_task_pmi_pending(struct ds_task *t)
{
	if (t->pmi_owed) {
		t->pmi_owed = false;
		return true;
	}
	return t->running && t->area && ds_task_fields_reached(t);
}

/**
 * ds_task_pmi() - a PMI on this CPU while the thread may be running
 * @ops:   this CPU
 * @t:     the state of the thread current on this CPU
 * @tail:  records of the BTS region the consumer acknowledged
 * @tail2: the same for the PEBS region
 *
 * There is no status bit for the BTS threshold: the index having reached
 * the threshold is the only sign that the PMI is ours (perf decides the
 * same way).  BTS is off while the fields change, so that a kernel-mode
 * tracer does not record this handler into a window being moved.
 *
 * Return: DS_PMI_* bits; 0 when the PMI is not this thread's.
 */
int ds_task_pmi(const struct ds_ops *ops, struct ds_task *t, u64 tail,
		u64 tail2)
{
	struct ds_fields bts, pebs;
	bool b, p = false;
	u64 ctl = 0;
	int res;

	if (!t->running)
		return 0;
	ds_area_get_bts(t->area, &bts);
	b = ds_task_reached(&bts);
	if (t->has_pebs) {
		ds_area_get_pebs(t->area, &pebs);
		p = ds_task_reached(&pebs);
	}
	if (!b && !p)
		return 0;
	ops->rdmsr(ops->ctx, DS_MSR_DEBUGCTL, &ctl);
	ops->wrmsr(ops->ctx, DS_MSR_DEBUGCTL, ctl & ~DS_DEBUGCTL_BTS_MASK);
	ds_task_collect(t, tail, tail2);
	ds_task_arm(t, tail, tail2);
	if (p)
		ops->wrmsr(ops->ctx, DS_MSR_GLOBAL_OVF_CTRL,
			   DS_GLOBAL_STATUS_BUFFER);
	ops->wrmsr(ops->ctx, DS_MSR_DEBUGCTL, ctl);
	res = DS_PMI_OURS;
	if (ds_win_unread(&t->bts, tail) >= t->bts.cfg.wakeup ||
	    (t->has_pebs && ds_win_unread(&t->pebs, tail2) >= t->pebs.cfg.wakeup))
		res |= DS_PMI_WAKE;
	if (t->bts.blocked || (t->has_pebs && t->pebs.blocked))
		res |= DS_PMI_BLOCK;
	return res;
}
