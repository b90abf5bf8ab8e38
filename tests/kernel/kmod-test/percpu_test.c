// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts, test build only (PTBTS_TEST_HOOKS=y; kernel/kernel.mk builds
 * it as the guest's /ptrace_bts-test.ko, never for users or dkms): knobs
 * that let the guest's tests drive the per-CPU mode on a CPU without BTS,
 * in the style of the kernel's fault injection.
 *
 *	percpu_sim=1	    (at load) the per-CPU mode's MSRs are per-CPU
 *			    variables, not the CPU's: DEBUGCTL and DS_AREA
 *			    hold what was written, every other MSR reads 0
 *			    and ignores writes; the machine's reasons to
 *			    refuse are skipped (the caller's is not)
 *	percpu_fail_alloc=N the buffer allocation for CPU N fails (-ENOMEM)
 *	percpu_busy=N	    CPU N's DEBUGCTL reads with BTS on: someone
 *			    else's BTS (its start fails with -EBUSY); on
 *			    the CPU's own MSRs (no percpu_sim), its start
 *			    fails the same way before touching any
 *	percpu_store=N	    each time a CPU's recording is switched off
 *			    (stop, flush, leaving), the simulated CPU first
 *			    stores N branch records as BTS would have during
 *			    the slice: {from = K + 16 * seq, to = from + 8,
 *			    flags 0}, seq counting per CPU from 0, K the
 *			    kernel's text base; at most up to the window's
 *			    absolute maximum, as the CPU would (the module's
 *			    margin keeps N below it for N <= 170)
 *
 * -1 turns a CPU knob off.  The knobs are read at each use.
 */
#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "percpu.h"

static bool percpu_sim;
module_param(percpu_sim, bool, 0444);
MODULE_PARM_DESC(percpu_sim,
		 "test build: simulated MSRs for the per-CPU mode");

static int percpu_fail_alloc = -1;
module_param(percpu_fail_alloc, int, 0644);
MODULE_PARM_DESC(percpu_fail_alloc,
		 "test build: this CPU's buffer allocation fails");

static int percpu_store;
module_param(percpu_store, int, 0644);
MODULE_PARM_DESC(percpu_store,
		 "test build: records a CPU stores before each switch-off");

static int percpu_busy = -1;
module_param(percpu_busy, int, 0644);
MODULE_PARM_DESC(percpu_busy,
		 "test build: this CPU has someone else's BTS on");

/**
 * struct ptbts_sim_msrs - one CPU's simulated MSRs
 * @debugctl: IA32_DEBUGCTL
 * @ds_area:  IA32_DS_AREA
 * @seq:      branch records this CPU stored (percpu_store)
 */
struct ptbts_sim_msrs {
	u64 debugctl;
	u64 ds_area;
	u64 seq;
};

#define PTBTS_SIM_FROM	0xffffffff81000000ULL

/* What BTS would have stored during the slice that ends now. */
static void ptbts_sim_store(struct ptbts_sim_msrs *m)
{
	struct ds_area *ds = (struct ds_area *)(unsigned long)m->ds_area;
	int n = READ_ONCE(percpu_store);
	struct ptbts_record *rec;

	if (!ds)
		return;
	while (n-- > 0 && ds->bts_index + DS_BTS_RECORD <= ds->bts_abs_max) {
		rec = (struct ptbts_record *)(unsigned long)ds->bts_index;
		rec->from = PTBTS_SIM_FROM + 16 * m->seq;
		rec->to = rec->from + 8;
		rec->flags = 0;
		m->seq++;
		ds->bts_index += DS_BTS_RECORD;
	}
}

static DEFINE_PER_CPU(struct ptbts_sim_msrs, ptbts_sim_msrs);

/* Called on the CPU concerned, interrupts off (the DS code's rule). */
static int ptbts_sim_rdmsr(void *ctx, u32 msr, u64 *val)
{
	struct ptbts_sim_msrs *m = this_cpu_ptr(&ptbts_sim_msrs);

	switch (msr) {
	case DS_MSR_DEBUGCTL:
		*val = m->debugctl;
		if (READ_ONCE(percpu_busy) == (int)smp_processor_id())
			*val |= DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
		return 0;
	case DS_MSR_DS_AREA:
		*val = m->ds_area;
		return 0;
	default:
		*val = 0;
		return 0;
	}
}

static int ptbts_sim_wrmsr(void *ctx, u32 msr, u64 val)
{
	struct ptbts_sim_msrs *m = this_cpu_ptr(&ptbts_sim_msrs);

	if (msr == DS_MSR_DEBUGCTL) {
		if ((m->debugctl & DS_DEBUGCTL_BTS) && !(val & DS_DEBUGCTL_BTS))
			ptbts_sim_store(m);
		m->debugctl = val;
	}
	else if (msr == DS_MSR_DS_AREA)
		m->ds_area = val;
	return 0;
}

static void ptbts_sim_cpuid(void *ctx, u32 leaf, u32 sub, u32 r[4])
{
	r[0] = r[1] = r[2] = r[3] = 0;
}

static const struct ds_ops ptbts_sim_ops = {
	.cpuid	= ptbts_sim_cpuid,
	.rdmsr	= ptbts_sim_rdmsr,
	.wrmsr	= ptbts_sim_wrmsr,
};

/**
 * ptbts_percpu_test_ops() - the simulated MSRs, when percpu_sim is set
 *
 * Return: the ops, or NULL for the CPU's own.
 */
const struct ds_ops *ptbts_percpu_test_ops(void)
{
	return percpu_sim ? &ptbts_sim_ops : NULL;
}

/**
 * ptbts_percpu_test_alloc() - whether @cpu's allocation is made to fail
 * @cpu: the CPU whose buffer is being allocated
 *
 * Return: 0, or -ENOMEM for the CPU percpu_fail_alloc names.
 */
int ptbts_percpu_test_alloc(unsigned int cpu)
{
	return READ_ONCE(percpu_fail_alloc) == (int)cpu ? -ENOMEM : 0;
}

/**
 * ptbts_percpu_test_start() - whether this CPU's start is made to fail
 * @cpu: the CPU starting, the caller running on it
 *
 * On the CPU's own MSRs the DEBUGCTL of ptbts_sim_rdmsr() is not read:
 * the CPU that percpu_busy names refuses here instead, touching nothing,
 * as ds_task_sched_in() does when it finds someone else's BTS on.
 *
 * Return: 0, or -EBUSY.
 */
int ptbts_percpu_test_start(unsigned int cpu)
{
	if (percpu_sim)
		return 0;
	return READ_ONCE(percpu_busy) == (int)cpu ? -EBUSY : 0;
}
