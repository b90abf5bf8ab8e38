// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Pending debugger events and queued resumes (control_events.h). */
#include <errno.h>
#include <stdlib.h>

#include <bts.h>

#include "control/control_events.h"
#include "util/array.h"

struct ctl_event *ctl_event_find(struct ctl_queues *q, pid_t tid)
{
	size_t i;

	for (i = 0; i < q->nev; i++)
		if (q->ev[i].tid == tid)
			return &q->ev[i];
	return NULL;
}

int ctl_event_add(struct ctl_queues *q, pid_t tid, int kind, int sig,
		  uint64_t pc)
{
	struct ctl_event *e;

	if (ctl_event_find(q, tid))
		return 0;
	if (BTS_ARRAY_RESERVE(q->ev, q->capev, q->nev + 1))
		return -ENOMEM;
	e = &q->ev[q->nev++];
	*e = (struct ctl_event){ .tid = tid, .kind = kind, .sig = sig,
				 .pc = pc, .seq = q->seq++, .due = true };
	return 0;
}

void ctl_event_drop(struct ctl_queues *q, pid_t tid)
{
	struct ctl_event *e = ctl_event_find(q, tid);

	if (e)
		*e = q->ev[--q->nev];
}

bool ctl_event_take(struct ctl_queues *q, struct ctl_event *out)
{
	struct ctl_event *best = NULL;
	size_t i;

	for (i = 0; i < q->nev; i++) {
		struct ctl_event *e = &q->ev[i];

		if (!e->due)
			continue;
		if (!best || (e->kind == BTS_STOP_STEP) > (best->kind == BTS_STOP_STEP) ||
		    ((e->kind == BTS_STOP_STEP) == (best->kind == BTS_STOP_STEP) &&
		     e->seq < best->seq))
			best = e;
	}
	if (!best)
		return false;
	*out = *best;
	ctl_event_drop(q, best->tid);
	return true;
}

void ctl_event_undue(struct ctl_queues *q)
{
	size_t i;

	for (i = 0; i < q->nev; i++)
		q->ev[i].due = false;
}

int ctl_resume_add(struct ctl_queues *q, pid_t tid, int action, int sig)
{
	size_t i;

	/* The last word on a thread counts (gdb names each thread once). */
	for (i = 0; i < q->nrs; i++)
		if (q->rs[i].tid == tid)
			break;
	if (i == q->nrs) {
		if (BTS_ARRAY_RESERVE(q->rs, q->caprs, q->nrs + 1))
			return -ENOMEM;
		q->nrs++;
	}
	q->rs[i] = (struct ctl_resume){ .tid = tid, .action = action, .sig = sig };
	return 0;
}

int ctl_inject_add(struct ctl_queues *q, pid_t tid, int sig)
{
	if (BTS_ARRAY_RESERVE(q->inj, q->capinj, q->ninj + 1))
		return -ENOMEM;
	q->inj[q->ninj++] = (struct ctl_resume){ .tid = tid, .sig = sig };
	return 0;
}

bool ctl_inject_take(struct ctl_queues *q, pid_t tid, int sig)
{
	size_t i;

	for (i = 0; i < q->ninj; i++) {
		if (q->inj[i].tid != tid || q->inj[i].sig != sig)
			continue;
		q->inj[i] = q->inj[--q->ninj];
		return true;
	}
	return false;
}

void ctl_queues_clear(struct ctl_queues *q)
{
	q->nev = 0;
	q->nrs = 0;
	q->ninj = 0;
}

void ctl_queues_free(struct ctl_queues *q)
{
	free(q->ev);
	free(q->rs);
	free(q->inj);
	q->ev = NULL;
	q->rs = NULL;
	q->inj = NULL;
	q->nev = q->capev = q->nrs = q->caprs = q->ninj = q->capinj = 0;
}
