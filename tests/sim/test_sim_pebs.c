// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PEBS through arch/x86/ds/ on the simulated CPU, in every record format
 * it declares, decoded by libbts: each record is the branch that made the
 * counter overflow, in order, with the fields its format carries.
 */
#include "bts.h"
#include "harness.h"
#include "sim_trace.h"

#define RESET 7

static void pebs_run(uint32_t format, unsigned latency)
{
	struct sim_model m = sim_model_full();
	struct bts_pebs p;
	struct sim_trace tr;
	uint64_t i, n, nrec = 40;
	size_t size;

	m.pebs_format = format;
	m.baseline = format >= 4;
	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, latency, &m);
	sim_trace_pebs(&tr, nrec, RESET);
	size = tr.task.pebs.cfg.rec_size;
	EXPECT_EQ(size, bts_pebs_record_size(format));
	sim_trace_in(&tr, 0);
	sim_trace_run(&tr, 1000, 33, true);
	sim_trace_out(&tr);
	/* Every RESET-th user branch overflows the counter. */
	n = 1000 / RESET;
	EXPECT_EQ(tr.task.pebs.count, n);
	EXPECT_EQ(tr.cpus[0].pebs_stored + tr.cpus[1].pebs_stored, n);
	EXPECT_EQ(tr.task.pebs.lost, 0u);
	for (i = n - nrec; i < n; i++) {
		const uint8_t *rec = tr.pebs_buf + (i % nrec) * size;
		uint64_t from = sim_from((i + 1) * RESET - 1);

		ASSERT_EQ(bts_pebs_decode(format, rec, size, &p, sizeof(p)), (int)size);
		EXPECT_EQ(p.ip, format < 2 ? from + 8 : from);
		EXPECT_EQ(p.ip_exact, format >= 2);
		EXPECT_EQ(p.applicable, format >= 1 ? 1u : 0u);
		EXPECT_EQ(p.has_regs, format < 4);
		if (format < 4)
			EXPECT_EQ(p.regs[0], from);	/* rax, as the sim wrote */
		if (format >= 3)
			EXPECT_NE(p.tsc, 0u);
	}
	/* The DS area's PEBS fields and counter 0 were handed back. */
	EXPECT_EQ(tr.cpus[0].msr[SIM_PEBS_ENABLE], 0u);
	EXPECT_EQ(tr.cpus[1].msr[SIM_PEBS_ENABLE], 0u);
	EXPECT_EQ(tr.own_area->pebs_base, 0u);
	EXPECT_EQ(tr.cpus[0].overruns + tr.cpus[1].overruns, 0u);
	EXPECT_EQ(tr.cpus[0].gp_faults + tr.cpus[1].gp_faults, 0u);
	sim_trace_free(&tr);
}

TEST(sim_pebs, every_format_decodes)
{
	uint32_t format;

	for (format = 0; format <= 5; format++) {
		pebs_run(format, 0);
		pebs_run(format, 3);
	}
}

/* A counter already enabled on the CPU (perf's): the slice is skipped. */
TEST(sim_pebs, busy_pmu_skips_the_slice)
{
	struct sim_model m = sim_model_full();
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 0, &m);
	sim_trace_pebs(&tr, 40, RESET);
	tr.cpus[1].msr[SIM_GLOBAL_CTRL] = 1ULL << 33;	/* a fixed counter */
	tr.cpus[1].msr[SIM_FIXED_CTR_CTRL] = 3ULL << 4;
	sim_trace_in(&tr, 1);
	EXPECT_FALSE(tr.task.running);
	EXPECT_EQ(tr.task.foreign, 1u);
	EXPECT_EQ(tr.cpus[1].msr[SIM_PEBS_ENABLE], 0u);
	EXPECT_EQ(tr.cpus[1].msr[SIM_GLOBAL_CTRL], 1ULL << 33);
	tr.cpu = -1;
	sim_trace_in(&tr, 0);
	EXPECT_TRUE(tr.task.running);
	sim_trace_run(&tr, 70, 0, false);
	sim_trace_out(&tr);
	EXPECT_EQ(tr.task.pebs.count, 10u);
	EXPECT_EQ(tr.cpus[0].msr[SIM_GLOBAL_CTRL], 0u);
	sim_trace_free(&tr);
}
