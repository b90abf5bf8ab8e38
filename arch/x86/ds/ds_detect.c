// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Which hardware source can record here, from CPUID and MSR values.
 *
 * Detection reads an MSR only when CPUID says it exists (MISC_ENABLE on an
 * Intel CPU with DS, PERF_CAPABILITIES with PDCM): a guest CPU without
 * them must never see the access.  The refusal order is fixed (the uapi
 * header lists it) so that the reason a user reads is the first thing to
 * fix, and is the same on every path that asks.
 */
#include "ds.h"

/* "GenuineIntel" in CPUID.0: ebx, edx, ecx. */
#define DS_INTEL_EBX	0x756e6547U
#define DS_INTEL_EDX	0x49656e69U
#define DS_INTEL_ECX	0x6c65746eU

/*
 * Family 6 models with erratum AAJ122 ("LBR, BTM or BTS records may have
 * incorrect branch 'from' information after an EIST transition, T-states,
 * C1E or Adaptive Thermal Throttling"): Nehalem, Westmere, Sandy Bridge,
 * Ivy Bridge; the list gdb refuses BTS on.
 */
static const u8 ds_erratum_models[] = {
	0x1a, 0x1e, 0x1f, 0x2e,		/* Nehalem */
	0x25, 0x2c, 0x2f,		/* Westmere */
	0x2a, 0x2d,			/* Sandy Bridge */
	0x3a,				/* Ivy Bridge */
};

static bool ds_is_erratum_model(u32 family, u32 model)
{
	unsigned int i;

	if (family != 6)
		return false;
	for (i = 0; i < sizeof(ds_erratum_models); i++)
		if (ds_erratum_models[i] == model)
			return true;
	return false;
}

static void ds_family_model(u32 eax, u32 *family, u32 *model)
{
	u32 fam = (eax >> 8) & 0xf;
	u32 mod = (eax >> 4) & 0xf;

	if (fam == 6 || fam == 0xf)
		mod |= ((eax >> 16) & 0xf) << 4;
	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	*family = fam;
	*model = mod;
}

static bool ds_rdmsr(const struct ds_ops *ops, struct ds_cpu *cpu, u32 msr,
		     u64 *val)
{
	if (ops->rdmsr(ops->ctx, msr, val) == 0)
		return true;
	cpu->msr_faults++;
	*val = 0;
	return false;
}

/**
 * ds_detect() - what the CPU has, from CPUID and the MSRs it enumerates
 * @ops: the CPU
 * @cpu: filled
 */
void ds_detect(const struct ds_ops *ops, struct ds_cpu *cpu)
{
	u32 r[4], max;
	u64 misc, caps;

	*cpu = (struct ds_cpu){ 0 };
	ops->cpuid(ops->ctx, 0, 0, r);
	max = r[0];
	cpu->intel = r[1] == DS_INTEL_EBX && r[3] == DS_INTEL_EDX &&
		     r[2] == DS_INTEL_ECX;
	if (!cpu->intel || r[0] < 1)
		return;
	ops->cpuid(ops->ctx, 1, 0, r);
	ds_family_model(r[0], &cpu->family, &cpu->model);
	cpu->ds = !!(r[3] & DS_CPUID1_EDX_DS);
	cpu->dtes64 = !!(r[2] & DS_CPUID1_ECX_DTES64);
	cpu->pdcm = !!(r[2] & DS_CPUID1_ECX_PDCM);
	cpu->bts_erratum = ds_is_erratum_model(cpu->family, cpu->model);
	if (max >= DS_CPUID_PMU_LEAF) {
		ops->cpuid(ops->ctx, DS_CPUID_PMU_LEAF, 0, r);
		cpu->pmu_version = DS_PMU_VERSION(r[0]);
		cpu->pmu_counters = DS_PMU_COUNTERS(r[0]);
	}
	if (!cpu->ds)
		return;
	/* Architectural on every Intel CPU with DS (and read-only here). */
	if (ds_rdmsr(ops, cpu, DS_MSR_MISC_ENABLE, &misc)) {
		cpu->bts = !(misc & DS_MISC_BTS_UNAVAIL);
		cpu->pebs = !(misc & DS_MISC_PEBS_UNAVAIL);
	}
	if (cpu->pdcm && ds_rdmsr(ops, cpu, DS_MSR_PERF_CAP, &caps)) {
		cpu->pebs_format = DS_PERF_CAP_PEBS_FMT(caps);
		cpu->pebs_baseline = !!(caps & DS_PERF_CAP_BASELINE);
	}
}

/**
 * ds_refusal_cpu() - the CPU's own reason, if any, not to record
 * @cpu:  what ds_detect() found
 * @feat: BTS or PEBS
 *
 * Return: an &enum ptbts_unavail: NOT_INTEL, NO_DS, BTS_OFF or PEBS_OFF,
 * NO_PMU, PEBS_FMT (PEBS only), ERRATUM (BTS only), in that order;
 * %PTBTS_OK when none.
 */
u8 ds_refusal_cpu(const struct ds_cpu *cpu, enum ds_feature feat)
{
	if (!cpu->intel)
		return PTBTS_UNAVAIL_NOT_INTEL;
	/* Only the 64-bit layout is built: no DTES64 is no usable DS. */
	if (!cpu->ds || !cpu->dtes64)
		return PTBTS_UNAVAIL_NO_DS;
	if (feat == DS_FEAT_PEBS) {
		if (!cpu->pebs)
			return PTBTS_UNAVAIL_PEBS_OFF;
		/*
		 * kmod-pebs counts on PMC0 and gates it in GLOBAL_CTRL:
		 * neither is touched, nor read by ds_perf_busy(), on a
		 * CPU whose PMU does not enumerate them.
		 */
		if (cpu->pmu_version < 2 || cpu->pmu_counters < 1)
			return PTBTS_UNAVAIL_NO_PMU;
		if (!ds_pebs_record_size(cpu->pebs_format) ||
		    (cpu->pebs_format >= 4 && !cpu->pebs_baseline))
			return PTBTS_UNAVAIL_PEBS_FMT;
		return PTBTS_OK;
	}
	if (!cpu->bts)
		return PTBTS_UNAVAIL_BTS_OFF;
	if (cpu->bts_erratum)
		return PTBTS_UNAVAIL_ERRATUM;
	return PTBTS_OK;
}

/**
 * ds_refusal() - the first reason not to record, CPU and environment
 * @cpu:  what ds_detect() found
 * @env:  PTI, the caller's privilege, perf's use of the PMU
 * @feat: BTS or PEBS
 *
 * Return: an &enum ptbts_unavail, %PTBTS_OK when nothing stands in the
 * way.  PTI comes before privilege: it is the machine's answer, the same
 * for every caller, while privilege is the caller's.
 */
u8 ds_refusal(const struct ds_cpu *cpu, const struct ds_env *env,
	      enum ds_feature feat)
{
	u8 why = ds_refusal_cpu(cpu, feat);

	if (why != PTBTS_OK)
		return why;
	if (env->pti)
		return PTBTS_UNAVAIL_PTI;
	if (env->locked_down)
		return PTBTS_UNAVAIL_LOCKDOWN;
	if (!env->privileged)
		return PTBTS_UNAVAIL_NO_CAP;
	if (env->perf_busy)
		return PTBTS_UNAVAIL_PERF_BUSY;
	return PTBTS_OK;
}

/**
 * ds_counters_busy() - whether a counter counts on this CPU
 * @ops: the CPU, one with an architectural PMU of version 2 or later
 *
 * A counter counts when GLOBAL_CTRL enables it and so does its own
 * control: EVNTSELx.EN, or its field of FIXED_CTR_CTRL.  GLOBAL_CTRL alone
 * says nothing: Linux's perf writes every counter's bit there whenever it
 * enables the PMU (intel_pmu_enable_all()), and leaves them set after its
 * last event is gone, with each counter's own control cleared.
 *
 * Return: true when one counts; an MSR that faults counts as busy.
 */
static bool ds_counters_busy(const struct ds_ops *ops)
{
	u64 ctrl, val;
	u32 r[4], i;

	if (ops->rdmsr(ops->ctx, DS_MSR_GLOBAL_CTRL, &ctrl))
		return true;
	ops->cpuid(ops->ctx, DS_CPUID_PMU_LEAF, 0, r);
	for (i = 0; i < DS_PMU_COUNTERS(r[0]) && i < 32; i++) {
		if (!(ctrl & BIT_ULL(i)))
			continue;
		if (ops->rdmsr(ops->ctx, DS_MSR_EVNTSEL0 + i, &val) ||
		    (val & DS_EVTSEL_EN))
			return true;
	}
	if (!(ctrl >> 32))
		return false;
	if (ops->rdmsr(ops->ctx, DS_MSR_FIXED_CTR_CTRL, &val))
		return true;
	for (i = 0; i < DS_PMU_FIXED(r[3]) && i < 16; i++)
		if ((ctrl & BIT_ULL(32 + i)) && (val & DS_FIXED_CTR_EN(i)))
			return true;
	return false;
}

/**
 * ds_perf_busy() - whether perf holds what @feat needs on this CPU
 * @ops:  the CPU, one that passed ds_refusal_cpu() (its MSRs exist)
 * @feat: BTS: BTS is on in DEBUGCTL; PEBS: any counter counts (the NMI
 *        watchdog's included, ds_counters_busy()), or PEBS itself is on
 *
 * Return: true when busy; an MSR that faults counts as busy.
 */
bool ds_perf_busy(const struct ds_ops *ops, enum ds_feature feat)
{
	u64 val;

	if (feat == DS_FEAT_BTS)
		return ops->rdmsr(ops->ctx, DS_MSR_DEBUGCTL, &val) ||
		       (val & (DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS));
	if (ds_counters_busy(ops))
		return true;
	return ops->rdmsr(ops->ctx, DS_MSR_PEBS_ENABLE, &val) || val;
}
