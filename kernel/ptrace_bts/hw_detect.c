// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: whether kmod-bts and kmod-pebs can record here, and if not,
 * the first reason why (the order is the uapi header's).
 *
 * Detection runs CPUID, and reads an MSR only when CPUID enumerates it
 * (arch/x86/ds/ds_detect.c); even then through the _safe accessors, so a
 * hypervisor that lies costs an error code rather than a #GP.  On the
 * QEMU guest of the tests (an AMD-vendor CPU model) no MSR is touched.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <asm/cpufeature.h>
#include <linux/smp.h>
#include <asm/msr.h>

#include "hw.h"

static void ptbts_hw_cpuid(void *ctx, u32 leaf, u32 sub, u32 r[4])
{
	cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]);
}

static int ptbts_hw_rdmsr(void *ctx, u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val);
}

static int ptbts_hw_wrmsr(void *ctx, u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val);
}

/* The CPU this code runs on; the DS code's only way to it. */
const struct ds_ops ptbts_hw_ops = {
	.cpuid	= ptbts_hw_cpuid,
	.rdmsr	= ptbts_hw_rdmsr,
	.wrmsr	= ptbts_hw_wrmsr,
};

/*
 * Whether perf holds what @feat needs on an online CPU: BTS on in
 * DEBUGCTL, or for PEBS any enabled counter (the NMI watchdog is one) or
 * PEBS itself.  Only asked once the CPU passed every other check, so the
 * MSRs exist.  It is a snapshot: a perf user arriving later is met at
 * sched-in (ds_task_sched_in() skips the slice and marks a gap).
 */
struct ptbts_hw_busy {
	enum ds_feature feat;
	bool busy;
};

static void ptbts_hw_busy_here(void *arg)
{
	struct ptbts_hw_busy *b = arg;

	/*
	 * The slice of a thread of ours that the IPI interrupted has BTS on:
	 * not perf's use (a second thread attached while the first runs).
	 */
	if (ptbts_hw_slice_here())
		return;
	/*
	 * Pairs with the read of b.busy in ptbts_hw_perf_busy(), ordered by
	 * smp_call_function_single()'s wait for this function's end.
	 */
	if (ds_perf_busy(&ptbts_hw_ops, b->feat))
		WRITE_ONCE(b->busy, true);
}

static bool ptbts_hw_perf_busy(enum ds_feature feat)
{
	struct ptbts_hw_busy b = { .feat = feat };
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, ptbts_hw_busy_here, &b, 1);
	cpus_read_unlock();
	return b.busy;
}

/*
 * perf's policy for the same hardware, as far as a module can apply it:
 *
 *  - perf_event_paranoid: the sysctl (sysctl_perf_event_paranoid) is not
 *    exported to modules, so it cannot be read.  Instead CAP_PERFMON (or
 *    CAP_SYS_ADMIN) is always required, which is what perf asks at its
 *    strictest levels (2 and above, Debian's default 3) and which passes
 *    perf's check at every level: never looser than perf.  Raw records
 *    can carry kernel addresses that nothing filters on a zero-copy path,
 *    the reason perf asks the same of intel_bts.
 *  - Lockdown: security_locked_down(LOCKDOWN_PERF) is exported and is
 *    asked, as perf does before it hands out data that can reveal the
 *    kernel's (PERF_SAMPLE_REGS_INTR).
 *  - The LSM hooks perf calls (security_perf_event_open() and the
 *    read/write hooks) are not exported to modules, and struct
 *    perf_event_attr, their argument, describes no source of this module:
 *    an LSM policy on perf events does not see this module.  The device's
 *    own file mode and the ptrace check (ptrace_may_access() with
 *    PTRACE_MODE_ATTACH, which does run the LSMs' ptrace hooks) are what
 *    an LSM can govern here.
 *
 * Capability queries do not audit (asking is not using).
 */
static bool ptbts_hw_privileged(bool audit)
{
	if (audit)
		return perfmon_capable();
	return has_capability_noaudit(current, CAP_PERFMON) ||
	       has_capability_noaudit(current, CAP_SYS_ADMIN);
}

static bool ptbts_hw_locked_down(void)
{
	return security_locked_down(LOCKDOWN_PERF) != 0;
}

/**
 * ptbts_hw_caller_unavail() - perf's policy alone, without the machine's
 *
 * For the test build's per-CPU mode on simulated MSRs, which has no
 * machine to ask.
 *
 * Return: %PTBTS_UNAVAIL_LOCKDOWN, %PTBTS_UNAVAIL_NO_CAP or %PTBTS_OK.
 */
u8 ptbts_hw_caller_unavail(void)
{
	if (ptbts_hw_locked_down())
		return PTBTS_UNAVAIL_LOCKDOWN;
	return ptbts_hw_privileged(true) ? PTBTS_OK : PTBTS_UNAVAIL_NO_CAP;
}

/**
 * ptbts_hw_errno() - the errno of a refusal
 * @why: an &enum ptbts_unavail other than %PTBTS_OK
 *
 * Return: -EPERM for the caller's reasons (as perf answers), else
 * -EOPNOTSUPP.
 */
int ptbts_hw_errno(u8 why)
{
	if (why == PTBTS_UNAVAIL_NO_CAP || why == PTBTS_UNAVAIL_LOCKDOWN)
		return -EPERM;
	return -EOPNOTSUPP;
}

/**
 * ptbts_hw_unavail() - why a hardware source cannot record for the caller
 * @source: %PTBTS_SOURCE_KMOD_BTS or %PTBTS_SOURCE_KMOD_PEBS
 * @audit:  audit the capability check (ATTACH does, CAPS does not), or
 *          %PTBTS_HW_MACHINE: only the machine's reasons (the CPU, PTI),
 *          which never change while the module is loaded
 *
 * Sleeps (reads MSRs of other CPUs, only on a CPU with DS).
 *
 * Return: an &enum ptbts_unavail, %PTBTS_OK when it can.
 */
u8 ptbts_hw_unavail(u32 source, int audit)
{
	enum ds_feature feat = source == PTBTS_SOURCE_KMOD_PEBS ?
			       DS_FEAT_PEBS : DS_FEAT_BTS;
	struct ds_env env = { .privileged = true };
	struct ds_cpu cpu;
	u8 why;

	ds_detect(&ptbts_hw_ops, &cpu);
	env.pti = boot_cpu_has(X86_FEATURE_PTI) && !ptbts_hw_test_force_pti();
	why = ds_refusal(&cpu, &env, feat);
	if (why != PTBTS_OK)
		return why;
	if (audit == PTBTS_HW_MACHINE)
		return PTBTS_OK;
	env.locked_down = ptbts_hw_locked_down();
	env.privileged = ptbts_hw_privileged(audit);
	if (env.privileged)
		env.perf_busy = ptbts_hw_perf_busy(feat);
	return ds_refusal(&cpu, &env, feat);
}

/**
 * ptbts_hw_pebs_format() - the PEBS record format, for the capabilities
 *
 * Return: IA32_PERF_CAPABILITIES.PEBS_FORMAT, or ~0 when the CPU has no
 * usable PEBS.
 */
u32 ptbts_hw_pebs_format(void)
{
	struct ds_cpu cpu;

	ds_detect(&ptbts_hw_ops, &cpu);
	if (ds_refusal_cpu(&cpu, DS_FEAT_PEBS) != PTBTS_OK)
		return ~0U;
	return cpu.pebs_format;
}

/**
 * ptbts_hw_pebs_record_size() - bytes per PEBS record kmod-pebs writes
 *
 * Return: the size (the basic group only, for adaptive PEBS), or 0.
 */
u32 ptbts_hw_pebs_record_size(void)
{
	u32 fmt = ptbts_hw_pebs_format();

	return fmt == ~0U ? 0 : ds_pebs_record_size(fmt);
}

/**
 * ptbts_hw_percpu_unavail() - why the per-CPU mode cannot record here
 *
 * It needs what kmod-bts needs, for the caller asking (percpu.c refuses
 * PERCPU_START with the same answer).
 *
 * Return: an &enum ptbts_unavail, %PTBTS_OK when it can.
 */
u8 ptbts_hw_percpu_unavail(void)
{
	return ptbts_hw_unavail(PTBTS_SOURCE_KMOD_BTS, false);
}
