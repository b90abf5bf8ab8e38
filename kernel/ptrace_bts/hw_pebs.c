// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the kmod-pebs source.  It is kmod-bts (hw_bts.c: the same
 * slices, PMI and BLOCK handling) with PEBS on as well: the first region
 * takes the thread's BTS records, the second the CPU's PEBS records of
 * one event (the config's; by default retired branches, every 1000), in
 * the CPU's own record format (IA32_PERF_CAPABILITIES.PEBS_FORMAT; the basic
 * group only for adaptive PEBS), which libbts/records/pebs.c decodes.
 *
 * The second region is a ring: the uapi has no ACK for it, so it never
 * blocks or stops; STATUS gives its position (head2, wraps2).
 *
 * As for kmod-bts, only the refusals run in QEMU (not an Intel CPU); the
 * PEBS window logic is arch/x86/ds's, tested against the simulated CPU
 * (tests/sim/test_sim_pebs.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <asm/perf_event.h>
#include <asm/nmi.h>

#include "hw.h"

/*
 * Counter 0 (PMC0, EVNTSEL0) is reserved through the kernel's reservation
 * of performance counters, which perf itself goes through
 * (x86_reserve_hardware() reserves every counter before its first
 * hardware event; so does the NMI watchdog, which is a perf event).  While
 * we hold it, perf can create no hardware event: it installs no DS area of
 * its own, its NMI handler has no active event and so never drains or
 * resets the PEBS index in our buffer, and nothing else programs the
 * counter we count on.  If perf holds the counters already, kmod-pebs is
 * refused (perf busy) instead of sharing them.  One reservation serves
 * every kmod-pebs attachment: it is a machine-wide bit, not a per-CPU one.
 */
static DEFINE_MUTEX(ptbts_pmc_lock);
static unsigned int ptbts_pmc_users;

static int ptbts_pmc_get(void)
{
	int err = 0;

	mutex_lock(&ptbts_pmc_lock);
	if (!ptbts_pmc_users) {
		if (!reserve_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0)) {
			err = -EBUSY;
		} else if (!reserve_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0)) {
			release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0);
			err = -EBUSY;
		}
	}
	if (!err)
		ptbts_pmc_users++;
	mutex_unlock(&ptbts_pmc_lock);
	return err;
}

static void ptbts_pmc_put(void)
{
	mutex_lock(&ptbts_pmc_lock);
	if (!--ptbts_pmc_users) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0);
	}
	mutex_unlock(&ptbts_pmc_lock);
}

/**
 * ptbts_pebs_setup() - the PEBS half of a thread's DS state
 * @ds:      the thread's DS state, its BTS region set up
 * @t:       the attachment, its second region pinned
 * @scratch: set to the region's scratch records, which the caller frees
 *
 * Return: 0; -EOPNOTSUPP when the PEBS format is not one decoded here;
 * -EINVAL for a region of fewer than 4 records; -ENOMEM.
 */
int ptbts_pebs_setup(struct ds_task *ds, struct ptbts_thread *t, u8 **scratch)
{
	u32 fmt = ptbts_hw_pebs_format();
	u32 size = ptbts_hw_pebs_record_size();
	struct ds_win_cfg cfg = { .mode = PTBTS_MODE_RING, .markers = false };
	u64 nslots;

	if (fmt == ~0U || !size)
		return -EOPNOTSUPP;
	nslots = (t->buf2->nr_pages << PAGE_SHIFT) / size;
	if (nslots < 4)
		return -EINVAL;
	cfg.margin = min_t(u64, DS_MARGIN_DEFAULT, (nslots - 2) / 2);
	*scratch = kcalloc(DS_SCRATCH_RECS(cfg.margin), size, GFP_KERNEL);
	if (!*scratch)
		return -ENOMEM;
	cfg.buf = t->buf2->vaddr;
	cfg.scratch = *scratch;
	cfg.rec_size = size;
	cfg.nslots = nslots;
	cfg.wakeup = nslots;
	if (ds_win_init(&ds->pebs, &cfg))
		return -EINVAL;
	ds->has_pebs = true;
	/* The event and period were checked with the config (config.c). */
	ds_task_pebs_event(ds, t->pebs_event, t->pebs_period, false);
	ds->pebs_adaptive = fmt >= 4;
	t->rec_size2 = size;
	/* Pairs with READ_ONCE(@nslots2) in ptbts_status_fill2(). */
	WRITE_ONCE(t->nslots2, nslots);
	return 0;
}

/*
 * The first region is BTS's: kmod-bts's reasons are kmod-pebs's too, the
 * machine's checked already by ptbts_source_get(), the caller's here.
 */
static int ptbts_pebs_start(struct ptbts_thread *t)
{
	u8 why = ptbts_hw_unavail(PTBTS_SOURCE_KMOD_BTS, true);

	int err;

	if (why != PTBTS_OK)
		return ptbts_hw_errno(why);
	if (!t->buf2)
		return -EINVAL;
	err = ptbts_pmc_get();
	if (err)
		return err;
	err = ptbts_hw_start(t);
	if (err)
		ptbts_pmc_put();
	return err;
}

/*
 * No slice can start once ptbts_hw_end() returns: counter 0 is free.  A
 * start that failed left nothing to end and holds no reservation.
 */
static void ptbts_pebs_stop(struct ptbts_thread *t)
{
	if (ptbts_hw_end(t))
		ptbts_pmc_put();
}

const struct ptbts_source_ops ptbts_pebs_ops = {
	.has_buffer2	= true,
	.start		= ptbts_pebs_start,
	.stop		= ptbts_pebs_stop,
};
