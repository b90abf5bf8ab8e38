// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU detection and the refusal order of arch/x86/ds/ on simulated CPUs:
 * every reason is reachable, the first failing one is reported, and no MSR
 * that the CPU does not enumerate is touched.
 */
#include "harness.h"
#include "sim_cpu.h"

static struct ds_env env_ok(void)
{
	return (struct ds_env){ .pti = false, .privileged = true,
				.perf_busy = false };
}

static u8 refusal_of(const struct sim_model *m, const struct ds_env *env,
		     enum ds_feature feat, struct sim_cpu *cpu)
{
	struct ds_cpu dc;

	sim_cpu_init(cpu, 0, m);
	ds_detect(&cpu->ops, &dc);
	return ds_refusal(&dc, env, feat);
}

TEST(sim_detect, full_cpu_is_ok)
{
	struct sim_model m = sim_model_full();
	struct ds_env env = env_ok();
	struct sim_cpu cpu;
	struct ds_cpu dc;

	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu), PTBTS_OK);
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu), PTBTS_OK);
	ds_detect(&cpu.ops, &dc);
	EXPECT_TRUE(dc.intel);
	EXPECT_EQ(dc.family, 6u);
	EXPECT_EQ(dc.model, 0x55u);
	EXPECT_EQ(dc.pebs_format, 3u);
	EXPECT_EQ(dc.msr_faults, 0u);
	EXPECT_EQ(cpu.gp_faults, 0u);
}

/* An AMD CPU (the QEMU guest's qemu64, this machine): no MSR is read. */
TEST(sim_detect, amd_reads_no_msr)
{
	struct sim_model m = sim_model_full();
	struct ds_env env = env_ok();
	struct sim_cpu cpu;

	m.intel = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_NOT_INTEL);
	EXPECT_EQ(cpu.msr_reads, 0u);
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_NOT_INTEL);
	EXPECT_EQ(cpu.msr_reads, 0u);
	EXPECT_EQ(cpu.gp_faults, 0u);
}

/* Intel without DS (an Intel model in a VM): MISC_ENABLE is not read. */
TEST(sim_detect, intel_without_ds_reads_no_msr)
{
	struct sim_model m = sim_model_full();
	struct ds_env env = env_ok();
	struct sim_cpu cpu;

	m.ds = false;
	m.pdcm = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_NO_DS);
	EXPECT_EQ(cpu.msr_reads, 0u);
	EXPECT_EQ(cpu.gp_faults, 0u);
	m = sim_model_full();
	m.dtes64 = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_NO_DS);
}

/*
 * Each step fixes the reason reported before and reveals the next one:
 * the order is NOT_INTEL, NO_DS, BTS_OFF, ERRATUM, PTI, NO_CAP, PERF_BUSY.
 */
TEST(sim_detect, bts_reasons_in_order)
{
	struct sim_model m = sim_model_full();
	struct ds_env env = { .pti = true, .privileged = false,
			      .perf_busy = true };
	struct sim_cpu cpu;

	m.intel = false;
	m.ds = false;
	m.bts_unavail = true;
	m.model = 0x2a;		/* Sandy Bridge: erratum AAJ122 */
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_NOT_INTEL);
	m.intel = true;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_NO_DS);
	m.ds = true;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_BTS_OFF);
	m.bts_unavail = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_ERRATUM);
	m.model = 0x3c;		/* Haswell */
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_PTI);
	env.pti = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_NO_CAP);
	env.privileged = true;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
		  PTBTS_UNAVAIL_PERF_BUSY);
	env.perf_busy = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu), PTBTS_OK);
	EXPECT_EQ(cpu.gp_faults, 0u);
}

TEST(sim_detect, pebs_reasons_in_order)
{
	struct sim_model m = sim_model_full();
	struct ds_env env = { .pti = true, .privileged = false,
			      .perf_busy = true };
	struct sim_cpu cpu;

	m.pebs_unavail = true;
	m.pebs_format = 9;
	m.model = 0x2a;		/* the BTS erratum does not concern PEBS */
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_PEBS_OFF);
	m.pebs_unavail = false;
	m.pmu_version = 1;	/* no GLOBAL_CTRL */
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_NO_PMU);
	EXPECT_EQ(cpu.gp_faults, 0u);
	m.pmu_version = 2;
	m.pmu_counters = 0;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_NO_PMU);
	m.pmu_counters = 1;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_PEBS_FMT);
	m.pebs_format = 4;	/* adaptive without the baseline bit */
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_PEBS_FMT);
	m.baseline = true;
	env.locked_down = true;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_PTI);
	env.pti = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_LOCKDOWN);
	env.locked_down = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_NO_CAP);
	env.privileged = true;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu),
		  PTBTS_UNAVAIL_PERF_BUSY);
	env.perf_busy = false;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_PEBS, &cpu), PTBTS_OK);
}

/* Every model on gdb's AAJ122 list is refused for BTS, and no other. */
TEST(sim_detect, erratum_models)
{
	static const uint32_t bad[] = { 0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c,
					0x2f, 0x2a, 0x2d, 0x3a };
	struct sim_model m = sim_model_full();
	struct ds_env env = env_ok();
	struct sim_cpu cpu;
	uint32_t model, nbad = 0;
	size_t i;

	for (model = 0; model < 0x100; model++) {
		bool listed = false;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			listed |= bad[i] == model;
		m.model = model;
		EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu),
			  listed ? PTBTS_UNAVAIL_ERRATUM : PTBTS_OK);
		nbad += listed;
	}
	EXPECT_EQ(nbad, 10u);
	/* Family 15 (NetBurst) model 0x1a is not Nehalem. */
	m.family = 15;
	m.model = 0x1a;
	EXPECT_EQ(refusal_of(&m, &env, DS_FEAT_BTS, &cpu), PTBTS_OK);
}

TEST(sim_detect, pebs_record_sizes)
{
	EXPECT_EQ(ds_pebs_record_size(0), 144u);
	EXPECT_EQ(ds_pebs_record_size(1), 176u);
	EXPECT_EQ(ds_pebs_record_size(2), 192u);
	EXPECT_EQ(ds_pebs_record_size(3), 200u);
	EXPECT_EQ(ds_pebs_record_size(4), 32u);
	EXPECT_EQ(ds_pebs_record_size(5), 32u);
	EXPECT_EQ(ds_pebs_record_size(6), 0u);
}

/* PERF_BUSY from the CPU's own registers, as the module reads them. */
TEST(sim_detect, perf_busy_from_the_registers)
{
	struct sim_model m = sim_model_full();
	struct ds_env env = env_ok();
	struct sim_cpu cpu;
	struct ds_cpu dc;

	sim_cpu_init(&cpu, 0, &m);
	ds_detect(&cpu.ops, &dc);
	EXPECT_FALSE(ds_perf_busy(&cpu.ops, DS_FEAT_BTS));
	EXPECT_FALSE(ds_perf_busy(&cpu.ops, DS_FEAT_PEBS));
	/*
	 * What Linux's perf leaves once its last event is gone: every
	 * counter's bit in GLOBAL_CTRL, none enabled by its own control.
	 */
	cpu.msr[SIM_GLOBAL_CTRL] = 0x70000000fULL;
	EXPECT_FALSE(ds_perf_busy(&cpu.ops, DS_FEAT_PEBS));
	/* A general counter that counts. */
	cpu.msr[SIM_EVNTSEL2] = DS_EVTSEL_EN | 0xc4;
	EXPECT_TRUE(ds_perf_busy(&cpu.ops, DS_FEAT_PEBS));
	cpu.msr[SIM_EVNTSEL2] = 0;
	/* perf's NMI watchdog: fixed counter 1 counts, BTS still free. */
	cpu.msr[SIM_GLOBAL_CTRL] = 1ULL << 33;
	cpu.msr[SIM_FIXED_CTR_CTRL] = 0xbULL << 4;
	EXPECT_FALSE(ds_perf_busy(&cpu.ops, DS_FEAT_BTS));
	env.perf_busy = ds_perf_busy(&cpu.ops, DS_FEAT_PEBS);
	EXPECT_EQ(ds_refusal(&dc, &env, DS_FEAT_PEBS), PTBTS_UNAVAIL_PERF_BUSY);
	cpu.msr[SIM_GLOBAL_CTRL] = 0;
	cpu.msr[SIM_PEBS_ENABLE] = 1;
	EXPECT_TRUE(ds_perf_busy(&cpu.ops, DS_FEAT_PEBS));
	/* perf's BTS event: TR and BTS on in DEBUGCTL. */
	cpu.msr[SIM_DEBUGCTL] = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
	env.perf_busy = ds_perf_busy(&cpu.ops, DS_FEAT_BTS);
	EXPECT_EQ(ds_refusal(&dc, &env, DS_FEAT_BTS), PTBTS_UNAVAIL_PERF_BUSY);
	EXPECT_EQ(cpu.gp_faults, 0u);
}
