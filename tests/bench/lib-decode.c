// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoder benchmark: a synthetic trace of N records (default 10 million)
 * over real code bytes, in the v1 file format, made from a recorded trace
 * of a real program: the longest stretch of its records that starts and
 * ends with the same record is a cycle the program could run again and
 * again, so repeating it gives a trace whose every block decodes.  Then,
 * each phase in a child of its own so that its peak memory is its own:
 *
 *	iterate	  every record through bts_rec_iter_next()	   records/s
 *	decode	  every instruction through bts_insn_next() insns/s
 *	calls	  btrace dump --calls > /dev/null	   lines/s
 *		  at N / 10 records and at N: the ratio of the peaks
 *
 * Usage: lib-decode SOURCE.btr BTRACE OUTDIR [N]
 * Prints one line per phase, rates over CPU time (the machine may be
 * shared; the targets are per core), the best of three runs for the
 * in-process phases; exits non-zero when a phase failed.
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

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* CPU time: on a shared machine, the measure of one core's work. */
static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "lib-decode: %s: %s (%s)\n", what, bts_errstr(err),
		bts_errdetail());
	exit(1);
}

static uint64_t iterate(const struct bts_trace *t)
{
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	uint64_t n = 0, sum = 0;

	if (bts_rec_iter_new(t, 0, &it))
		die("iterator", -BTS_E_NOMEM);
	while (bts_rec_iter_next(it, &rec) > 0) {
		sum += rec.from;
		n++;
	}
	bts_rec_iter_free(it);
	if (sum == 42)
		putchar(' ');	/* the loop must not be optimised away */
	return n;
}

static uint64_t decode(const struct bts_trace *t)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	uint64_t n = 0, sum = 0;
	int err = bts_insn_decoder_new(t, 0, NULL, &d);

	if (err)
		die("decoder", err);
	while (bts_insn_next(d, &e, sizeof(e)) > 0) {
		sum += e.size;
		n++;
	}
	if (sum == 42)
		putchar(' ');
	bts_insn_decoder_free(d);
	return n;
}

/* Runs @phase in a child: 0 and *n, *secs, *rss filled, or -1. */
static int run_child(const char *path, uint64_t (*phase)(const struct bts_trace *),
		     uint64_t *n, double *secs, long *rss)
{
	int fds[2], status;
	struct rusage ru;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		struct bts_trace *t;
		int err = bts_trace_new(path, &t);
		double t0;

		if (err)
			die(path, err);
		t0 = cpu_now();
		*n = phase(t);
		*secs = cpu_now() - t0;
		bts_trace_free(t);
		if (write(fds[1], n, sizeof(*n)) < 0 ||
		    write(fds[1], secs, sizeof(*secs)) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], n, sizeof(*n)) != sizeof(*n) ||
	    read(fds[0], secs, sizeof(*secs)) != sizeof(*secs))
		*n = 0;
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !*n)
		return -1;
	*rss = ru.ru_maxrss;
	return 0;
}

/* The best of RUNS runs (the machine may be shared), and the peak memory. */
#define RUNS 3

static int measure(const char *name, const char *unit, const char *path,
		   uint64_t (*phase)(const struct bts_trace *))
{
	double best = 0, secs;
	long rss = 0, r;
	uint64_t n = 0;

	for (int i = 0; i < RUNS; i++) {
		if (run_child(path, phase, &n, &secs, &r)) {
			printf("%-8s failed\n", name);
			return 1;
		}
		if (!i || secs < best)
			best = secs;
		if (r > rss)
			rss = r;
	}
	printf("%-8s %12" PRIu64 " %-7s %8.3f s cpu %8.1f M%s/s   peak %7ld KiB\n",
	       name, n, unit, best, n / best / 1e6, unit, rss);
	return 0;
}

/* btrace dump --calls on @path: lines/s per CPU second, and *rss. */
static int calls(const char *btrace, const char *path, uint64_t records,
		 long *rss)
{
	char cmd[8192 + 64];
	struct rusage ru;
	double t0, secs;
	int status;
	pid_t pid;
	FILE *f;
	uint64_t lines = 0;

	snprintf(cmd, sizeof(cmd), "%s dump --calls --json --last 1 %s 2>/dev/null", btrace, path);
	f = popen(cmd, "r");
	if (f) {
		char line[512];

		if (fgets(line, sizeof(line), f) && strstr(line, "\"n\":"))
			lines = strtoull(strstr(line, "\"n\":") + 4, NULL, 10);
		pclose(f);
	}
	fflush(stdout);
	t0 = now();
	pid = fork();
	if (!pid) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(126);
		execl(btrace, btrace, "dump", "--calls", path, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !lines) {
		printf("%-8s failed\n", "calls");
		return 1;
	}
	*rss = ru.ru_maxrss;
	secs = now() - t0;
	secs = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("%-8s %12" PRIu64 " %-7s %8.3f s cpu %8.1f M%s/s   peak %7ld KiB"
	       " (whole btrace run, %" PRIu64 " records)\n", "calls", lines,
	       "lines", secs, lines / secs / 1e6, "lines", ru.ru_maxrss, records);
	return 0;
}

/* The trace of @want records at OUTDIR/NAME (into @path). */
static int synth(const struct bts_trace *src, const char *dir,
		 const char *name, uint64_t want, char *path, size_t len)
{
	long cycle;

	snprintf(path, len, "%s/%s", dir, name);
	cycle = synth_trace_write(src, path, want);
	if (cycle < 0)
		return -1;
	fprintf(stderr, "lib-decode: %" PRIu64 " records: a cycle of %ld records "
		"of the source trace, repeated\n", want, cycle);
	return 0;
}

/*
 * dump --calls at a tenth of the records and at all of them: memory flat
 * in the length of the history keeps the ratio of the peaks near 1.
 */
static int calls_scales(const char *btrace, const char *small,
			const char *path, uint64_t want)
{
	long rss_small, rss;

	if (calls(btrace, small, want / 10, &rss_small) ||
	    calls(btrace, path, want, &rss))
		return 1;
	printf("calls peak at %" PRIu64 " records / at %" PRIu64 ": %.2fx "
	       "(flat: 1.00x)\n", want, want / 10, (double)rss / rss_small);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 4 ? strtoull(argv[4], NULL, 10) : 10000000;
	struct bts_trace *src;
	char path[4096], small[4096];
	int err, failed = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: lib-decode SOURCE.btr BTRACE OUTDIR [N]\n");
		return 2;
	}
	err = bts_trace_new(argv[1], &src);
	if (err)
		die(argv[1], err);
	if (synth(src, argv[3], "decode-bench.btr", want, path, sizeof(path)) ||
	    synth(src, argv[3], "decode-bench-small.btr", want / 10, small,
		  sizeof(small))) {
		bts_trace_free(src);
		return 1;
	}
	bts_trace_free(src);
	failed |= measure("iterate", "records", path, iterate);
	failed |= measure("decode", "insns", path, decode);
	failed |= calls_scales(argv[2], small, path, want);
	unlink(path);
	unlink(small);
	return failed;
}
