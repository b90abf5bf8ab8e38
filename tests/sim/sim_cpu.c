// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulated CPU of sim_cpu.h.
 */
#include <string.h>

#include "sim_cpu.h"

static const uint32_t sim_msr_nr[SIM_NR_MSR] = {
	[SIM_DEBUGCTL]		= DS_MSR_DEBUGCTL,
	[SIM_MISC_ENABLE]	= DS_MSR_MISC_ENABLE,
	[SIM_PERF_CAP]		= DS_MSR_PERF_CAP,
	[SIM_DS_AREA]		= DS_MSR_DS_AREA,
	[SIM_PEBS_ENABLE]	= DS_MSR_PEBS_ENABLE,
	[SIM_PEBS_DATA_CFG]	= DS_MSR_PEBS_DATA_CFG,
	[SIM_GLOBAL_STATUS]	= DS_MSR_GLOBAL_STATUS,
	[SIM_GLOBAL_CTRL]	= DS_MSR_GLOBAL_CTRL,
	[SIM_GLOBAL_OVF_CTRL]	= DS_MSR_GLOBAL_OVF_CTRL,
	[SIM_PMC0]		= DS_MSR_PMC0,
	[SIM_EVNTSEL0]		= DS_MSR_EVNTSEL0,
	[SIM_EVNTSEL1]		= DS_MSR_EVNTSEL0 + 1,
	[SIM_EVNTSEL2]		= DS_MSR_EVNTSEL0 + 2,
	[SIM_EVNTSEL3]		= DS_MSR_EVNTSEL0 + 3,
	[SIM_FIXED_CTR_CTRL]	= DS_MSR_FIXED_CTR_CTRL,
};

static int sim_msr_index(struct sim_cpu *cpu, uint32_t msr)
{
	int i;

	for (i = 0; i < SIM_NR_MSR; i++)
		if (sim_msr_nr[i] == msr && cpu->present[i])
			return i;
	cpu->gp_faults++;
	return -1;
}

static void sim_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	struct sim_cpu *cpu = ctx;

	(void)sub;
	if (leaf == 0)
		memcpy(r, cpu->cpuid0, sizeof(cpu->cpuid0));
	else if (leaf == 1 && cpu->cpuid0[0] >= 1)
		memcpy(r, cpu->cpuid1, sizeof(cpu->cpuid1));
	else if (leaf == 0xa && cpu->cpuid0[0] >= 0xa)
		memcpy(r, cpu->cpuida, sizeof(cpu->cpuida));
	else
		memset(r, 0, 4 * sizeof(r[0]));
}

static int sim_rdmsr(void *ctx, uint32_t msr, uint64_t *val)
{
	struct sim_cpu *cpu = ctx;
	int i;

	cpu->msr_reads++;
	i = sim_msr_index(cpu, msr);
	if (i < 0)
		return -1;
	*val = cpu->msr[i];
	return 0;
}

static int sim_wrmsr(void *ctx, uint32_t msr, uint64_t val)
{
	struct sim_cpu *cpu = ctx;
	int i = sim_msr_index(cpu, msr);

	if (i < 0)
		return -1;
	switch (i) {
	case SIM_MISC_ENABLE:
	case SIM_PERF_CAP:
		/* Read-only here: the bits the code looks at are. */
		cpu->gp_faults++;
		return -1;
	case SIM_GLOBAL_OVF_CTRL:
		cpu->msr[SIM_GLOBAL_STATUS] &= ~val;
		return 0;
	default:
		cpu->msr[i] = val;
		return 0;
	}
}

struct sim_model sim_model_full(void)
{
	return (struct sim_model){
		.intel = true, .family = 6, .model = 0x55, .ds = true,
		.dtes64 = true, .pdcm = true, .pebs_format = 3,
		.pmu_version = 4, .pmu_counters = 4,
	};
}

static uint32_t sim_eax1(uint32_t family, uint32_t model)
{
	uint32_t fam = family > 0xf ? 0xf : family;
	uint32_t ext = family > 0xf ? family - 0xf : 0;

	return (ext << 20) | ((model >> 4) << 16) | (fam << 8) |
	       ((model & 0xf) << 4);
}

void sim_cpu_init(struct sim_cpu *cpu, int id, const struct sim_model *m)
{
	uint32_t i;

	memset(cpu, 0, sizeof(*cpu));
	cpu->id = id;
	cpu->ops = (struct ds_ops){
		.ctx = cpu, .cpuid = sim_cpuid, .rdmsr = sim_rdmsr,
		.wrmsr = sim_wrmsr,
	};
	cpu->cpuid0[0] = 0xd;
	if (m->intel) {
		cpu->cpuid0[1] = 0x756e6547;	/* Genu */
		cpu->cpuid0[3] = 0x49656e69;	/* ineI */
		cpu->cpuid0[2] = 0x6c65746e;	/* ntel */
	} else {
		cpu->cpuid0[1] = 0x68747541;	/* Auth */
		cpu->cpuid0[3] = 0x69746e65;	/* enti */
		cpu->cpuid0[2] = 0x444d4163;	/* cAMD */
	}
	cpu->cpuid1[0] = sim_eax1(m->family, m->model);
	cpu->cpuid1[3] = m->ds ? DS_CPUID1_EDX_DS : 0;
	cpu->cpuid1[2] = (m->dtes64 ? DS_CPUID1_ECX_DTES64 : 0) |
			 (m->pdcm ? DS_CPUID1_ECX_PDCM : 0);
	cpu->present[SIM_DEBUGCTL] = true;
	/* An AMD CPU has neither MISC_ENABLE nor the DS MSRs. */
	cpu->present[SIM_MISC_ENABLE] = m->intel;
	cpu->present[SIM_PERF_CAP] = m->intel && m->pdcm;
	cpu->present[SIM_DS_AREA] = m->intel && m->ds;
	cpu->present[SIM_PEBS_ENABLE] = m->intel && m->ds && !m->pebs_unavail;
	cpu->present[SIM_PEBS_DATA_CFG] = cpu->present[SIM_PEBS_ENABLE] &&
					  m->baseline;
	cpu->cpuida[0] = m->pmu_version | (m->pmu_counters << 8);
	cpu->present[SIM_GLOBAL_STATUS] = m->intel && m->pmu_version >= 2;
	cpu->present[SIM_GLOBAL_CTRL] = cpu->present[SIM_GLOBAL_STATUS];
	cpu->present[SIM_GLOBAL_OVF_CTRL] = cpu->present[SIM_GLOBAL_STATUS];
	cpu->present[SIM_PMC0] = m->intel && m->pmu_version >= 1 &&
				 m->pmu_counters >= 1;
	cpu->present[SIM_EVNTSEL0] = cpu->present[SIM_PMC0];
	for (i = 1; i < 4; i++)
		cpu->present[SIM_EVNTSEL0 + i] = cpu->present[SIM_PMC0] &&
						 m->pmu_counters > i;
	cpu->present[SIM_FIXED_CTR_CTRL] = cpu->present[SIM_GLOBAL_STATUS];
	if (cpu->present[SIM_FIXED_CTR_CTRL])
		cpu->cpuida[3] = 3;
	cpu->msr[SIM_MISC_ENABLE] = (m->bts_unavail ? DS_MISC_BTS_UNAVAIL : 0) |
				    (m->pebs_unavail ? DS_MISC_PEBS_UNAVAIL : 0);
	cpu->msr[SIM_PERF_CAP] = ((uint64_t)m->pebs_format << 8) |
				 (m->baseline ? DS_PERF_CAP_BASELINE : 0);
}

static void sim_raise_pmi(struct sim_cpu *cpu)
{
	if (!cpu->nmi_in)
		cpu->nmi_in = cpu->latency + 1;
}

void sim_flush_nmi(struct sim_cpu *cpu)
{
	if (!cpu->nmi_in)
		return;
	cpu->nmi_in = 0;
	cpu->pmis++;
	if (cpu->nmi)
		cpu->nmi(cpu, cpu->nmi_arg);
}

static struct ds_area *sim_area(struct sim_cpu *cpu)
{
	return (struct ds_area *)(uintptr_t)cpu->msr[SIM_DS_AREA];
}

static bool sim_bts_filtered(uint64_t ctl, int cpl)
{
	return cpl == 0 ? !!(ctl & DS_DEBUGCTL_BTS_OFF_OS) :
			  !!(ctl & DS_DEBUGCTL_BTS_OFF_USR);
}

static void sim_bts_store(struct sim_cpu *cpu, uint64_t from, uint64_t to,
			  int cpl)
{
	uint64_t ctl = cpu->msr[SIM_DEBUGCTL];
	struct ds_area *ds = sim_area(cpu);
	uint64_t *rec;
	uint64_t old;

	if (!(ctl & DS_DEBUGCTL_TR) || !(ctl & DS_DEBUGCTL_BTS))
		return;
	if (sim_bts_filtered(ctl, cpl)) {
		cpu->filtered++;
		return;
	}
	if (!ds) {
		cpu->gp_faults++;	/* a store to linear address 0 */
		return;
	}
	old = ds->bts_index;
	if (!(ctl & DS_DEBUGCTL_BTINT) && ds->bts_threshold <= ds->bts_abs_max)
		cpu->undefined++;
	if (old + DS_BTS_RECORD > ds->bts_abs_max || old < ds->bts_base) {
		cpu->overruns++;
		return;
	}
	rec = (uint64_t *)(uintptr_t)old;
	rec[0] = from;
	rec[1] = to;
	rec[2] = 0;
	cpu->stored++;
	ds->bts_index = old + DS_BTS_RECORD;
	if (!(ctl & DS_DEBUGCTL_BTINT)) {
		if (ds->bts_index >= ds->bts_abs_max)
			ds->bts_index = ds->bts_base;
		return;
	}
	if (old < ds->bts_threshold && ds->bts_index >= ds->bts_threshold)
		sim_raise_pmi(cpu);
}

/* A PEBS record of the declared format; see sim_cpu.h. */
static void sim_pebs_record(struct sim_cpu *cpu, uint64_t *r, uint32_t size,
			    uint64_t from, uint64_t to)
{
	uint32_t fmt = DS_PERF_CAP_PEBS_FMT(cpu->msr[SIM_PERF_CAP]);
	int i;

	memset(r, 0, size);
	if (fmt >= 4) {
		r[0] = ((uint64_t)size << 48) | cpu->msr[SIM_PEBS_DATA_CFG];
		r[1] = from;
		r[2] = 1;		/* applicable counters: PMC0 */
		r[3] = cpu->cycles;	/* tsc */
		return;
	}
	r[0] = 0x246;			/* rflags */
	r[1] = to;			/* ip: after the event (trap-like) */
	for (i = 0; i < 16; i++)
		r[2 + i] = from + i;	/* ax..r15, recognisable */
	if (fmt >= 1) {
		r[18] = 1;		/* status: PMC0 */
		r[19] = 0;		/* data linear address */
		r[20] = 0;		/* data source */
		r[21] = 0;		/* latency */
	}
	if (fmt >= 2) {
		r[22] = from;		/* real ip: the eventing instruction */
		r[23] = 0;		/* TSX tuning */
	}
	if (fmt >= 3)
		r[24] = cpu->cycles;	/* tsc */
}

static void sim_pebs_event(struct sim_cpu *cpu, uint64_t from, uint64_t to,
			   int cpl)
{
	uint32_t fmt = DS_PERF_CAP_PEBS_FMT(cpu->msr[SIM_PERF_CAP]);
	uint32_t size = ds_pebs_record_size(fmt);
	struct ds_area *ds = sim_area(cpu);
	uint64_t old;

	if (!cpu->present[SIM_PEBS_ENABLE] || !(cpu->msr[SIM_PEBS_ENABLE] & 1) ||
	    !(cpu->msr[SIM_GLOBAL_CTRL] & 1) ||
	    !(cpu->msr[SIM_EVNTSEL0] & (1ULL << 22)))
		return;
	if (cpl != 0 && !(cpu->msr[SIM_EVNTSEL0] & (1ULL << 16)))
		return;
	if (cpl == 0 && !(cpu->msr[SIM_EVNTSEL0] & (1ULL << 17)))
		return;
	if (++cpu->msr[SIM_PMC0] != 0)
		return;
	if (!ds) {
		cpu->gp_faults++;
		return;
	}
	cpu->msr[SIM_PMC0] = ds->pebs_reset[0];
	old = ds->pebs_index;
	if (old + size > ds->pebs_abs_max || old < ds->pebs_base) {
		cpu->overruns++;
		return;
	}
	sim_pebs_record(cpu, (uint64_t *)(uintptr_t)old, size, from, to);
	cpu->pebs_stored++;
	ds->pebs_index = old + size;
	if (old < ds->pebs_threshold && ds->pebs_index >= ds->pebs_threshold) {
		cpu->msr[SIM_GLOBAL_STATUS] |= DS_GLOBAL_STATUS_BUFFER;
		sim_raise_pmi(cpu);
	}
}

void sim_branch(struct sim_cpu *cpu, uint64_t from, uint64_t to, int cpl)
{
	cpu->cycles++;
	sim_bts_store(cpu, from, to, cpl);
	sim_pebs_event(cpu, from, to, cpl);
	if (cpu->nmi_in && --cpu->nmi_in == 0) {
		cpu->nmi_in = 1;
		sim_flush_nmi(cpu);
	}
}
