/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The DS save area: BTS and PEBS, the CPU's own branch and event record
 * stores.  Shared by the ptrace_bts module (kmod-bts, kmod-pebs, per-CPU
 * mode) and, in user space, by the tests that run it against a simulated
 * CPU (tests/sim/).  Nothing here touches a register directly: CPUID and
 * the MSRs go through &struct ds_ops, so the same code drives a real CPU in
 * the kernel and the simulator in a test.
 *
 *	ds_detect.c   CPUID/MSR facts -> &struct ds_cpu; the refusal reason
 *	ds_area.c     the DS area layout, DEBUGCTL bits, PEBS record sizes
 *	ds_win.c      one record region: positions, the hardware window,
 *		      thresholds, wraps, lost records (RING/STOP/BLOCK)
 *	ds_task.c     a traced thread's time slice: sched-in, sched-out, PMI
 *	ds_percpu.c   the per-CPU mode: start/stop all or none, CPU hotplug
 *	ds_pebs_event.c  the PEBS event and its period (counter reset)
 *
 * Facts are from the Intel SDM vol. 3B ("Debug Store (DS) Mechanism");
 * doc/hardware.md sums up the ones this code relies on.  Nothing here has
 * run on a real CPU with BTS: it meets the simulator of tests/sim/ and the
 * emulated CPU of tests/vcpu/ only.
 */
#ifndef PTBTS_DS_H
#define PTBTS_DS_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/types.h>
#define DS_ARRAY_SIZE(a)	ARRAY_SIZE(a)
/* Orders stores against an NMI on the same CPU (no other CPU looks). */
static inline void ds_compiler_barrier(void)
{
	barrier();
}
#else
#include <stdbool.h>
#include <stddef.h>
/* uint8_t, uint32_t and uint64_t themselves, as the compiler names them. */
typedef __UINT8_TYPE__ u8;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
#define BIT(n)			(1U << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define DS_ARRAY_SIZE(a)	(sizeof(a) / sizeof(*(a)))
static inline void ds_compiler_barrier(void)
{
	__asm__ __volatile__("" : : : "memory");
}
#endif
#include <linux/ptrace_bts.h>

/* MSRs (SDM vol. 4). */
#define DS_MSR_DEBUGCTL		0x1d9
#define DS_MSR_MISC_ENABLE	0x1a0
#define DS_MSR_PERF_CAP		0x345
#define DS_MSR_DS_AREA		0x600
#define DS_MSR_PEBS_ENABLE	0x3f1
#define DS_MSR_PEBS_DATA_CFG	0x3f2
#define DS_MSR_GLOBAL_STATUS	0x38e
#define DS_MSR_GLOBAL_CTRL	0x38f
#define DS_MSR_GLOBAL_OVF_CTRL	0x390
#define DS_MSR_PMC0		0xc1
#define DS_MSR_EVNTSEL0		0x186
#define DS_MSR_FIXED_CTR_CTRL	0x38d

/* IA32_PERFEVTSELx: the counter counts; IA32_FIXED_CTR_CTRL: per counter. */
#define DS_EVTSEL_EN		BIT_ULL(22)
#define DS_FIXED_CTR_EN(i)	(3ULL << (4 * (i)))

/* IA32_DEBUGCTL, Core 2 and later (the only layout a 64-bit CPU has). */
#define DS_DEBUGCTL_TR		BIT_ULL(6)
#define DS_DEBUGCTL_BTS		BIT_ULL(7)
#define DS_DEBUGCTL_BTINT	BIT_ULL(8)
#define DS_DEBUGCTL_BTS_OFF_OS	BIT_ULL(9)
#define DS_DEBUGCTL_BTS_OFF_USR	BIT_ULL(10)
#define DS_DEBUGCTL_BTS_MASK	(DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS | \
				 DS_DEBUGCTL_BTINT | DS_DEBUGCTL_BTS_OFF_OS | \
				 DS_DEBUGCTL_BTS_OFF_USR)

/* IA32_MISC_ENABLE (read-only bits). */
#define DS_MISC_BTS_UNAVAIL	BIT_ULL(11)
#define DS_MISC_PEBS_UNAVAIL	BIT_ULL(12)

/* IA32_PERF_CAPABILITIES. */
#define DS_PERF_CAP_PEBS_FMT(c)	((u32)(((c) >> 8) & 0xf))
#define DS_PERF_CAP_BASELINE	BIT_ULL(14)

/* IA32_PERF_GLOBAL_STATUS: the PEBS buffer reached its threshold. */
#define DS_GLOBAL_STATUS_BUFFER	BIT_ULL(62)

/* CPUID.1 bits. */
#define DS_CPUID1_EDX_DS	BIT(21)
#define DS_CPUID1_ECX_DTES64	BIT(2)
#define DS_CPUID1_ECX_PDCM	BIT(15)

/*
 * CPUID.0AH:EAX, the architectural PMU: its version (GLOBAL_CTRL,
 * GLOBAL_STATUS and GLOBAL_OVF_CTRL exist from version 2 on) and its
 * general-purpose counters (PMC0 and EVNTSEL0 exist when there is one).
 */
#define DS_CPUID_PMU_LEAF	0xa
#define DS_PMU_VERSION(eax)	((eax) & 0xff)
#define DS_PMU_COUNTERS(eax)	(((eax) >> 8) & 0xff)
#define DS_PMU_FIXED(edx)	((edx) & 0x1f)

#define DS_BTS_RECORD		24	/* 64-bit BTS record: from, to, flags */
#define DS_PEBS_FMT_MAX		5	/* the newest format decoded */
#define DS_PEBS_BASIC_SIZE	32	/* adaptive PEBS, basic group only */

/**
 * struct ds_ops - how this code reaches the CPU
 * @ctx:   passed back to each callback
 * @cpuid: CPUID @leaf/@sub into @r (eax, ebx, ecx, edx)
 * @rdmsr: read an MSR; nonzero when it faulted (it does not exist)
 * @wrmsr: write an MSR; nonzero when it faulted
 *
 * The kernel's ops use the _safe MSR accessors, so that even a wrong guess
 * costs an error code, not a #GP; the code below only reads an MSR that
 * CPUID says exists.
 */
struct ds_ops {
	void *ctx;
	void (*cpuid)(void *ctx, u32 leaf, u32 sub, u32 r[4]);
	int (*rdmsr)(void *ctx, u32 msr, u64 *val);
	int (*wrmsr)(void *ctx, u32 msr, u64 val);
};

/**
 * struct ds_cpu - what detection found
 * @intel:        the vendor is GenuineIntel
 * @family:       display family
 * @model:        display model
 * @ds:           CPUID.1:EDX.DS
 * @dtes64:       CPUID.1:ECX.DTES64 (the 64-bit DS layout this code uses)
 * @pdcm:         CPUID.1:ECX.PDCM (IA32_PERF_CAPABILITIES exists)
 * @bts:          DS and MISC_ENABLE.BTS_UNAVAILABLE clear
 * @pebs:         DS and MISC_ENABLE.PEBS_UNAVAILABLE clear
 * @bts_erratum:  a model whose BTS 'from' addresses may be wrong (AAJ122)
 * @pebs_format:  IA32_PERF_CAPABILITIES.PEBS_FORMAT (0 without PDCM)
 * @pebs_baseline: adaptive PEBS (IA32_PERF_CAPABILITIES bit 14)
 * @pmu_version:  CPUID.0AH:EAX[7:0], 0 when the leaf is absent
 * @pmu_counters: CPUID.0AH:EAX[15:8], general-purpose counters
 * @msr_faults:   MSR reads that faulted during detection (always 0 on a
 *                CPU that tells the truth in CPUID)
 */
struct ds_cpu {
	bool intel;
	u32 family;
	u32 model;
	bool ds;
	bool dtes64;
	bool pdcm;
	bool bts;
	bool pebs;
	bool bts_erratum;
	u32 pebs_format;
	bool pebs_baseline;
	u32 pmu_version;
	u32 pmu_counters;
	u32 msr_faults;
};

/**
 * struct ds_env - what else decides, besides the CPU
 * @pti:       page-table isolation is active
 * @privileged: the caller has CAP_PERFMON or CAP_SYS_ADMIN
 * @perf_busy: perf holds BTS (or, for PEBS, any counter) on a CPU
 * @locked_down: the kernel's lockdown forbids perf (LOCKDOWN_PERF)
 */
struct ds_env {
	bool pti;
	bool locked_down;
	bool privileged;
	bool perf_busy;
};

/* Which hardware source is asked about (ds_refusal()). */
enum ds_feature {
	DS_FEAT_BTS,		/* kmod-bts, and per-CPU mode */
	DS_FEAT_PEBS,		/* kmod-pebs */
};

/* ds_detect.c */
void ds_detect(const struct ds_ops *ops, struct ds_cpu *cpu);
u8 ds_refusal_cpu(const struct ds_cpu *cpu, enum ds_feature feat);
u8 ds_refusal(const struct ds_cpu *cpu, const struct ds_env *env,
	      enum ds_feature feat);
bool ds_perf_busy(const struct ds_ops *ops, enum ds_feature feat);

/**
 * struct ds_area - the DS save area, 64-bit layout (DTES64)
 * @bts_base:      first byte of the BTS buffer
 * @bts_index:     where the next BTS record is stored
 * @bts_abs_max:   one byte past the last record
 * @bts_threshold: the PMI fires when @bts_index reaches it (BTINT set)
 * @pebs_base:     the same four for PEBS
 * @pebs_index:    ...
 * @pebs_abs_max:  ...
 * @pebs_threshold: ...
 * @pebs_reset:    counter reload values: GP counters 0-7 (formats 0-4),
 *                 fixed counters from 8
 */
struct ds_area {
	u64 bts_base;
	u64 bts_index;
	u64 bts_abs_max;
	u64 bts_threshold;
	u64 pebs_base;
	u64 pebs_index;
	u64 pebs_abs_max;
	u64 pebs_threshold;
	u64 pebs_reset[12];
};

/**
 * struct ds_fields - one region's four DS fields, as addresses
 * @base:      &ds_area.bts_base or pebs_base
 * @index:     ...index
 * @abs_max:   ...absolute maximum
 * @threshold: ...interrupt threshold
 */
struct ds_fields {
	u64 base;
	u64 index;
	u64 abs_max;
	u64 threshold;
};

/* ds_area.c */
void ds_area_get_bts(const struct ds_area *ds, struct ds_fields *f);
void ds_area_set_bts(struct ds_area *ds, const struct ds_fields *f);
void ds_area_get_pebs(const struct ds_area *ds, struct ds_fields *f);
void ds_area_set_pebs(struct ds_area *ds, const struct ds_fields *f);
u64 ds_debugctl_bts(bool user, bool kernel);
u32 ds_pebs_record_size(u32 format);
void ds_fields_circular(struct ds_fields *f, u64 base, u64 nrec, u32 rec_size);

/*
 * Records the PMI may arrive after the threshold, by default: perf keeps
 * the same 4080 bytes between its BTS threshold and the end.
 */
#define DS_MARGIN_DEFAULT	170
/* Scratch records a region needs for its bounce window (ds_win.c). */
#define DS_SCRATCH_RECS(margin)	(4 * (margin) + 4)

/**
 * struct ds_win_cfg - one record region
 * @buf:       the region, as the hardware addresses it
 * @scratch:   DS_SCRATCH_RECS(@margin) records of kernel memory
 * @rec_size:  bytes per record
 * @nslots:    records the region holds (at least 2 * @margin + 2)
 * @mode:      &enum ptbts_mode
 * @wakeup:    unread records that wake the consumer (at least 1)
 * @margin:    records the PMI may come late by
 * @markers:   write LOST markers (BTS records) into the region
 */
struct ds_win_cfg {
	u8 *buf;
	u8 *scratch;
	u32 rec_size;
	u64 nslots;
	u32 mode;
	u64 wakeup;
	u64 margin;
	bool markers;
};

/**
 * struct ds_win - a region's positions and the hardware window into it
 * @cfg:      the configuration
 * @count:    records in the region since attach, markers included: the
 *            producer position (slot @count % nslots, lap @count / nslots)
 * @lost:     records the hardware stored that the region had no room for
 * @lost_run: lost since the last LOST marker
 * @pending:  BLOCK: records in the scratch area waiting for room
 * @start:    the index programmed by the last ds_win_arm()
 * @end:      the absolute maximum programmed with it
 * @bounce:   the window is the scratch area, not the region
 * @blocked:  BLOCK: the thread must wait for room before user mode
 * @armed:    ds_win_arm() programmed a window that was not collected
 */
struct ds_win {
	struct ds_win_cfg cfg;
	u64 count;
	u64 lost;
	u64 lost_run;
	u64 pending;
	u64 start;
	u64 end;
	bool bounce;
	bool blocked;
	bool armed;
};

/* ds_win.c */
int ds_win_init(struct ds_win *w, const struct ds_win_cfg *cfg);
void ds_win_arm(struct ds_win *w, u64 tail, struct ds_fields *f);
void ds_win_collect(struct ds_win *w, u64 index, u64 tail);
bool ds_win_room(const struct ds_win *w, u64 tail);
u64 ds_win_unread(const struct ds_win *w, u64 tail);
void ds_win_end(struct ds_win *w, u64 tail);
bool ds_win_marker(struct ds_win *w, u64 tail, u32 kind, u64 to);

/**
 * struct ds_task - one traced thread's BTS (and PEBS) state
 * @bts:        the BTS region
 * @pebs:       the PEBS region, when @has_pebs
 * @has_pebs:   PEBS records into @pebs
 * @pebs_evtsel: IA32_PERFEVTSEL0 for the PEBS event (counter 0)
 * @pebs_reset: the counter counts up from -@pebs_reset to each record
 * @pebs_adaptive: the format is adaptive (4, 5): PEBS_DATA_CFG is set to
 *              the basic group at each slice
 * @pebs_ctr:   counter 0 between the thread's slices (-@pebs_reset to
 *              begin with): the count goes on where the last slice left it
 * @ctl:        the DEBUGCTL bits this thread's slices turn on
 * @own_area:   a DS area to install when IA32_DS_AREA is 0 (no perf user)
 * @saved:      the BTS fields of the DS area's previous user, restored at
 *              sched-out
 * @saved_pebs: its PEBS fields
 * @saved_reset: its PEBS reset value of counter 0
 * @saved_area: IA32_DS_AREA before sched-in
 * @area:       the DS area used in the current slice, or NULL
 * @running:    between sched-in and sched-out
 * @foreign:    slices skipped because someone else's BTS was on
 * @gap:        a GAP marker is owed (a slice was skipped)
 * @pmi_owed:   the slice ended with a threshold reached: the PMI it raised
 *              may still arrive, during the switch (ds_task_pmi_pending())
 */
struct ds_task {
	struct ds_win bts;
	struct ds_win pebs;
	bool has_pebs;
	u64 pebs_evtsel;
	u64 pebs_reset;
	u64 pebs_ctr;
	bool pebs_adaptive;
	u64 ctl;
	struct ds_area *own_area;
	struct ds_fields saved;
	struct ds_fields saved_pebs;
	u64 saved_reset;
	u64 saved_area;
	struct ds_area *area;
	bool running;
	u64 foreign;
	bool gap;
	bool pmi_owed;
};

/* What ds_task_pmi() found. */
#define DS_PMI_OURS	0x1	/* the NMI was this thread's threshold */
#define DS_PMI_WAKE	0x2	/* the consumer's wakeup threshold is reached */
#define DS_PMI_BLOCK	0x4	/* BLOCK: wait for room before user mode */

/* ds_task.c */
void ds_task_init(struct ds_task *t, u64 ctl, struct ds_area *own_area);
int ds_task_sched_in(const struct ds_ops *ops, struct ds_task *t, u64 tail,
		     u64 tail2);
void ds_task_sched_out(const struct ds_ops *ops, struct ds_task *t,
		       u64 tail, u64 tail2);
bool ds_task_pmi_pending(struct ds_task *t);
int ds_task_pmi(const struct ds_ops *ops, struct ds_task *t, u64 tail,
		u64 tail2);

#define DS_PERCPU_MAX	64	/* CPUs a per-CPU session can name */

/**
 * struct ds_percpu_ops - one CPU of a per-CPU session
 * @ctx:     passed back
 * @alloc:   give @cpu its region (kernel memory) and DS state, not yet
 *           recording (0 or -errno); NULL: nothing to allocate
 * @release: free what @alloc gave @cpu (it is not recording)
 * @start:   on @cpu, begin recording into its region (0 or -errno)
 * @stop:    on @cpu, end recording and take its records in
 */
struct ds_percpu_ops {
	void *ctx;
	int (*alloc)(void *ctx, unsigned int cpu);
	void (*release)(void *ctx, unsigned int cpu);
	int (*start)(void *ctx, unsigned int cpu);
	void (*stop)(void *ctx, unsigned int cpu);
};

/**
 * struct ds_percpu - a per-CPU session's CPUs
 * @ops:     how to start and stop one
 * @want:    the CPUs asked for
 * @have:    the CPUs with a region (@alloc done, @release not yet)
 * @on:      the CPUs recording
 * @left:    CPUs that went offline while it ran (flushed)
 * @failed:  CPUs that came online and could not join
 * @running: between a successful start and stop
 */
struct ds_percpu {
	const struct ds_percpu_ops *ops;
	u64 want;
	u64 have;
	u64 on;
	u64 left;
	u64 failed;
	bool running;
};

/* ds_percpu.c */
void ds_percpu_init(struct ds_percpu *s, const struct ds_percpu_ops *ops,
		    u64 want);
int ds_percpu_start(struct ds_percpu *s, u64 online);
void ds_percpu_stop(struct ds_percpu *s);
void ds_percpu_release(struct ds_percpu *s);
int ds_percpu_online(struct ds_percpu *s, unsigned int cpu);
void ds_percpu_offline(struct ds_percpu *s, unsigned int cpu);

/* ds_pebs_event.c */
int ds_pebs_event_check(u64 event, u64 period);
void ds_task_pebs_event(struct ds_task *t, u64 event, u64 period, bool kernel);

#endif /* PTBTS_DS_H */
