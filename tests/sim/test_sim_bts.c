// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arch/x86/ds/ driving the simulated CPU: BTS into the tracer's region in
 * the three modes, across context switches and migrations, with the PMI
 * arriving late by up to the margin.
 */
#include <errno.h>

#include "harness.h"
#include "sim_trace.h"

/* Nothing the SDM leaves undefined happened, no MSR faulted. */
static void expect_clean_cpus(const struct sim_trace *tr)
{
	int i;

	for (i = 0; i < SIM_NCPU; i++) {
		EXPECT_EQ(tr->cpus[i].overruns, 0u);
		EXPECT_EQ(tr->cpus[i].undefined, 0u);
		EXPECT_EQ(tr->cpus[i].gp_faults, 0u);
	}
}

static uint64_t stored(const struct sim_trace *tr)
{
	return tr->cpus[0].stored + tr->cpus[1].stored;
}

static uint64_t filtered(const struct sim_trace *tr)
{
	return tr->cpus[0].filtered + tr->cpus[1].filtered;
}

/* BLOCK: every record the CPU stored is read once, in order; none lost. */
static void block_run(uint64_t nslots, uint64_t wakeup, uint64_t margin,
		      unsigned latency, uint64_t slice, unsigned ack_div)
{
	struct sim_trace tr;

	sim_trace_init(&tr, nslots, PTBTS_MODE_BLOCK, wakeup, margin, latency,
		       NULL);
	tr.ack_div = ack_div;
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 5000, slice, true);
	sim_trace_out(&tr);
	sim_trace_consume(&tr);
	EXPECT_EQ(tr.bad, 0u);
	EXPECT_EQ(tr.expect, 5000u);
	EXPECT_EQ(tr.task.bts.count, 5000u);
	EXPECT_EQ(tr.task.bts.lost, 0u);
	EXPECT_EQ(tr.task.bts.pending, 0u);
	EXPECT_EQ(stored(&tr), 5000u);
	EXPECT_EQ(filtered(&tr), tr.kernel);
	/* A PMI late enough to arrive after sched-out is nobody's. */
	if (latency == 0)
		EXPECT_EQ(tr.stray, 0u);
	EXPECT_TRUE(tr.wakes > 0);
	expect_clean_cpus(&tr);
	sim_trace_free(&tr);
}

TEST(sim_bts, block_every_record_once_in_order)
{
	unsigned latency;

	for (latency = 0; latency <= 4; latency++)
		block_run(64, 16, 4, latency, 37, 1);
}

TEST(sim_bts, block_partial_acks_and_long_slices)
{
	block_run(64, 48, 4, 4, 1000, 3);
	block_run(40, 40, 8, 8, 0, 2);
}

TEST(sim_bts, block_waits_when_full)
{
	struct sim_trace tr;

	/* The consumer reads only when the thread blocks. */
	sim_trace_init(&tr, 50, PTBTS_MODE_BLOCK, 50, 5, 3, NULL);
	tr.ack_div = 0;
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 1000, 0, false);
	sim_trace_out(&tr);
	sim_trace_consume(&tr);
	EXPECT_EQ(tr.bad, 0u);
	EXPECT_EQ(tr.expect, 1000u);
	EXPECT_EQ(tr.task.bts.lost, 0u);
	EXPECT_EQ(tr.blocks, 19u);
	expect_clean_cpus(&tr);
	sim_trace_free(&tr);
}

static void user_branch(struct sim_trace *tr)
{
	sim_branch(&tr->cpus[tr->cpu], sim_from(tr->next),
		   sim_from(tr->next) + 8, 3);
	tr->next++;
}

/*
 * BLOCK: a thread whose wait for room ends without room (a signal, a
 * ptrace stop; or a switch took in the records its PMI was late for)
 * goes back to user mode with records held back and no wait queued.  Its
 * next record must bring the PMI that makes it wait, before the scratch
 * area fills: it loses nothing, however long the tracer takes.
 */
TEST(sim_bts, block_back_in_user_mode_without_room_loses_nothing)
{
	struct sim_trace tr;
	unsigned latency, ran;

	for (latency = 0; latency <= 5; latency++) {
		sim_trace_init(&tr, 50, PTBTS_MODE_BLOCK, 50, 5, latency,
			       NULL);
		tr.ack_div = 0;
		sim_trace_in(&tr, 0);
		while (!tr.must_block)
			user_branch(&tr);
		EXPECT_TRUE(tr.task.bts.blocked);
		/* The wait ends at once, no ACK: back to user mode. */
		sim_trace_out(&tr);
		sim_trace_in(&tr, 0);
		tr.must_block = false;
		for (ran = 0; !tr.must_block && ran < 100; ran++)
			user_branch(&tr);
		EXPECT_EQ(ran, 1u + latency);
		EXPECT_EQ(tr.task.bts.lost, 0u);
		sim_trace_run(&tr, 500, 0, false);
		sim_trace_out(&tr);
		sim_trace_consume(&tr);
		EXPECT_EQ(tr.bad, 0u);
		EXPECT_EQ(tr.expect, tr.next);
		EXPECT_EQ(tr.task.bts.lost, 0u);
		EXPECT_EQ(tr.task.bts.pending, 0u);
		expect_clean_cpus(&tr);
		sim_trace_free(&tr);
	}
}

/* BLOCK, back in user mode without room: records held in scratch. */
static uint64_t block_hold(struct sim_trace *tr)
{
	sim_trace_init(tr, 50, PTBTS_MODE_BLOCK, 50, 5, 2, NULL);
	tr->ack_div = 0;
	sim_trace_in(tr, 0);
	while (!tr->must_block)
		user_branch(tr);
	sim_trace_out(tr);
	sim_trace_in(tr, 0);
	user_branch(tr);
	user_branch(tr);
	sim_trace_out(tr);
	return tr->task.bts.pending;
}

/*
 * The end of a BLOCK stream (the link or the thread ends) while records
 * are held: what the consumer made room for goes in, in order; what it
 * did not is counted as lost, never dropped unseen.
 */
TEST(sim_bts, block_end_puts_or_counts_held_records)
{
	struct sim_trace tr;
	uint64_t held, lost;

	held = block_hold(&tr);
	ASSERT_GT(held, 0u);
	lost = tr.task.bts.lost;
	ds_win_end(&tr.task.bts, tr.tail);
	EXPECT_EQ(tr.task.bts.pending, 0u);
	EXPECT_EQ(tr.task.bts.lost, lost + held);
	sim_trace_free(&tr);

	held = block_hold(&tr);
	ASSERT_GT(held, 0u);
	sim_trace_consume(&tr);
	ds_win_end(&tr.task.bts, tr.tail);
	EXPECT_EQ(tr.task.bts.pending, 0u);
	EXPECT_EQ(tr.task.bts.lost, 0u);
	sim_trace_consume(&tr);
	EXPECT_EQ(tr.bad, 0u);
	EXPECT_EQ(tr.expect, tr.next);
	sim_trace_free(&tr);
}

/* RING: the region holds the newest records; laps are counted exactly. */
TEST(sim_bts, ring_keeps_newest)
{
	const struct ptbts_record *r;
	struct sim_trace tr;
	unsigned latency;
	uint64_t i;

	for (latency = 0; latency <= 6; latency += 3) {
		sim_trace_init(&tr, 100, PTBTS_MODE_RING, 100, 6, latency,
			       NULL);
		sim_trace_in(&tr, 0);
		sim_trace_run(&tr, 1234, 91, true);
		sim_trace_out(&tr);
		EXPECT_EQ(tr.task.bts.count, 1234u);
		EXPECT_EQ(tr.task.bts.count / 100, 12u);	/* wraps */
		EXPECT_EQ(tr.task.bts.count % 100, 34u);	/* head slot */
		EXPECT_EQ(tr.task.bts.lost, 0u);
		r = (const void *)tr.buf;
		for (i = 1234 - 100; i < 1234; i++)
			EXPECT_EQ(r[i % 100].from, sim_from(i));
		sim_trace_consume(&tr);
		EXPECT_EQ(tr.bad, 0u);
		EXPECT_EQ(tr.expect, 1234u);
		expect_clean_cpus(&tr);
		sim_trace_free(&tr);
	}
}

/* STOP: what fits is kept in order; every loss is counted and marked. */
TEST(sim_bts, stop_counts_lost_exactly)
{
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_STOP, 64, 4, 4, NULL);
	tr.ack_div = 0;		/* nobody reads until the end... */
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 500, 50, true);
	/* ...then the consumer frees everything, and recording resumes. */
	sim_trace_consume(&tr);
	sim_trace_run(&tr, 500, 50, true);
	sim_trace_out(&tr);
	sim_trace_consume(&tr);
	EXPECT_EQ(tr.bad, 0u);
	EXPECT_EQ(stored(&tr), 1000u);
	EXPECT_EQ(tr.task.bts.lost, tr.marked_lost + tr.task.bts.lost_run);
	EXPECT_EQ(tr.expect + tr.task.bts.lost_run, 1000u);
	/* 64 slots: 64 kept, then a LOST marker and 63 more, the rest lost. */
	EXPECT_EQ(tr.task.bts.count, 128u);
	EXPECT_EQ(tr.task.bts.lost, 1000u - 127u);
	expect_clean_cpus(&tr);
	sim_trace_free(&tr);
}

/* perf's DS area keeps its BTS fields; a DS_AREA of 0 is given back. */
TEST(sim_bts, ds_area_restored)
{
	struct ds_area perf_area = {
		.bts_base = 0x1000, .bts_index = 0x1018, .bts_abs_max = 0x2000,
		.bts_threshold = 0x1800, .pebs_base = 0x3000,
	};
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 0, NULL);
	tr.cpus[1].msr[SIM_DS_AREA] = (uintptr_t)&perf_area;
	sim_trace_in(&tr, 0);
	EXPECT_EQ(tr.cpus[0].msr[SIM_DS_AREA], (uint64_t)(uintptr_t)tr.own_area);
	sim_trace_run(&tr, 300, 20, true);
	sim_trace_out(&tr);
	EXPECT_EQ(tr.cpus[0].msr[SIM_DS_AREA], 0u);
	EXPECT_EQ(tr.cpus[1].msr[SIM_DS_AREA], (uint64_t)(uintptr_t)&perf_area);
	EXPECT_EQ(perf_area.bts_base, 0x1000u);
	EXPECT_EQ(perf_area.bts_index, 0x1018u);
	EXPECT_EQ(perf_area.bts_abs_max, 0x2000u);
	EXPECT_EQ(perf_area.bts_threshold, 0x1800u);
	EXPECT_EQ(perf_area.pebs_base, 0x3000u);
	EXPECT_EQ(tr.cpus[0].msr[SIM_DEBUGCTL], 0u);
	EXPECT_EQ(tr.cpus[1].msr[SIM_DEBUGCTL], 0u);
	EXPECT_EQ(tr.task.bts.count, 300u);
	expect_clean_cpus(&tr);
	sim_trace_free(&tr);
}

/* Someone else's BTS is on: the slice is skipped and marked as a gap. */
TEST(sim_bts, foreign_bts_skips_slice_with_gap)
{
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_BLOCK, 16, 4, 0, NULL);
	tr.cpus[1].msr[SIM_DEBUGCTL] = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
	sim_trace_in(&tr, 1);
	EXPECT_FALSE(tr.task.running);
	EXPECT_EQ(tr.task.foreign, 1u);
	tr.cpus[1].msr[SIM_DEBUGCTL] = 0;
	tr.cpu = -1;
	tr.next = 10;		/* branches 0-9 ran unrecorded */
	tr.expect = 10;
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 100, 0, false);
	sim_trace_out(&tr);
	sim_trace_consume(&tr);
	EXPECT_EQ(tr.gaps, 1u);
	EXPECT_EQ(tr.bad, 0u);
	EXPECT_EQ(tr.expect, 110u);
	sim_trace_free(&tr);
}

/*
 * perf installs its DS area on the CPU in the middle of the thread's slice
 * (an IPI when its first event is created): sched-out leaves the MSR as
 * perf set it (it used to write 0 back, pulling the area from under perf)
 * and owes a GAP marker for what went to perf's fields meanwhile.
 */
TEST(sim_bts, perf_area_installed_mid_slice_is_kept)
{
	struct ds_area perf_area = { .bts_base = 0x1000 };
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 0, NULL);
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 10, 0, false);
	tr.cpus[0].msr[SIM_DS_AREA] = (uintptr_t)&perf_area;
	sim_trace_out(&tr);
	EXPECT_EQ(tr.cpus[0].msr[SIM_DS_AREA],
		  (uint64_t)(uintptr_t)&perf_area);
	EXPECT_EQ(perf_area.bts_base, 0x1000u);
	EXPECT_TRUE(tr.task.gap);
	EXPECT_EQ(tr.task.foreign, 1u);
	EXPECT_EQ(tr.task.bts.count, 10u);
	/* The next slice uses perf's area, and says where the gap was. */
	sim_trace_in(&tr, 0);
	EXPECT_TRUE(tr.task.running);
	EXPECT_FALSE(tr.task.gap);
	sim_trace_out(&tr);
	EXPECT_EQ(perf_area.bts_base, 0x1000u);
	expect_clean_cpus(&tr);
	sim_trace_free(&tr);
}

/*
 * A PMI that arrives while the thread is switched: it is claimed only if
 * the thread's own threshold was reached when BTS went off, and only once;
 * any other NMI (perf's, the watchdog's) is left to its owner.
 */
TEST(sim_bts, switch_claims_only_its_own_pmi)
{
	struct sim_trace tr;
	struct ds_fields f;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 0, NULL);
	EXPECT_FALSE(ds_task_pmi_pending(&tr.task));
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 3, 0, false);
	/* In a slice, below the threshold: not ours. */
	EXPECT_FALSE(ds_task_pmi_pending(&tr.task));
	sim_trace_out(&tr);
	EXPECT_FALSE(ds_task_pmi_pending(&tr.task));
	/* The threshold reached just before sched-out: the PMI is owed. */
	sim_trace_in(&tr, 0);
	ds_area_get_bts(tr.task.area, &f);
	tr.task.area->bts_index = f.threshold;
	EXPECT_TRUE(ds_task_pmi_pending(&tr.task));
	sim_trace_out(&tr);
	EXPECT_TRUE(ds_task_pmi_pending(&tr.task));
	EXPECT_FALSE(ds_task_pmi_pending(&tr.task));
	sim_trace_free(&tr);
}

/* After sched-out, another thread on the CPU (a fork child) records nothing. */
TEST(sim_bts, next_thread_inherits_nothing)
{
	struct sim_trace tr;
	int i;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 0, NULL);
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 10, 0, false);
	sim_trace_out(&tr);
	for (i = 0; i < 100; i++)
		sim_branch(&tr.cpus[0], 0x500000 + i * 16, 0x500008, 3);
	EXPECT_EQ(tr.cpus[0].stored, 10u);
	EXPECT_EQ(tr.cpus[0].msr[SIM_DEBUGCTL] & DS_DEBUGCTL_BTS_MASK, 0u);
	EXPECT_EQ(tr.task.bts.count, 10u);
	sim_trace_free(&tr);
}

/* Circular fields: BTINT clear, threshold past the end: no PMI, wraps. */
TEST(sim_bts, circular_fields_wrap_without_pmi)
{
	struct sim_cpu cpu;
	struct sim_model m = sim_model_full();
	struct ds_area area = { 0 };
	uint64_t recs[10 * 3];
	struct ds_fields f;
	int i;

	sim_cpu_init(&cpu, 0, &m);
	ds_fields_circular(&f, (uintptr_t)recs, 10, DS_BTS_RECORD);
	EXPECT_EQ(f.abs_max - f.base, 240u);
	EXPECT_EQ(f.threshold, f.abs_max + 24);
	ds_area_set_bts(&area, &f);
	cpu.msr[SIM_DS_AREA] = (uintptr_t)&area;
	cpu.msr[SIM_DEBUGCTL] = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS |
				DS_DEBUGCTL_BTS_OFF_OS;
	for (i = 0; i < 25; i++)
		sim_branch(&cpu, 0x1000 + i, 0x2000, 3);
	EXPECT_EQ(cpu.pmis, 0u);
	EXPECT_EQ(cpu.undefined, 0u);
	EXPECT_EQ(area.bts_index, f.base + 5 * 24);
	EXPECT_EQ(recs[4 * 3], 0x1000u + 24);
	EXPECT_EQ(recs[5 * 3], 0x1000u + 15);
}

/* The window refuses a region too small for its margin. */
TEST(sim_bts, region_too_small_for_margin)
{
	uint8_t buf[24 * 9], scratch[24 * 20];
	struct ds_win w;
	struct ds_win_cfg cfg = {
		.buf = buf, .scratch = scratch, .rec_size = 24, .nslots = 9,
		.mode = PTBTS_MODE_RING, .wakeup = 1, .margin = 4,
	};

	EXPECT_EQ(ds_win_init(&w, &cfg), -EINVAL);
	cfg.nslots = 10;
	EXPECT_EQ(ds_win_init(&w, &cfg), 0);
}

/* BTS_OFF_USR with kernel tracing (per-CPU mode): only CPL 0 is stored. */
TEST(sim_bts, debugctl_cpl_filters)
{
	EXPECT_EQ(ds_debugctl_bts(true, false),
		  DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS | DS_DEBUGCTL_BTINT |
		  DS_DEBUGCTL_BTS_OFF_OS);
	EXPECT_EQ(ds_debugctl_bts(false, true),
		  DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS | DS_DEBUGCTL_BTINT |
		  DS_DEBUGCTL_BTS_OFF_USR);
	EXPECT_EQ(ds_debugctl_bts(true, true),
		  DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS | DS_DEBUGCTL_BTINT);
}

/*
 * The simulator catches a PMI later than the margin: the hardware reaches
 * the absolute maximum with BTINT set, which the SDM leaves undefined and
 * the clean runs above never do.
 */
TEST(sim_bts, latency_beyond_margin_is_caught)
{
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 12, NULL);
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 500, 0, false);
	sim_trace_out(&tr);
	EXPECT_GT(tr.cpus[0].overruns, 0u);
	EXPECT_EQ(tr.cpus[0].undefined, 0u);
	/* What the CPU did store is still counted exactly. */
	EXPECT_EQ(tr.task.bts.count, tr.cpus[0].stored);
	sim_trace_free(&tr);
}

/* With a prompt PMI, the consumer is woken at exactly its threshold. */
TEST(sim_bts, wakeup_at_the_threshold)
{
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_BLOCK, 16, 4, 0, NULL);
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 1600, 0, false);
	sim_trace_out(&tr);
	EXPECT_EQ(tr.wakes, 100u);
	EXPECT_EQ(tr.wake_min, 16u);
	EXPECT_EQ(tr.wake_max, 16u);
	EXPECT_EQ(tr.blocks, 0u);
	sim_trace_consume(&tr);
	EXPECT_EQ(tr.bad, 0u);
	EXPECT_EQ(tr.expect, 1600u);
	sim_trace_free(&tr);
}
