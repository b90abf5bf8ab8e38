// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Bounds of a recording: a number of record bytes (max_size) and a time
 * (duration_ms).  Reaching one cuts the recording the way
 * bts_session_stop() ends it, so the file is completed as usual, and the
 * reason is kept for bts_session_stats().
 *
 * The size bound is counted where records are made (or, for the module's,
 * where they are taken from its buffer), so that the trace
 * holds exactly max_size / 24 of them whatever the ring mode and buffer
 * size.  kmod-step's BLOCK-mode threads are given what is left as their
 * limit (kmod_source.c): the module holds each at its record past it, as
 * the ptrace stop holds a ptrace-step thread, and says so (HELD).  The
 * time is looked at whenever the program stops (a traced program stops
 * constantly; btrace's own timer wakes an idle one).
 *
 * A spawned program dies at the cut: SIGKILL goes out the moment the bound
 * is seen, while the thread that made the last record is still in its
 * ptrace stop (SIGKILL ends a stopped tracee without its running again),
 * and bts_resume() lets nothing run on once the session is stopping.  Not
 * one instruction of it runs unrecorded.
 */
#include <signal.h>
#include <time.h>

#include "session/session.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bts_limits_init(struct bts_session *s, uint64_t max_size,
		    uint64_t duration_ms)
{
	if (max_size && max_size < sizeof(struct ptbts_record))
		return bts_fail(BTS_E_INVAL, "a size bound of %llu bytes holds no record",
				(unsigned long long)max_size);
	if (duration_ms > 1000ull * 86400 * 365 * 100)
		return bts_fail(BTS_E_INVAL, "a duration of %llu ms is too long",
				(unsigned long long)duration_ms);
	s->max_records = max_size / sizeof(struct ptbts_record);
	s->deadline_ns = duration_ms ? now_ns() + duration_ms * 1000000u : 0;
	return 0;
}

/*
 * kmod-step's threads run on their own, not stopped at their last record:
 * at the time bound stop_session() stops them first, so that every record
 * they made is taken, then kills them where they stopped.
 */
bool bts_limits_stop_first(const struct bts_session *s)
{
	return s->cut == BTS_CUT_DURATION && s->source == PTBTS_SOURCE_KMOD_STEP;
}

static void cut(struct bts_session *s, int why)
{
	if (!s->cut)
		s->cut = why;
	s->stop = 1;
	if (s->spawned && !bts_limits_stop_first(s)) {
		kill(s->pid, SIGKILL);
		bts_procs_kill(s);
		bts_fork_kill_shadows(s);
	}
}

size_t bts_limits_take(struct bts_session *s, size_t n)
{
	size_t left;

	if (!s->max_records)
		return n;
	left = bts_limits_left(s);
	if (n > left) {
		cut(s, BTS_CUT_MAX_SIZE);
		n = left;
	}
	s->emitted += n;
	return n;
}

uint64_t bts_limits_left(const struct bts_session *s)
{
	return s->emitted < s->max_records ? s->max_records - s->emitted : 0;
}

void bts_limits_passed(struct bts_session *s)
{
	if (s->max_records)
		cut(s, BTS_CUT_MAX_SIZE);
}

bool bts_limits_record(struct bts_session *s)
{
	return bts_limits_take(s, 1) == 1;
}

void bts_limits_check(struct bts_session *s)
{
	if (s->deadline_ns && !s->cut && now_ns() >= s->deadline_ns)
		cut(s, BTS_CUT_DURATION);
}
