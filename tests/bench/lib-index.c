// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Index benchmark, on synthetic traces made from a recorded one (as
 * lib-decode.c makes them) of N / 10 and N records (default 10 million):
 *
 *	build	`btrace index FILE`: the CPU seconds of the whole run and
 *		its peak memory
 *	goto	what replay's goto does at 10 random instructions (a fixed
 *		seed): seek a decoder through the file's index and decode
 *		the 65536-instruction window around it, in ms (median and
 *		worst), and the same without the index (from the start)
 *		at the first of them
 *	replay	`btrace replay -x SCRIPT` with the 10 gotos and, at each,
 *		bt, reverse-stepi, reverse-next, reverse-finish, finish and
 *		next: each command's CPU time (median and worst, as replay
 *		says with BTRACE_REPLAY_DECODED) and the most instructions
 *		it decoded; replay's peak memory at both scales and their
 *		ratio (memory bounded by the window: 1.00x)
 *
 * Usage: lib-index SOURCE.btr BTRACE OUTDIR [N]
 * Exits non-zero when a phase failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bts.h>

#include "../synth/synth_trace.h"

#define POINTS 10
#define WINDOW 65536

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Runs @argv with stdout to @out and stderr to @err (NULL: /dev/null): 0
 * and *cpu, *rss.
 */
static int run(char *const argv[], const char *out, const char *err,
	       double *cpu, long *rss)
{
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (!freopen(out ? out : "/dev/null", "w", stdout) ||
		    !freopen(err ? err : "/dev/null", "w", stderr))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	*cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	*rss = ru.ru_maxrss;
	return 0;
}

/* 10 instruction numbers in 1..@n, the same on every run. */
static void pick(uint64_t n, uint64_t *v)
{
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < POINTS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = 1 + x % n;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Seconds to put @d before @at (NULL @ix: from the start) and decode a window. */
static double window_at(struct bts_insn_decoder *d, const struct bts_index *ix,
			uint64_t at)
{
	uint64_t lo = at > WINDOW / 2 ? at - WINDOW / 2 : 1;
	struct bts_insn_entry e;
	double t0 = now();

	if (ix && bts_insn_decoder_seek(d, ix, lo))
		return -1;
	while (bts_insn_next(d, &e, sizeof(e)) > 0 && e.index < lo + WINDOW)
		;
	return now() - t0;
}

static int gotos(const char *path, const uint64_t *at)
{
	struct bts_insn_decoder *d;
	struct bts_index *ix;
	struct bts_trace *t;
	double ms[POINTS], plain;

	if (bts_trace_new(path, &t) || bts_index_new(t, 0, NULL, &ix) ||
	    !bts_index_from_file(ix) || bts_insn_decoder_new(t, 0, NULL, &d))
		return -1;
	for (int i = 0; i < POINTS; i++)
		ms[i] = window_at(d, ix, at[i]) * 1e3;
	bts_insn_decoder_free(d);
	if (bts_insn_decoder_new(t, 0, NULL, &d))
		return -1;
	plain = window_at(d, NULL, at[0]) * 1e3;
	bts_insn_decoder_free(d);
	bts_index_free(ix);
	bts_trace_free(t);
	printf("goto     at %d random instructions, a %d-instruction window: "
	       "first %.1f ms", POINTS, WINDOW, ms[0]);
	qsort(ms, POINTS, sizeof(ms[0]), cmp_double);
	printf(", median %.1f ms, worst %.1f ms; without the index (from the "
	       "start) the first: %.1f ms\n", (ms[4] + ms[5]) / 2, ms[POINTS - 1],
	       plain);
	return 0;
}

/* What replay is asked at each point, after the goto. */
static const char *const cmds[] = {
	"goto", "bt", "reverse-stepi", "reverse-next", "reverse-finish",
	"finish", "next",
};
#define NCMDS (int)(sizeof(cmds) / sizeof(cmds[0]))

/*
 * Each command's CPU time at the points, from what replay said on stderr
 * (BTRACE_REPLAY_DECODED): the median and the worst, and what it decoded.
 */
static int command_times(const char *err)
{
	double ms[NCMDS][POINTS], x;
	unsigned long long d, last = 0, most[NCMDS] = { 0 };
	char line[256];
	int n = 0;
	FILE *f = fopen(err, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < NCMDS * POINTS)
		if (sscanf(line, "decoded %llu in %lf ms cpu", &d, &x) == 2) {
			ms[n % NCMDS][n / NCMDS] = x;
			if (d - last > most[n % NCMDS])
				most[n % NCMDS] = d - last;
			last = d;
			n++;
		}
	fclose(f);
	if (n != NCMDS * POINTS)
		return -1;
	for (int c = 0; c < NCMDS; c++) {
		qsort(ms[c], POINTS, sizeof(ms[c][0]), cmp_double);
		printf("replay   %-15s median %7.2f ms, worst %7.2f ms cpu (target: "
		       "under 100 ms), at most %llu instructions decoded\n", cmds[c],
		       (ms[c][4] + ms[c][5]) / 2, ms[c][POINTS - 1], most[c]);
	}
	return 0;
}

/* The history's length: from the file's index. */
static uint64_t entries(const char *path)
{
	struct bts_trace *t;
	struct bts_index *ix;
	uint64_t n = 0;

	if (bts_trace_new(path, &t))
		return 0;
	if (!bts_index_new(t, 0, NULL, &ix))
		n = bts_index_entries(ix);
	bts_index_free(ix);
	bts_trace_free(t);
	return n;
}

/* btrace index, the gotos, and replay's peak at @path: 0, or -1 said. */
static int scale(const char *btrace, const char *dir, const char *path,
		 uint64_t records, long *replay_rss)
{
	char script[4096], err[4096], *argv[8];
	uint64_t n, at[POINTS];
	double cpu;
	long rss;
	FILE *f;
	int ret;

	argv[0] = (char *)btrace;
	argv[1] = "index";
	argv[2] = (char *)path;
	argv[3] = NULL;
	if (run(argv, NULL, NULL, &cpu, &rss)) {
		printf("build    failed\n");
		return -1;
	}
	n = entries(path);
	printf("build    %12" PRIu64 " records %12" PRIu64 " insns: btrace index "
	       "%.2f s cpu (%.1f M insns/s), peak %ld KiB\n", records, n, cpu,
	       n / cpu / 1e6, rss);
	pick(n, at);
	if (gotos(path, at)) {
		printf("goto     failed\n");
		return -1;
	}
	snprintf(script, sizeof(script), "%s/goto.script", dir);
	snprintf(err, sizeof(err), "%s/goto.err", dir);
	f = fopen(script, "w");
	if (!f)
		return -1;
	for (int i = 0; i < POINTS; i++) {
		fprintf(f, "goto %" PRIu64 "\n", at[i]);
		for (int c = 1; c < NCMDS; c++)
			fprintf(f, "%s\n", cmds[c]);
	}
	fclose(f);
	argv[1] = "replay";
	argv[2] = "-x";
	argv[3] = script;
	argv[4] = (char *)path;
	argv[5] = NULL;
	setenv("BTRACE_REPLAY_DECODED", "1", 1);
	ret = run(argv, NULL, err, &cpu, replay_rss);
	unsetenv("BTRACE_REPLAY_DECODED");
	if (ret || command_times(err)) {
		printf("replay   failed\n");
		return -1;
	}
	unlink(script);
	unlink(err);
	printf("replay   %d points: %.2f s cpu in all (the loading pass over the "
	       "history included), peak %ld KiB\n", POINTS, cpu, *replay_rss);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 4 ? strtoull(argv[4], NULL, 10) : 10000000;
	char path[4096], small[4096];
	struct bts_trace *src;
	long big_rss, small_rss;

	if (argc < 4) {
		fprintf(stderr, "usage: lib-index SOURCE.btr BTRACE OUTDIR [N]\n");
		return 2;
	}
	if (bts_trace_new(argv[1], &src)) {
		fprintf(stderr, "lib-index: %s: %s\n", argv[1], bts_errdetail());
		return 1;
	}
	snprintf(path, sizeof(path), "%s/index-bench.btr", argv[3]);
	snprintf(small, sizeof(small), "%s/index-bench-small.btr", argv[3]);
	if (synth_trace_write(src, small, want / 10) < 0 ||
	    synth_trace_write(src, path, want) < 0) {
		bts_trace_free(src);
		return 1;
	}
	bts_trace_free(src);
	if (scale(argv[2], argv[3], small, want / 10, &small_rss) ||
	    scale(argv[2], argv[3], path, want, &big_rss))
		return 1;
	printf("replay peak at %" PRIu64 " records / at %" PRIu64 ": %.2fx "
	       "(bounded by the window: 1.00x)\n", want, want / 10,
	       (double)big_rss / small_rss);
	return 0;
}
