// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --cpu, --skip, --max-size, --duration: parsed here and
 * handed to the session (libbts does the work; see bts.h, "placement,
 * filters, limits").
 *
 * --duration also arms a timer here: the session looks at the clock when
 * the program stops, and a program that sleeps does not stop; SIGALRM's
 * handler wakes the session as a stop request would (bts_session_stop is
 * async-signal-safe), and the session, finding its time up, says "cut".
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "btrace.h"
#include "record-speed.h"

const char *parse_cpu(const char *arg, void *value)
{
	static char why[80];
	struct record_speed *r = value;
	cpu_set_t allowed;
	char *end;
	long n;

	if (!strcmp(arg, "auto")) {
		r->cpu_placement = BTS_CPU_AUTO;
		return NULL;
	}
	if (!strcmp(arg, "none")) {
		r->cpu_placement = BTS_CPU_NONE;
		return NULL;
	}
	errno = 0;
	n = strtol(arg, &end, 10);
	if (!*arg || *end || errno || n < 0 || n >= CPU_SETSIZE)
		return "expected a CPU number, auto or none";
	if (!sched_getaffinity(0, sizeof(allowed), &allowed) &&
	    !CPU_ISSET((int)n, &allowed)) {
		snprintf(why, sizeof(why), "CPU %ld is not available here "
			 "(not in btrace's CPU affinity)", n);
		return why;
	}
	r->cpu_placement = BTS_CPU_PIN;
	r->cpu = (int)n;
	return NULL;
}

const char *parse_skip(const char *arg, void *value)
{
	struct record_speed *r = value;

	if (!*arg)
		return "expected an object name or glob (e.g. libc.so.6)";
	if (r->nskip == RECORD_SKIP_MAX)
		return "too many objects (at most 64 --skip options)";
	r->skip[r->nskip++] = arg;
	r->skip[r->nskip] = NULL;
	return NULL;
}

const char *parse_duration(const char *arg, void *value)
{
	uint64_t *ms = value;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!*arg || *end || errno || !(v > 0))
		return "expected a number of seconds greater than 0";
	if (v > 1e9)
		return "too long (at most 1000000000 seconds, about 31 years)";
	*ms = (uint64_t)(v * 1000);
	if (!*ms)
		*ms = 1;
	return NULL;
}

void record_speed_opts(const struct record_speed *r, struct bts_session_opts *so)
{
	so->cpu_placement = r->cpu_placement;
	so->cpu = r->cpu;
	so->skip = r->nskip ? r->skip : NULL;
	so->max_size = r->max_size;
	so->duration_ms = r->duration_ms;
}

static struct bts_session *volatile timed;

static void on_alarm(int sig)
{
	(void)sig;
	if (timed)
		bts_session_stop(timed);
}

void record_speed_arm(const struct record_speed *r, struct bts_session *s)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { 0 };

	if (!r->duration_ms)
		return;
	timed = s;
	/* No SA_RESTART: the session's waitpid() must return EINTR. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	it.it_value.tv_sec = (time_t)(r->duration_ms / 1000);
	it.it_value.tv_usec = (suseconds_t)(r->duration_ms % 1000) * 1000;
	/* Again every 100 ms: a stop request that raced the session is repeated. */
	it.it_interval.tv_usec = 100000;
	setitimer(ITIMER_REAL, &it, NULL);
}

const char *record_speed_cut(const struct bts_session_stats *st)
{
	switch (st->cut) {
	case BTS_CUT_MAX_SIZE:
		return "; cut at --max-size";
	case BTS_CUT_DURATION:
		return "; cut at --duration";
	default:
		return "";
	}
}

void record_speed_disarm(void)
{
	struct itimerval off = { 0 };

	timed = NULL;
	setitimer(ITIMER_REAL, &off, NULL);
}
