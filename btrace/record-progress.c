// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The progress line of btrace record, as curl's or rsync's: one line on
 * stderr, rewritten in place four times a second by a thread of its own
 * (the recording thread is inside bts_session_run(), which may wait on
 * the program for any time).  The thread only reads the session's
 * counters (bts_session_stats() allows that) and blocks every signal, so
 * the signals btrace record catches still reach the recording thread.
 *
 * The same thread says once, on a line of its own, when a ptrace-step
 * recording has stayed slow for a few seconds, that the qemu-user source
 * records the same branches under emulation, far faster.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <bts.h>

#include "record-progress.h"

#define PERIOD_MS	250
/* ptrace-step under this rate for this long: the hint. */
#define SLOW_RATE	1e6
#define SLOW_AFTER_S	3.0

static struct {
	struct bts_session *s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	bool running, done, colour, hint, hinted;
	struct timespec start;
} pr = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done_cond = PTHREAD_COND_INITIALIZER,
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* 1234567 as "1.23M": the line must stay short. */
static void human(double v, char *buf, size_t len)
{
	static const char units[] = " kMGT";
	int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.*f%c", v < 10 ? 2 : v < 100 ? 1 : 0, v,
			 units[u]);
	else
		snprintf(buf, len, "%.0f", v);
}

static void show(const struct bts_session_stats *st, double t)
{
	char recs[16], rate[16], size[16];

	human(st->records, recs, sizeof(recs));
	human(t > 0 ? st->records / t : 0, rate, sizeof(rate));
	human(st->records * (double)sizeof(struct ptbts_record), size,
	      sizeof(size));
	/* \r and erase-to-end: a shorter line leaves nothing behind. */
	fprintf(stderr, "\r\033[Kbtrace: %.1fs, %s records (%s/s, %sB), "
		"%" PRIu64 " thread%s", t, recs, rate, size, st->threads,
		st->threads == 1 ? "" : "s");
	if (st->lost)
		fprintf(stderr, ", %s%" PRIu64 " lost%s",
			pr.colour ? "\033[1;31m" : "", st->lost,
			pr.colour ? "\033[0m" : "");
	fflush(stderr);
}

/*
 * ptrace-step stops the program at every instruction; qemu-user runs it
 * translated, at a few times native speed, but as QEMU's CPU model.  The
 * line replaces the progress line, which goes on below it.
 */
static void hint_if_slow(const struct bts_session_stats *st, double t)
{
	char rate[16];

	if (!pr.hint || pr.hinted || st->source != PTBTS_SOURCE_PTRACE_STEP ||
	    t < SLOW_AFTER_S || st->records / t >= SLOW_RATE)
		return;
	pr.hinted = true;
	human(st->records / t, rate, sizeof(rate));
	fprintf(stderr, "\r\033[Kbtrace: ptrace-step stops at every instruction "
		"(%s branches/s): --source qemu-user records under emulation, "
		"far faster, but the program sees QEMU's CPU model\n", rate);
}

static void *progress_thread(void *arg)
{
	struct timespec until;

	(void)arg;
	pthread_mutex_lock(&pr.lock);
	while (!pr.done) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PERIOD_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pr.done_cond, &pr.lock, &until);
		if (!pr.done) {
			struct bts_session_stats st;
			double t = seconds_since(&pr.start);

			bts_session_stats(pr.s, &st, sizeof(st));
			hint_if_slow(&st, t);
			show(&st, t);
		}
	}
	pthread_mutex_unlock(&pr.lock);
	return NULL;
}

void record_progress_start(struct bts_session *s, enum progress_mode mode,
			   bool hint)
{
	sigset_t all, old;
	bool tty = isatty(STDERR_FILENO);

	if (mode == PROGRESS_OFF || (mode == PROGRESS_AUTO && !tty))
		return;
	pr.s = s;
	pr.colour = tty;
	pr.hint = hint;
	pr.hinted = false;
	pr.done = false;
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* No thread, no line: the recording itself goes on. */
	pr.running = !pthread_create(&pr.thread, NULL, progress_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void record_progress_stop(void)
{
	if (!pr.running)
		return;
	pthread_mutex_lock(&pr.lock);
	pr.done = true;
	pthread_cond_signal(&pr.done_cond);
	pthread_mutex_unlock(&pr.lock);
	pthread_join(pr.thread, NULL);
	pr.running = false;
	fputs("\r\033[K", stderr);
	fflush(stderr);
}
