/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptrace_bts: the per-CPU (kernel and user) mode.  A privileged session
 * records every branch on a set of CPUs into kernel buffers, one per CPU,
 * which the tracer maps read-only.
 *
 *	percpu.c	the session's side: ioctls, mmap, the session's end
 *	percpu_hw.c	the CPUs' side: buffers, starting and stopping a
 *			CPU, the threshold PMI, CPU hotplug
 *
 * Which CPUs record as the session starts and stops and CPUs come and go
 * (all or none at the start, join, flush and leave) is the state machine
 * of arch/x86/ds/ds_percpu.c, tested against a simulated CPU.
 */
#ifndef PTBTS_PERCPU_H
#define PTBTS_PERCPU_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "hw.h"

/**
 * struct ptbts_pcpu - one CPU's buffer and DS state
 * @ds:       the DS state of its recording (one "thread" that is the CPU)
 * @buf:      the buffer, vmalloc_user() memory: mapped into the tracer
 * @nr_pages: its pages
 * @charged:  pages charged to the owner for it (percpu_hw.c)
 * @scratch:  the DS code's scratch records
 * @own_area: a DS area for when perf installed none on the CPU
 * @count:    records written, as of the last flush (status)
 * @lost:     records lost, the same
 */
struct ptbts_pcpu {
	struct ds_task ds;
	void *buf;
	unsigned long nr_pages;
	unsigned long charged;
	u8 *scratch;
	struct ds_area *own_area;
	u64 count;
	u64 lost;
};

/**
 * struct ptbts_percpu - a session's per-CPU mode
 * @node:  in the list the hotplug callbacks walk (ptbts_percpu_lock)
 * @st:    which CPUs have a buffer, record, left, failed
 * @ops:   @st's callbacks, with this object as their context
 * @mode:  %PTBTS_MODE_RING or %PTBTS_MODE_STOP
 * @size:  bytes of each CPU's buffer
 * @nmi:   holds a reference on the threshold PMI handler
 * @owner: who the buffers are charged to (charge.c), as of the last
 *         start; set at a start, while no buffer is held (@owner.user is
 *         NULL before the first)
 * @mapped: mappings of the buffers (vm_ops open and close, percpu.c)
 * @cpu:   the CPUs' buffers, NULL where none
 *
 * Everything is under ptbts_percpu_lock, taken inside cpus_read_lock()
 * (or a hotplug callback), and never held while user memory is touched:
 * mmap() takes it with the mm's lock held.
 */
struct ptbts_percpu {
	struct list_head node;
	struct ds_percpu st;
	struct ds_percpu_ops ops;
	u32 mode;
	u64 size;
	bool nmi;
	struct ptbts_owner owner;
	atomic_t mapped;
	struct ptbts_pcpu *cpu[DS_PERCPU_MAX];
};

extern struct mutex ptbts_percpu_lock;

/*
 * The test build's knobs (PTBTS_TEST_HOOKS=y, tests/kernel/kmod-test/):
 * the guest's tests drive the per-CPU mode on a CPU without BTS through a
 * per-CPU set of simulated MSRs, and make a CPU's allocation or start fail.  A
 * module built otherwise has none of it: these are constants.
 */
#ifdef PTBTS_TEST_HOOKS
const struct ds_ops *ptbts_percpu_test_ops(void);
int ptbts_percpu_test_alloc(unsigned int cpu);
int ptbts_percpu_test_start(unsigned int cpu);
#else
/* The CPU's own MSRs. */
static inline const struct ds_ops *ptbts_percpu_test_ops(void)
{
	return NULL;
}

/* No allocation is made to fail. */
static inline int ptbts_percpu_test_alloc(unsigned int cpu)
{
	return 0;
}

/* No start either. */
static inline int ptbts_percpu_test_start(unsigned int cpu)
{
	return 0;
}
#endif

/* percpu_hw.c */
void ptbts_percpu_ops_init(struct ptbts_percpu *p);
void ptbts_percpu_set_owner(struct ptbts_percpu *p);
int ptbts_percpu_nmi_get(void);
void ptbts_percpu_nmi_put(void);
void ptbts_percpu_flush(struct ptbts_percpu *p, unsigned int cpu);
void ptbts_percpu_add(struct ptbts_percpu *p);
void ptbts_percpu_del(struct ptbts_percpu *p);
int ptbts_percpu_hw_init(void);
void ptbts_percpu_hw_exit(void);
long ptbts_percpu_pages(void);

#endif /* PTBTS_PERCPU_H */
