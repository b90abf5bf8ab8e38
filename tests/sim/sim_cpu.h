/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A simulated x86 CPU with the DS mechanism (BTS and PEBS), by the SDM's
 * rules, for arch/x86/ds/ in user space.
 *
 * BTS: a taken branch whose CPL is not filtered (BTS_OFF_OS, BTS_OFF_USR)
 * is stored at the DS area's index when TR and BTS are set; the index
 * advances by 24.  With BTINT set, reaching the threshold raises a PMI,
 * delivered after @latency further branches (an NMI is not instant); with
 * BTINT clear and the threshold beyond the absolute maximum, the index wraps
 * to the base at the absolute maximum.  What the SDM leaves undefined (a
 * store at the absolute maximum with BTINT set, BTINT clear with a
 * threshold inside the buffer) is not guessed at: it is counted in
 * @overruns and @undefined, which tests require to stay 0.
 *
 * PEBS: with PEBS_ENABLE bit 0, GLOBAL_CTRL bit 0 and EVNTSEL0's enable bit,
 * every user branch counts on PMC0; when it overflows a record of the
 * format PERF_CAPABILITIES declares is stored at the PEBS index, PMC0
 * reloads from the area's reset value 0, and reaching the PEBS threshold
 * sets GLOBAL_STATUS bit 62 and raises a PMI.
 *
 * The architectural PMU (CPUID leaf 0xA) decides which counter MSRs exist:
 * PMC0 and EVNTSEL0 with one counter (EVNTSEL1-3 with more, which count
 * nothing), the GLOBAL_* MSRs and FIXED_CTR_CTRL (three fixed counters,
 * which count nothing) from version 2.
 *
 * An MSR the CPU does not have faults: the access is refused and counted in
 * @gp_faults (a #GP on a real CPU).
 */
#ifndef SIM_CPU_H
#define SIM_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "ds/ds.h"

enum sim_msr {
	SIM_DEBUGCTL, SIM_MISC_ENABLE, SIM_PERF_CAP, SIM_DS_AREA,
	SIM_PEBS_ENABLE, SIM_PEBS_DATA_CFG, SIM_GLOBAL_STATUS, SIM_GLOBAL_CTRL,
	SIM_GLOBAL_OVF_CTRL, SIM_PMC0, SIM_EVNTSEL0, SIM_EVNTSEL1,
	SIM_EVNTSEL2, SIM_EVNTSEL3, SIM_FIXED_CTR_CTRL, SIM_NR_MSR
};

struct sim_cpu;
typedef void (*sim_nmi_fn)(struct sim_cpu *cpu, void *arg);

struct sim_cpu {
	int id;
	uint32_t cpuid0[4];
	uint32_t cpuid1[4];
	uint32_t cpuida[4];	/* leaf 0xA: the architectural PMU */
	bool present[SIM_NR_MSR];
	uint64_t msr[SIM_NR_MSR];
	struct ds_ops ops;

	unsigned latency;	/* branches between threshold and PMI */
	unsigned nmi_in;	/* 0: none pending, else branches to go */
	sim_nmi_fn nmi;
	void *nmi_arg;

	uint64_t cycles;
	uint64_t gp_faults;
	uint64_t msr_reads;
	uint64_t stored;	/* BTS records stored */
	uint64_t filtered;	/* branches BTS_OFF_* kept out */
	uint64_t pebs_stored;
	uint64_t pmis;
	uint64_t overruns;
	uint64_t undefined;
};

/* Description of a CPU for sim_cpu_init(). */
struct sim_model {
	bool intel;
	uint32_t family, model;
	bool ds, dtes64, pdcm;
	bool bts_unavail, pebs_unavail;
	uint32_t pebs_format;
	bool baseline;
	uint32_t pmu_version;	/* CPUID.0AH:EAX[7:0]; 0: no leaf 0xA */
	uint32_t pmu_counters;	/* CPUID.0AH:EAX[15:8] */
};

/* A model with everything: Intel family 6 model 0x55 (Skylake-SP), format 3. */
struct sim_model sim_model_full(void);
void sim_cpu_init(struct sim_cpu *cpu, int id, const struct sim_model *m);

/* A taken branch at privilege @cpl (0 kernel, 3 user). */
void sim_branch(struct sim_cpu *cpu, uint64_t from, uint64_t to, int cpl);
/* Delivers a pending PMI now (interrupts re-enabled at a switch). */
void sim_flush_nmi(struct sim_cpu *cpu);

#endif /* SIM_CPU_H */
