// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A recording reaches its file at least once a second, not only when a
 * ring fills or the session ends: a tracer killed with SIGKILL cannot
 * complete the file, and what it wrote before is all that is left
 * (readable with bts_trace_new_incomplete()).  A RING-mode thread keeps
 * its newest records until the end, and a STOP-mode thread its oldest
 * ring-full (a drain would make room for more), as those modes promise,
 * so only BLOCK-mode rings are drained here.
 */
#include <time.h>

#include "session/session.h"
#include "trace/trace_format.h"

#define SYNC_EVERY_NS	1000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

void bts_session_sync_due(struct bts_session *s)
{
	uint64_t now;

	if (!s->w)
		return;
	now = now_ns();
	if (now < s->sync_ns)
		return;
	s->sync_ns = now + SYNC_EVERY_NS;
	for (size_t i = 0; i < s->nthreads; i++) {
		struct bts_thread *t = s->threads[i];

		if (!t->shadow && t->ring.mode == PTBTS_MODE_BLOCK)
			bts_thread_drain(s, t);
	}
	bts_note_err(s, bts_writer_sync(s->w));
}
