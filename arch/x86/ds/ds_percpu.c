// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The per-CPU (kernel and user) mode's state machine: which CPUs of a
 * session record, as the session starts and stops and CPUs come and go.
 *
 *  - start: every wanted online CPU gets its region, then begins
 *    recording, or none does: a CPU that fails (no memory for its region,
 *    an MSR that faults, someone else's BTS already on) makes every CPU
 *    started so far stop again, which gives each its DS area and DEBUGCTL
 *    back, and every region allocated so far is released, so a failed
 *    start leaves the machine as it found it;
 *  - a wanted CPU coming online while the session runs gets its region
 *    (if it has none yet) and joins; one that cannot is remembered in
 *    @failed, keeps no region it got for the attempt, and the others go on;
 *  - a CPU going offline flushes (its records are taken in) and leaves; its
 *    region stays, with its records, until ds_percpu_release();
 *  - stop ends recording on every CPU still in; the regions stay readable
 *    until ds_percpu_release().
 *
 * All regions are allocated before any CPU starts: an allocation can
 * sleep and fail, a start runs on its CPU with interrupts off, and a
 * failure in the first phase then has nothing to stop.
 *
 * What starting and stopping one CPU means (ds_task_sched_in() and
 * ds_task_sched_out() on that CPU, over its own region) is the caller's:
 * the kernel runs it on the CPU concerned, the tests on a simulated one.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

#include "ds.h"

static u64 ds_bit(unsigned int cpu)
{
	return 1ULL << cpu;
}

/**
 * ds_percpu_init() - a session that records nowhere yet
 * @s:    the session
 * @ops:  how to start and stop one CPU
 * @want: the CPUs asked for (bit n: CPU n, n < %DS_PERCPU_MAX)
 */
void ds_percpu_init(struct ds_percpu *s, const struct ds_percpu_ops *ops,
		    u64 want)
{
	*s = (struct ds_percpu){ .ops = ops, .want = want };
}

/* @cpu gets its region unless it has one: 0 or the allocation's error. */
static int ds_percpu_alloc(struct ds_percpu *s, unsigned int cpu)
{
	int err;

	if (s->have & ds_bit(cpu))
		return 0;
	if (s->ops->alloc) {
		err = s->ops->alloc(s->ops->ctx, cpu);
		if (err)
			return err;
	}
	s->have |= ds_bit(cpu);
	return 0;
}

static void ds_percpu_free(struct ds_percpu *s, unsigned int cpu)
{
	if (!(s->have & ds_bit(cpu)))
		return;
	if (s->ops->release)
		s->ops->release(s->ops->ctx, cpu);
	s->have &= ~ds_bit(cpu);
}

/* Releases the regions of @mask, which none of is recording. */
static void ds_percpu_free_mask(struct ds_percpu *s, u64 mask)
{
	unsigned int cpu;

	for (cpu = 0; cpu < DS_PERCPU_MAX; cpu++)
		if (mask & ds_bit(cpu))
			ds_percpu_free(s, cpu);
}

/* Undoes a start that failed: stop what started, free what it allocated. */
static void ds_percpu_unwind(struct ds_percpu *s, u64 allocated)
{
	ds_percpu_stop(s);
	ds_percpu_free_mask(s, allocated);
}

/**
 * ds_percpu_start() - every wanted online CPU records, or none
 * @s:      the session, not running, its regions released
 * @online: the CPUs online now (the caller holds hotplug off)
 *
 * Return: 0; -EBUSY when running already (or a CPU's own -EBUSY: someone
 * else's BTS); -ENODEV when no wanted CPU is online; the first CPU's
 * error, everything rolled back: no CPU recording, no region allocated
 * by this call.
 */
int ds_percpu_start(struct ds_percpu *s, u64 online)
{
	u64 todo = s->want & online, allocated = 0;
	unsigned int cpu;
	int err;

	if (s->running)
		return -EBUSY;
	if (!todo)
		return -ENODEV;
	for (cpu = 0; cpu < DS_PERCPU_MAX; cpu++) {
		if (!(todo & ds_bit(cpu)) || (s->have & ds_bit(cpu)))
			continue;
		err = ds_percpu_alloc(s, cpu);
		if (err) {
			ds_percpu_free_mask(s, allocated);
			return err;
		}
		allocated |= ds_bit(cpu);
	}
	for (cpu = 0; cpu < DS_PERCPU_MAX; cpu++) {
		if (!(todo & ds_bit(cpu)))
			continue;
		err = s->ops->start(s->ops->ctx, cpu);
		if (err) {
			ds_percpu_unwind(s, allocated);
			return err;
		}
		s->on |= ds_bit(cpu);
	}
	s->left = 0;
	s->failed = 0;
	s->running = true;
	return 0;
}

/**
 * ds_percpu_stop() - every CPU still in stops (its records flushed)
 * @s: the session
 *
 * The regions stay, with their records, until ds_percpu_release().
 */
void ds_percpu_stop(struct ds_percpu *s)
{
	unsigned int cpu;

	for (cpu = 0; cpu < DS_PERCPU_MAX; cpu++)
		if (s->on & ds_bit(cpu))
			s->ops->stop(s->ops->ctx, cpu);
	s->on = 0;
	s->running = false;
}

/**
 * ds_percpu_release() - stop if running, then release every region
 * @s: the session
 */
void ds_percpu_release(struct ds_percpu *s)
{
	ds_percpu_stop(s);
	ds_percpu_free_mask(s, s->have);
}

/**
 * ds_percpu_online() - a CPU came online
 * @s:   the session
 * @cpu: the CPU
 *
 * Return: 0 (joined, or not wanted, or the session is not running), or
 * the CPU's error (it stays out, in @failed, with no region it got for
 * this attempt).
 */
int ds_percpu_online(struct ds_percpu *s, unsigned int cpu)
{
	bool had = s->have & ds_bit(cpu);
	int err;

	if (!s->running || !(s->want & ds_bit(cpu)) || (s->on & ds_bit(cpu)))
		return 0;
	err = ds_percpu_alloc(s, cpu);
	if (!err)
		err = s->ops->start(s->ops->ctx, cpu);
	if (err) {
		if (!had)
			ds_percpu_free(s, cpu);
		s->failed |= ds_bit(cpu);
		return err;
	}
	s->on |= ds_bit(cpu);
	s->left &= ~ds_bit(cpu);
	s->failed &= ~ds_bit(cpu);
	return 0;
}

/**
 * ds_percpu_offline() - a CPU goes offline: it flushes and leaves
 * @s:   the session
 * @cpu: the CPU, still able to run code
 *
 * Its region stays, with its records: the consumer still reads them.
 */
void ds_percpu_offline(struct ds_percpu *s, unsigned int cpu)
{
	if (!(s->on & ds_bit(cpu)))
		return;
	s->ops->stop(s->ops->ctx, cpu);
	s->on &= ~ds_bit(cpu);
	s->left |= ds_bit(cpu);
}
