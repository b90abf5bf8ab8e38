// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The per-CPU (kernel and user) mode's state machine: which CPUs of a
 * session record, as the session starts and stops and CPUs come and go.
 *
 *  - start: every wanted online CPU begins recording, or none does: a CPU
 *    that fails (an MSR that faults, someone else's BTS already on) makes
 *    every CPU started so far stop again, which gives each its DS area and
 *    DEBUGCTL back, so a failed start leaves the machine as it found it;
 *  - a wanted CPU coming online while the session runs joins it; one that
 *    cannot is remembered in @failed and the others go on;
 *  - a CPU going offline flushes (its records are taken in) and leaves;
 *  - stop ends recording on every CPU still in.
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

/**
 * ds_percpu_start() - every wanted online CPU records, or none
 * @s:      the session, not running
 * @online: the CPUs online now (the caller holds hotplug off)
 *
 * Return: 0; -EBUSY when running already; -ENODEV when no wanted CPU is
 * online; the first CPU's error, everything rolled back.
 */
int ds_percpu_start(struct ds_percpu *s, u64 online)
{
	u64 todo = s->want & online;
	unsigned int cpu;
	int err;

	if (s->running)
		return -EBUSY;
	if (!todo)
		return -ENODEV;
	for (cpu = 0; cpu < DS_PERCPU_MAX; cpu++) {
		if (!(todo & ds_bit(cpu)))
			continue;
		err = s->ops->start(s->ops->ctx, cpu);
		if (err) {
			ds_percpu_stop(s);
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
 * ds_percpu_online() - a CPU came online
 * @s:   the session
 * @cpu: the CPU
 *
 * Return: 0 (joined, or not wanted, or the session is not running), or
 * the CPU's error (it stays out, in @failed).
 */
int ds_percpu_online(struct ds_percpu *s, unsigned int cpu)
{
	int err;

	if (!s->running || !(s->want & ds_bit(cpu)) || (s->on & ds_bit(cpu)))
		return 0;
	err = s->ops->start(s->ops->ctx, cpu);
	if (err) {
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
 */
void ds_percpu_offline(struct ds_percpu *s, unsigned int cpu)
{
	if (!(s->on & ds_bit(cpu)))
		return;
	s->ops->stop(s->ops->ctx, cpu);
	s->on &= ~ds_bit(cpu);
	s->left |= ds_bit(cpu);
}
