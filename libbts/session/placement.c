// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Where the tracer and the program run.  A ptrace-step stop is a wakeup of
 * the tracer and then of the tracee; on one CPU each wakeup is a switch on
 * that CPU, across two CPUs an inter-processor wakeup that costs more and
 * varies more (1.1-1.8x here; make bench measures it).  So by default
 * (BTS_CPU_AUTO) a ptrace-step session pins the tracer thread and every
 * traced thread to the CPU the tracer runs on; BTS_CPU_PIN names the CPU,
 * BTS_CPU_NONE leaves affinities alone.  kmod-step stops rarely: it is not
 * placed.
 *
 * The program sees the one-CPU mask (sched_getaffinity, nproc) while it is
 * traced, and so do children it forks.  An attached process gets back the
 * mask it had when it is detached; the tracer gets its own back when the
 * session is freed.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "session/session.h"

static int pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set);
}

int bts_place_init(struct bts_session *s, int placement, int cpu)
{
	s->cpu = -1;
	switch (placement) {
	case BTS_CPU_NONE:
		return 0;
	case BTS_CPU_AUTO:
		if (!(s->ops->caps & BTS_SRC_PLACE))
			return 0;
		cpu = sched_getcpu();
		if (cpu < 0)
			return 0;	/* not known: leave it to the scheduler */
		break;
	case BTS_CPU_PIN:
		if (cpu < 0 || cpu >= CPU_SETSIZE)
			return bts_fail(BTS_E_INVAL, "CPU %d does not exist", cpu);
		if (!(s->ops->caps & BTS_SRC_PLACE))
			return 0;
		break;
	default:
		return bts_fail(BTS_E_INVAL, "unknown CPU placement %d", placement);
	}
	if (sched_getaffinity(0, sizeof(s->tracer_mask), &s->tracer_mask))
		return bts_fail_errno(BTS_E_INTERNAL, "sched_getaffinity");
	if (pin(0, cpu)) {
		if (placement == BTS_CPU_AUTO)
			return 0;
		return bts_fail(BTS_E_INVAL, "CPU %d is not available here", cpu);
	}
	s->placed = true;
	s->cpu = cpu;
	return 0;
}

void bts_place_thread(struct bts_session *s, pid_t tid)
{
	if (s->cpu < 0)
		return;
	if (!s->spawned && !s->prog_saved && tid == s->pid)
		s->prog_saved = sched_getaffinity(tid, sizeof(s->prog_mask),
						  &s->prog_mask) == 0;
	/* A thread that cannot be moved runs where it is: only slower. */
	pin(tid, s->cpu);
}

/* Every thread of an attached process gets its own mask back. */
static void give_back(struct bts_session *s)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			sched_setaffinity(atoi(e->d_name), sizeof(s->prog_mask),
					  &s->prog_mask);
	closedir(d);
}

void bts_place_release(struct bts_session *s)
{
	if (s->prog_saved) {
		give_back(s);
		s->prog_saved = false;
	}
	if (s->placed) {
		sched_setaffinity(0, sizeof(s->tracer_mask), &s->tracer_mask);
		s->placed = false;
	}
	s->cpu = -1;
}
