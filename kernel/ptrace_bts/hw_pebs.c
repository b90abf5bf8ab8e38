// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the kmod-pebs source.  It is kmod-bts (hw_bts.c: the same
 * slices, PMI and BLOCK handling) with PEBS on as well: the first region
 * takes the thread's BTS records, the second the CPU's PEBS records of
 * one event (the config's; by default retired branches, every 1000), in
 * the CPU's own record format (IA32_PERF_CAPABILITIES.PEBS_FORMAT; the basic
 * group only for adaptive PEBS), which libbts/pebs.c decodes.
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
#include <linux/slab.h>

#include "hw.h"

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

	if (why != PTBTS_OK)
		return why == PTBTS_UNAVAIL_NO_CAP ? -EPERM : -EOPNOTSUPP;
	if (!t->buf2)
		return -EINVAL;
	return ptbts_hw_start(t);
}

const struct ptbts_source_ops ptbts_pebs_ops = {
	.has_buffer2	= true,
	.start		= ptbts_pebs_start,
	.stop		= ptbts_hw_stop,
};
