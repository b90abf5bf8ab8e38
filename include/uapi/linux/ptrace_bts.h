/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ptrace-bts: branch tracing into pinned, tracer-owned pages.
 *
 * This header is the whole contract between the ptrace_bts module and user
 * space.  It uses fixed-width types and explicit padding only, so that 32-bit
 * and 64-bit tracers see one layout (tests/abi checks it with -m32 and -m64).
 *
 * Every struct passed by an ioctl starts with its own size (&struct
 * ptbts_hdr).  The ioctl numbers encode the direction and the size of that
 * fixed header only, so a struct may grow at its end without a new ioctl:
 * the kernel accepts an older (smaller) struct, and a newer (larger) one
 * only when the part it does not know is zero (-E2BIG otherwise).  Every
 * reserved field must be zero (-EINVAL otherwise), in every struct the
 * kernel reads, STATUS's included.
 */
#ifndef _UAPI_LINUX_PTRACE_BTS_H
#define _UAPI_LINUX_PTRACE_BTS_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * Changes only when an old caller could misread the new module.  Growth
 * that an old module refuses cleanly keeps it: new ioctls (-ENOTTY from a
 * module without them), new flag bits and new fields at a struct's end
 * (-EINVAL or -E2BIG when set).  The per-CPU mode and the PEBS event came
 * that way, in version 1.  Version 2 moved the ioctls to their own magic
 * (version 1's collided with nsfs's, whose numbers a version-2 module
 * refuses with -ENOTTY) and gave the per-CPU mode a CPU mask of any size.
 */
#define PTBTS_ABI_VERSION	2
#define PTBTS_DEVICE		"/dev/ptrace_bts"

/**
 * struct ptbts_record - one branch record, the 64-bit hardware BTS layout
 * @from:  address of the control-transfer instruction that was taken, or 0
 *         for a marker record
 * @to:    address of the next instruction that executed, or a marker's
 *         payload
 * @flags: bits 0-31 belong to the hardware (bit 4: predicted, where the CPU
 *         reports it); bits 32-63 belong to software sources and are zero in
 *         every record the hardware writes
 *
 * Records carry no timestamp: their order in the buffer is the order in
 * which the thread executed them.
 */
struct ptbts_record {
	__u64 from;
	__u64 to;
	__u64 flags;
};

#define PTBTS_FLAG_PREDICTED	(1ULL << 4)
#define PTBTS_FLAG_HW_MASK	0x00000000ffffffffULL

/*
 * The software half of @flags: a record kind in bits 32-39; bits 40-63 are
 * reserved and zero.  A decoder rejects a record with a kind or a reserved
 * bit it does not know.
 */
#define PTBTS_KIND_SHIFT	32
#define PTBTS_KIND_MASK		(0xffULL << PTBTS_KIND_SHIFT)
#define PTBTS_FLAG_SW_RESERVED	0xffffff0000000000ULL
#define PTBTS_KIND(flags)	((__u32)(((flags) & PTBTS_KIND_MASK) >> PTBTS_KIND_SHIFT))
#define PTBTS_MKKIND(kind)	((__u64)(kind) << PTBTS_KIND_SHIFT)

/**
 * enum ptbts_kind - what a record means
 * @PTBTS_KIND_BRANCH:    a taken control transfer; both ends executed
 * @PTBTS_KIND_SIGNAL:    signal delivery, asynchronous: @from is the
 *                        interrupted pc, whose instruction did not run;
 *                        @to is the handler's first instruction
 * @PTBTS_KIND_SIGRETURN: sigreturn, asynchronous: @from is the restorer's
 *                        syscall instruction (it ran), @to the resumed pc
 * @PTBTS_KIND_EXEC:      marker: the thread exec'd; @to is the new entry
 *                        point and the memory maps change here
 * @PTBTS_KIND_LOST:      marker: @to records were lost here
 * @PTBTS_KIND_GAP:       marker: the trace has a hole; @to is a
 *                        &enum ptbts_gap reason
 * @PTBTS_KIND_FILTERED:  marker: a region was run but deliberately not
 *                        recorded; @to is the number of branches skipped,
 *                        where the source knows it, else 0
 *
 * Marker records have @from == 0: no user instruction lives at address 0.
 */
enum ptbts_kind {
	PTBTS_KIND_BRANCH	= 0,
	PTBTS_KIND_SIGNAL	= 1,
	PTBTS_KIND_SIGRETURN	= 2,
	PTBTS_KIND_EXEC		= 0x10,
	PTBTS_KIND_LOST		= 0x11,
	PTBTS_KIND_GAP		= 0x12,
	PTBTS_KIND_FILTERED	= 0x13,
};

/**
 * enum ptbts_gap - why a %PTBTS_KIND_GAP marker was written
 * @PTBTS_GAP_UNKNOWN:    no reason known
 * @PTBTS_GAP_UNREADABLE: the source could not read the code it had to decode
 * @PTBTS_GAP_DISABLED:   tracing was turned off for a while, or for good:
 *                        the last record of a recording that ended with the
 *                        ptrace link (%PTBTS_STATE_DETACHED)
 * @PTBTS_GAP_UNDECODABLE: the source met an instruction it could not decode
 * @PTBTS_GAP_CODE_CHANGED: no hole: the code the thread is about to run was
 *			  rewritten since the source last decoded it (from the
 *			  last record's to up to the next record's from), so
 *			  a copy of code taken later is not what ran before
 */
enum ptbts_gap {
	PTBTS_GAP_UNKNOWN	= 0,
	PTBTS_GAP_UNREADABLE	= 1,
	PTBTS_GAP_DISABLED	= 2,
	PTBTS_GAP_UNDECODABLE	= 3,
	PTBTS_GAP_CODE_CHANGED	= 4,
};

/**
 * enum ptbts_source - who writes the records
 * @PTBTS_SOURCE_NONE:        no source (a detached or unattached thread)
 * @PTBTS_SOURCE_KMOD_BTS:    the CPU's DS/BTS, into the tracer's pages
 * @PTBTS_SOURCE_KMOD_PEBS:   the CPU's PEBS, into the tracer's pages
 * @PTBTS_SOURCE_KMOD_STEP:   the module single-steps the thread itself
 * @PTBTS_SOURCE_PERF_BTS:    perf_event_open branch sampling (user space)
 * @PTBTS_SOURCE_PTRACE_STEP: a user-space ptrace tracer (user space)
 * @PTBTS_SOURCE_QEMU_USER:   the program runs under qemu-user, whose plugin
 *                            writes the records (user space)
 * @PTBTS_SOURCE_MAX:         bound of the numbers (room in &struct ptbts_caps)
 *
 * The module implements only the KMOD sources; the others are numbered here
 * so that status, capabilities and trace files name every source one way.
 */
enum ptbts_source {
	PTBTS_SOURCE_NONE	= 0,
	PTBTS_SOURCE_KMOD_BTS	= 1,
	PTBTS_SOURCE_KMOD_PEBS	= 2,
	PTBTS_SOURCE_KMOD_STEP	= 3,
	PTBTS_SOURCE_PERF_BTS	= 4,
	PTBTS_SOURCE_PTRACE_STEP = 5,
	PTBTS_SOURCE_QEMU_USER	= 6,
	PTBTS_SOURCE_MAX	= 8,	/* room in &struct ptbts_caps */
};

/**
 * enum ptbts_mode - what the producer does when the buffer is full
 * @PTBTS_MODE_RING:  overwrite the oldest records (flight recorder)
 * @PTBTS_MODE_STOP:  stop recording, count what is lost
 * @PTBTS_MODE_BLOCK: the traced thread waits until the consumer has
 *                    acknowledged room (lossless)
 *
 * What a tracer may rely on in %PTBTS_MODE_BLOCK: a thread that waits for
 * room waits as if in an interruptible sleep.  Every ptrace stop
 * (PTRACE_INTERRUPT, a signal's delivery stop), group stop (SIGSTOP) and
 * signal handler reaches it while it waits, and the freezer freezes it
 * there: a tracer may wait for such a stop before it ACKs.  The records
 * that found no room are kept, in order, and written once there is room,
 * after the stop or the handler; none is lost or written twice.  Only
 * SIGKILL (or an exit) ends the wait for good: what still waited is then
 * counted in &struct ptbts_status.lost.  (kmod-step; for kmod-bts and
 * kmod-pebs the hardware's records wait in the CPU's buffer.)
 */
enum ptbts_mode {
	PTBTS_MODE_RING		= 0,
	PTBTS_MODE_STOP		= 1,
	PTBTS_MODE_BLOCK	= 2,
};

/**
 * enum ptbts_state - where an attached thread is
 * @PTBTS_STATE_RUNNING:  attached, running or sleeping
 * @PTBTS_STATE_STOPPED:  attached, in a ptrace stop
 * @PTBTS_STATE_EXITED:   the thread exited; its buffer is released
 * @PTBTS_STATE_DETACHED: the recording ended with the ptrace link: its
 *                        tracer let it go (PTRACE_DETACH or
 *                        %PTBTS_IOC_DETACH), exited or exec'd, or the
 *                        thread exec'd a program that left it non-dumpable
 *                        (setuid, setgid, file capabilities, unreadable);
 *                        its buffer is released
 *
 * @PTBTS_STATE_HELD:     attached, waits at its config's @limit (only with
 *                        one): it writes no record more, and waits until
 *                        the attachment ends or a fatal signal
 *
 * A thread that is EXITED or DETACHED stays known to the session (STATUS
 * answers for it) until %PTBTS_IOC_DETACH, the session's close, or a new
 * attach of the same thread id.
 */
enum ptbts_state {
	PTBTS_STATE_RUNNING	= 0,
	PTBTS_STATE_STOPPED	= 1,	/* in a ptrace stop */
	PTBTS_STATE_EXITED	= 2,
	PTBTS_STATE_DETACHED	= 3,
	PTBTS_STATE_HELD	= 4,
};

/**
 * enum ptbts_unavail - why a source cannot be used here (&struct ptbts_caps)
 * @PTBTS_OK:                 it can
 * @PTBTS_UNAVAIL_NOT_BUILT:  this module was built without it
 * @PTBTS_UNAVAIL_NOT_INTEL:  the CPU is not Intel's
 * @PTBTS_UNAVAIL_NO_DS:      CPUID.1:EDX.DS (or ECX.DTES64, the 64-bit
 *                            layout) is clear
 * @PTBTS_UNAVAIL_BTS_OFF:    MISC_ENABLE.BTS_UNAVAILABLE is set
 * @PTBTS_UNAVAIL_PEBS_OFF:   MISC_ENABLE.PEBS_UNAVAILABLE is set
 * @PTBTS_UNAVAIL_PTI:        page-table isolation is active
 * @PTBTS_UNAVAIL_PEBS_FMT:   the PEBS record format is not supported
 * @PTBTS_UNAVAIL_NOT_KERNEL: a user-space source, not the module's
 * @PTBTS_UNAVAIL_ERRATUM:    a CPU model whose BTS records may be wrong
 *                            (erratum AAJ122 and its kin)
 * @PTBTS_UNAVAIL_NO_CAP:     the caller has neither CAP_PERFMON nor
 *                            CAP_SYS_ADMIN (hardware records can carry
 *                            kernel addresses that nothing filters)
 * @PTBTS_UNAVAIL_PERF_BUSY:  perf uses BTS (or, for PEBS, a counter) on
 *                            a CPU
 * @PTBTS_UNAVAIL_NO_PMU:     (PEBS) CPUID leaf 0xA enumerates no
 *                            architectural PMU of version 2 or later with
 *                            a general-purpose counter
 * @PTBTS_UNAVAIL_LOCKDOWN:   the kernel is locked down against perf
 *                            (lockdown=confidentiality), as perf refuses
 *                            its own events then
 *
 * The hardware reasons are checked in the order: NOT_INTEL, NO_DS, BTS_OFF
 * (PEBS_OFF, NO_PMU, PEBS_FMT), ERRATUM, PTI, LOCKDOWN, NO_CAP, PERF_BUSY;
 * the first that applies is reported.
 */
enum ptbts_unavail {
	PTBTS_OK		= 0,
	PTBTS_UNAVAIL_NOT_BUILT	= 1,	/* this module was built without it */
	PTBTS_UNAVAIL_NOT_INTEL	= 2,
	PTBTS_UNAVAIL_NO_DS	= 3,	/* CPUID.1:EDX.DS clear */
	PTBTS_UNAVAIL_BTS_OFF	= 4,	/* MISC_ENABLE.BTS_UNAVAILABLE */
	PTBTS_UNAVAIL_PEBS_OFF	= 5,	/* MISC_ENABLE.PEBS_UNAVAILABLE */
	PTBTS_UNAVAIL_PTI	= 6,	/* page-table isolation is active */
	PTBTS_UNAVAIL_PEBS_FMT	= 7,	/* PEBS record format not supported */
	PTBTS_UNAVAIL_NOT_KERNEL = 8,	/* a user-space source */
	PTBTS_UNAVAIL_ERRATUM	= 9,	/* BTS 'from' erratum model */
	PTBTS_UNAVAIL_NO_CAP	= 10,	/* no CAP_PERFMON/CAP_SYS_ADMIN */
	PTBTS_UNAVAIL_PERF_BUSY	= 11,	/* perf holds BTS/PMU on a CPU */
	PTBTS_UNAVAIL_NO_PMU	= 12,	/* no architectural PMU v2 (PEBS) */
	PTBTS_UNAVAIL_LOCKDOWN	= 13,	/* kernel lockdown forbids perf */
};

/**
 * struct ptbts_config - attach one ptrace-stopped thread (%PTBTS_IOC_ATTACH)
 * @size:        sizeof(struct ptbts_config) as the caller knows it
 * @tid:         the thread; the caller must be its ptrace tracer
 * @source:      &enum ptbts_source, a KMOD source
 * @mode:        &enum ptbts_mode
 * @buffer:      address of the record buffer in the caller's memory,
 *               page-aligned
 * @buffer_size: bytes, a multiple of the page size; records fill
 *               floor(@buffer_size / 24) slots
 * @wakeup:      bytes of unread records that wake a waiter; 0 = half the
 *               buffer
 * @buffer2:     the second region (PEBS), or 0
 * @buffer2_size: bytes of the second region, or 0
 * @flags:       %PTBTS_CONFIG_* bits; others reserved, 0
 * @__reserved0: reserved, 0
 * @limit:       %PTBTS_MODE_BLOCK and %PTBTS_SOURCE_KMOD_STEP only (else
 *               0): the most records the thread writes since attach.  At
 *               the next it waits as for a full buffer, whatever the
 *               consumer acknowledges, in %PTBTS_STATE_HELD (ready).
 *               0: no limit
 * @__reserved:  reserved, 0
 * @pebs_event:  with %PTBTS_CONFIG_PEBS_EVENT (kmod-pebs only): the event
 *               PEBS samples, as IA32_PERFEVTSEL's event select (bits 0-7,
 *               not 0) and unit mask (bits 8-15); no other bit.  Else 0
 * @pebs_period: with %PTBTS_CONFIG_PEBS_EVENT: one PEBS record every
 *               @pebs_period events, 1 to %PTBTS_PEBS_PERIOD_MAX.  Else 0
 *
 * Without %PTBTS_CONFIG_PEBS_EVENT, kmod-pebs samples
 * %PTBTS_PEBS_EVENT_BRANCHES every %PTBTS_PEBS_PERIOD_DEFAULT events.
 */
struct ptbts_config {
	__u32 size;
	__u32 tid;
	__u32 source;
	__u32 mode;
	__u64 buffer;
	__u64 buffer_size;
	__u64 wakeup;
	__u64 buffer2;
	__u64 buffer2_size;
	__u32 flags;
	__u32 __reserved0;
	__u64 limit;
	__u64 __reserved[3];
	__u64 pebs_event;
	__u64 pebs_period;
};

/*
 * &struct ptbts_config.flags: @pebs_event and @pebs_period are given.  A
 * module that predates them refuses the flag (-EINVAL), as it refuses
 * every reserved bit.
 */
#define PTBTS_CONFIG_PEBS_EVENT		(1U << 0)

/* BR_INST_RETIRED.ALL_BRANCHES: event 0xc4, unit mask 0 (precise). */
#define PTBTS_PEBS_EVENT_BRANCHES	0x00c4ULL
#define PTBTS_PEBS_PERIOD_DEFAULT	1000ULL
/*
 * A counter written through its legacy MSR takes 32 bits, sign-extended:
 * -@pebs_period must be negative as a 32-bit number.
 */
#define PTBTS_PEBS_PERIOD_MAX		0x7fffffffULL

/**
 * struct ptbts_status - where the producer is (%PTBTS_IOC_STATUS, %PTBTS_IOC_WAIT)
 * @size:   sizeof(struct ptbts_status) as the caller knows it
 * @tid:    in: the thread asked about
 * @state:  &enum ptbts_state
 * @source: &enum ptbts_source
 * @head:   producer position: byte offset in the buffer where the next
 *          record will land
 * @wraps:  how many times @head went back to 0; with @head it gives the
 *          number of records ever written
 * @lost:   records that were not written (%PTBTS_MODE_STOP, or a fault)
 * @head2:  @head of the second region
 * @wraps2: @wraps of the second region
 * @timeout_ns: in, %PTBTS_IOC_WAIT only: how long to wait at most, in
 *          nanoseconds; 0 does not wait, %PTBTS_WAIT_FOREVER has no limit.
 *          WAIT writes it back as given, STATUS as 0
 * @__reserved: reserved, 0
 *
 * The consumer's position never leaves user space except through
 * %PTBTS_IOC_ACK; everything else about the records is in the buffer.
 *
 * %PTBTS_IOC_WAIT returns once the thread is ready: at least the config's
 * @wakeup bytes of records are unread (written since the last
 * %PTBTS_IOC_ACK), or the thread is not running (in a ptrace stop, exited,
 * detached).  Records are unread from attach until acknowledged, in every
 * mode; in %PTBTS_MODE_RING the oldest of them may have been overwritten.
 */
struct ptbts_status {
	__u32 size;
	__u32 tid;
	__u32 state;
	__u32 source;
	__u64 head;
	__u64 wraps;
	__u64 lost;
	__u64 head2;
	__u64 wraps2;
	__u64 timeout_ns;
	__u64 __reserved[2];
};

#define PTBTS_WAIT_FOREVER	(~0ULL)	/* &struct ptbts_status.timeout_ns */

/**
 * struct ptbts_ack - the consumer has read up to @tail (%PTBTS_IOC_ACK)
 * @size:  sizeof(struct ptbts_ack)
 * @tid:   the thread
 * @tail:  records consumed, as a count since attach (not a byte offset, so
 *         that it cannot be ambiguous across a wrap): at least the last
 *         value acknowledged, at most the number of records written
 *         (@head and @wraps of &struct ptbts_status)
 * @__reserved: reserved, 0
 *
 * Acknowledged records are free for the producer: in %PTBTS_MODE_BLOCK the
 * thread waits for them, in %PTBTS_MODE_STOP recording resumes (after a
 * %PTBTS_KIND_LOST marker) once there is room.  The wakeup threshold counts
 * from the last acknowledged record.
 */
struct ptbts_ack {
	__u32 size;
	__u32 tid;
	__u64 tail;
	__u64 __reserved[2];
};

/**
 * struct ptbts_caps - what this machine and module can do (%PTBTS_IOC_CAPS)
 * @size:             sizeof(struct ptbts_caps) as the caller knows it
 * @abi_version:      %PTBTS_ABI_VERSION of the module
 * @sources:          bit (1 << &enum ptbts_source) set for each usable source
 * @record_size:      bytes per record (24)
 * @unavail:          per source, an &enum ptbts_unavail (0 when usable)
 * @pebs_format:      IA32_PERF_CAPABILITIES.PEBS_FORMAT, or ~0 without PEBS
 * @pebs_record_size: bytes per PEBS record, or 0
 * @flags:            %PTBTS_CAPS_* bits
 * @percpu_unavail:   why the per-CPU (kernel and user) mode cannot record
 *                    here, an &enum ptbts_unavail (0 when it can)
 * @__pad:            0
 * @__reserved:       reserved, 0
 */
struct ptbts_caps {
	__u32 size;
	__u32 abi_version;
	__u32 sources;
	__u32 record_size;
	__u8  unavail[PTBTS_SOURCE_MAX];
	__u32 pebs_format;
	__u32 pebs_record_size;
	__u32 flags;
	__u8  percpu_unavail;
	__u8  __pad[3];
	__u64 __reserved[3];
};

/*
 * &struct ptbts_caps.flags: the hardware sources (kmod-bts, kmod-pebs, the
 * per-CPU mode) have not run on a real CPU with BTS; their logic is tested
 * against a simulated CPU and an emulated one (QEMU) only.
 */
#define PTBTS_CAPS_HW_UNVERIFIED	(1U << 0)

/**
 * struct ptbts_percpu_config - start the per-CPU mode (%PTBTS_IOC_PERCPU_START)
 * @size:        sizeof(struct ptbts_percpu_config) as the caller knows it
 * @mode:        %PTBTS_MODE_RING or %PTBTS_MODE_STOP (a CPU cannot be
 *               made to wait for a reader: no %PTBTS_MODE_BLOCK)
 * @cpu_mask:    address of the CPUs to record on, in the caller's memory:
 *               an array of __u64 where bit (n % 64) of element (n / 64)
 *               is CPU n; at least one set, each a possible CPU (below
 *               the kernel's nr_cpu_ids); those offline now join when they
 *               come online
 * @buffer_size: bytes of the kernel buffer of each CPU, a multiple of the
 *               page size, at most %PTBTS_PERCPU_BUFFER_MAX; it holds
 *               floor(@buffer_size / 24) records
 * @flags:       reserved, 0
 * @unavail:     out: when the start is refused because the mode cannot
 *               record here (-EOPNOTSUPP, -EPERM), the &enum ptbts_unavail
 *               reason, the first in the header's order; else 0 (its value
 *               on input is ignored)
 * @cpu_mask_size: bytes at @cpu_mask, a multiple of 8, from 8 to
 *               %PTBTS_CPU_MASK_MAX (a mask may be longer than the
 *               machine's CPUs, its bits past them zero)
 * @__reserved0: reserved, 0
 * @__reserved:  reserved, 0
 *
 * The per-CPU mode records kernel and user branches of everything that
 * runs on the CPUs into buffers the module allocates, one per CPU: the one
 * place where kernel buffers are used, and the one where records carry
 * kernel addresses, so it needs CAP_PERFMON or CAP_SYS_ADMIN.  The session
 * maps each CPU's buffer read-only with mmap() of the session fd, at the
 * offset that %PTBTS_IOC_PERCPU_STATUS gives (CPU n's buffer starts at
 * n * @buffer_size); a writable mapping is refused (-EPERM) and a
 * read-only one cannot be made writable.  The buffers live until the next
 * start or the session's close (a mapping keeps its pages until unmapped).
 */
struct ptbts_percpu_config {
	__u32 size;
	__u32 mode;
	__u64 cpu_mask;
	__u64 buffer_size;
	__u32 flags;
	__u32 unavail;
	__u32 cpu_mask_size;
	__u32 __reserved0;
	__u64 __reserved[3];
};

#define PTBTS_PERCPU_BUFFER_MAX	(64ULL << 20)	/* bytes per CPU */
#define PTBTS_CPU_MASK_MAX	4096	/* bytes: 32768 CPUs */

/**
 * enum ptbts_percpu_state - one CPU of the per-CPU mode
 * @PTBTS_PERCPU_OFF:       not asked for, or no per-CPU mode was started
 * @PTBTS_PERCPU_RECORDING: recording
 * @PTBTS_PERCPU_WAITING:   asked for, offline since the start: it joins
 *                          when it comes online
 * @PTBTS_PERCPU_LEFT:      went offline while recording: its records up to
 *                          then are in its buffer, which stays readable;
 *                          when it comes online it records again (state
 *                          RECORDING), after a %PTBTS_KIND_GAP marker
 *                          (%PTBTS_GAP_UNKNOWN): its reset in between
 *                          was not recorded
 * @PTBTS_PERCPU_FAILED:    came online and could not join (no memory,
 *                          another user of BTS on it)
 * @PTBTS_PERCPU_STOPPED:   recorded until %PTBTS_IOC_PERCPU_STOP
 */
enum ptbts_percpu_state {
	PTBTS_PERCPU_OFF	= 0,
	PTBTS_PERCPU_RECORDING	= 1,
	PTBTS_PERCPU_WAITING	= 2,
	PTBTS_PERCPU_LEFT	= 3,
	PTBTS_PERCPU_FAILED	= 4,
	PTBTS_PERCPU_STOPPED	= 5,
};

/**
 * struct ptbts_percpu_status - one CPU's position (%PTBTS_IOC_PERCPU_STATUS)
 * @size:        sizeof(struct ptbts_percpu_status) as the caller knows it
 * @cpu:         in: the CPU asked about
 * @state:       &enum ptbts_percpu_state
 * @__pad:       0
 * @head:        byte offset in the CPU's buffer where the next record
 *               will land (what the hardware stored up to the call)
 * @wraps:       how many times @head went back to 0
 * @lost:        records not written (%PTBTS_MODE_STOP once full)
 * @offset:      the mmap() offset of the CPU's buffer
 * @buffer_size: its bytes (0 while it has none)
 * @__reserved:  reserved, 0
 */
struct ptbts_percpu_status {
	__u32 size;
	__u32 cpu;
	__u32 state;
	__u32 __pad;
	__u64 head;
	__u64 wraps;
	__u64 lost;
	__u64 offset;
	__u64 buffer_size;
	__u64 __reserved[2];
};

/*
 * The smallest @size the kernel takes for each struct: a caller's struct is
 * never smaller than its first version (shorter sizes are -EINVAL, sizes
 * past a page -E2BIG).  Fields beyond a caller's @size read as zero.
 */
#define PTBTS_CONFIG_SIZE_VER0	40	/* up to @wakeup */
#define PTBTS_STATUS_SIZE_VER0	40	/* up to @lost */
#define PTBTS_ACK_SIZE_VER0	16	/* up to @tail */
#define PTBTS_CAPS_SIZE_VER0	8	/* up to @abi_version */
#define PTBTS_PERCPU_CONFIG_SIZE_VER0	64	/* the whole first version */
#define PTBTS_PERCPU_STATUS_SIZE_VER0	56	/* up to @buffer_size */

/**
 * struct ptbts_hdr - how every struct an ioctl passes begins
 * @size: the whole struct's size as the caller knows it
 *
 * The ioctl numbers are _IOW() or _IOWR() of this header: they say which
 * way the struct goes and stay fixed as the struct grows, its size
 * travelling inside it.
 */
struct ptbts_hdr {
	__u32 size;
};

/*
 * ioctls on a session fd from open(PTBTS_DEVICE).
 *
 * The session belongs to the process that opened the device: other
 * processes (a child that inherited the fd) get -EPERM for all but CAPS.
 * Errors, beyond -EFAULT and the size rules above:
 *   ATTACH  -EINVAL  a reserved field or flag set, unknown mode or source,
 *                    buffer not page-aligned or empty or its end overflows,
 *                    a second region the source does not fill, wakeup
 *                    beyond the buffer
 *           -EOPNOTSUPP  a module source that cannot record here; a buffer
 *                    that maps a file (other than a memfd / shmem) or a device
 *           -ESRCH   no such thread, or it is exiting (its
 *                    PTRACE_EVENT_EXIT stop included)
 *           -EPERM   the caller is not the thread's ptrace tracer; or
 *                    kmod-bts/kmod-pebs without CAP_PERFMON or
 *                    CAP_SYS_ADMIN (the hardware's records can carry
 *                    kernel addresses, which nothing filters), or with
 *                    the kernel locked down against perf
 *           -EBUSY   the thread is not in a ptrace stop; kmod-pebs while
 *                    perf holds the performance counters
 *           -EEXIST  the thread is attached already (to any session)
 *           -EFAULT  part of the buffer is not mapped, or beyond user space
 *           -EACCES  part of the buffer is not writable
 *           -ENOMEM  past RLIMIT_MEMLOCK (without CAP_IPC_LOCK): every
 *                    buffer of every session of the caller's user is
 *                    charged to that user (shown in the caller's VmPin),
 *                    checked before anything is allocated
 *   DETACH, STATUS, WAIT, ACK  -ESRCH  the session holds no such thread
 *   STATUS, WAIT  -EINVAL  a reserved field set (the output fields and,
 *                    for STATUS, @timeout_ns are ignored on input)
 *           -E2BIG   a struct larger than the module's whose tail is not 0
 *   WAIT    -ETIMEDOUT  the timeout passed and the thread is not ready (the
 *                    struct is not written)
 *           -EINTR   a signal arrived first
 *   ACK     -EINVAL  a reserved field set, @tail below the last one or
 *                    beyond the records written
 *   PERCPU_START  -EINVAL  a reserved field or flag set, a mode other than
 *                    RING or STOP, a CPU mask size that is not a whole
 *                    number of __u64 from 8 to PTBTS_CPU_MASK_MAX, no CPU
 *                    or one that is not possible, a buffer size that is
 *                    0, not whole pages or too big
 *           -EFAULT  the CPU mask is not readable
 *           -EOPNOTSUPP  the mode cannot record here (@unavail says why);
 *                    or a CPU numbered 64 or more, which this module does
 *                    not record on (@unavail 0)
 *           -EPERM   no CAP_PERFMON or CAP_SYS_ADMIN (@unavail NO_CAP), or
 *                    the kernel locked down against perf (LOCKDOWN)
 *           -EBUSY   the session's per-CPU mode runs already, or a buffer
 *                    of its last run is still mapped (munmap() it first);
 *                    or another user of BTS on a CPU (nothing is left
 *                    started)
 *           -ENODEV  none of the CPUs is online
 *           -ENOMEM  a CPU's buffer could not be allocated, or the
 *                    buffers would pass the caller's RLIMIT_MEMLOCK
 *                    (without CAP_IPC_LOCK): they are charged as
 *                    ATTACH's buffers are, one limit for both, until
 *                    freed; nothing is left allocated or charged (a
 *                    CPU that joins later past the limit is FAILED)
 *           -EIO     an MSR faulted on a CPU (nothing is left started)
 *   PERCPU_STOP  -ENODEV  the per-CPU mode is not running
 *   PERCPU_STATUS  -EINVAL  a reserved field set, a CPU that is not below
 *                    nr_cpu_ids (a CPU from 64 on is always OFF)
 *           -ENODEV  no per-CPU mode was started in this session
 *   mmap()  -EPERM   a writable mapping (PROT_WRITE)
 *           -EINVAL  not a whole part of one CPU's buffer
 *           -ENODEV  no buffer at that offset
 *
 * Ending an attachment (DETACH, close(), the tracer's exit) never waits
 * for the traced thread: not for one in a ptrace stop, a group stop or an
 * uninterruptible sleep.  What a tracer may rely on: when the call
 * returns, nothing more is written into the buffer and the buffer is
 * released.  A trap flag kmod-step set is taken back at once from a thread
 * in a ptrace stop, else by the thread itself before it next returns to
 * user mode (a sleeping thread is woken for it, and goes back to sleep);
 * kmod-bts and kmod-pebs stop the hardware at once on every CPU, and the
 * thread unhooks itself from the scheduler the same way.  Until each such
 * thread did so, the module stays in use: unloading it fails with EBUSY
 * (EAGAIN from delete_module()) instead of waiting for user space.
 *
 * poll() on the session fd: EPOLLIN while any attached thread is ready as
 * for WAIT.  It wakes when a thread's unread records reach its threshold,
 * when a thread enters a ptrace stop (the module listens where waitpid()
 * sleeps) and when a thread exits or is detached.
 */
/* 0xBD: no other user in Documentation/userspace-api/ioctl/ioctl-number.rst. */
/*
 * The argument of each, after its &struct ptbts_hdr: CAPS a &struct
 * ptbts_caps, ATTACH a &struct ptbts_config, STATUS and WAIT a &struct
 * ptbts_status, ACK a &struct ptbts_ack, PERCPU_START a &struct
 * ptbts_percpu_config, PERCPU_STATUS a &struct ptbts_percpu_status.
 * DETACH takes a __u32 tid by value, PERCPU_STOP no argument.
 */
#define PTBTS_IOC_MAGIC		0xBD
#define PTBTS_IOC_CAPS		_IOWR(PTBTS_IOC_MAGIC, 0x00, struct ptbts_hdr)
#define PTBTS_IOC_ATTACH	_IOW(PTBTS_IOC_MAGIC, 0x01, struct ptbts_hdr)
#define PTBTS_IOC_DETACH	_IO(PTBTS_IOC_MAGIC, 0x02)
#define PTBTS_IOC_STATUS	_IOWR(PTBTS_IOC_MAGIC, 0x03, struct ptbts_hdr)
#define PTBTS_IOC_WAIT		_IOWR(PTBTS_IOC_MAGIC, 0x04, struct ptbts_hdr)
#define PTBTS_IOC_ACK		_IOW(PTBTS_IOC_MAGIC, 0x05, struct ptbts_hdr)
#define PTBTS_IOC_PERCPU_START	_IOWR(PTBTS_IOC_MAGIC, 0x06, struct ptbts_hdr)
#define PTBTS_IOC_PERCPU_STOP	_IO(PTBTS_IOC_MAGIC, 0x07)
#define PTBTS_IOC_PERCPU_STATUS	_IOWR(PTBTS_IOC_MAGIC, 0x08, struct ptbts_hdr)

#endif /* _UAPI_LINUX_PTRACE_BTS_H */
