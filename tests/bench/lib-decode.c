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

/* The records of thread 0, all of them. */
static struct ptbts_record *load(const struct bts_trace *t, size_t *n)
{
	struct ptbts_record *v = malloc(bts_trace_thread(t, 0)->nrecords * sizeof(*v) + 1);
	struct bts_rec_iter *it = NULL;

	*n = 0;
	if (bts_rec_iter_new(t, 0, &it))
		die("iterator", -BTS_E_NOMEM);
	while (v && bts_rec_iter_next(it, &v[*n]) > 0)
		(*n)++;
	bts_rec_iter_free(it);
	return v;
}

/* [*lo, *hi): the longest stretch from a record to its last repetition. */
static void longest_cycle(const struct ptbts_record *r, size_t n, size_t *lo,
			  size_t *hi)
{
	size_t cap = 1, best = 0;
	size_t *first;

	while (cap < 2 * n)
		cap *= 2;
	first = malloc(cap * sizeof(*first));
	memset(first, 0xff, cap * sizeof(*first));
	*lo = *hi = 0;
	for (size_t i = 0; i < n; i++) {
		size_t h = (size_t)((r[i].from * 31 + r[i].to) * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);

		if (!r[i].from)
			continue;
		while (first[h] != SIZE_MAX &&
		       (r[first[h]].from != r[i].from || r[first[h]].to != r[i].to))
			h = (h + 1) & (cap - 1);
		if (first[h] == SIZE_MAX) {
			first[h] = i;
		} else if (i - first[h] > best) {
			best = i - first[h];
			*lo = first[h];
			*hi = i;
		}
	}
	free(first);
}

static void write_trace(const struct bts_trace *src, const char *path,
			uint64_t want)
{
	const struct bts_thread_info *th = bts_trace_thread(src, 0);
	const struct bts_map *maps;
	const struct bts_code *code;
	struct ptbts_record *r = NULL;
	size_t n, lo, hi, nmaps, ncode;
	struct bts_writer *w;
	int err;

	r = load(src, &n);
	longest_cycle(r, n, &lo, &hi);
	if (hi - lo < 2) {
		fprintf(stderr, "lib-decode: no repeated record in the source trace\n");
		exit(1);
	}
	nmaps = bts_trace_maps(src, th->pid, &maps);
	ncode = bts_trace_code(src, th->pid, &code);
	if ((err = bts_writer_new(path, &w)) ||
	    (err = bts_writer_process(w, th->pid, 1, bts_trace_process(src, 0)->exe)))
		die("writer", err);
	for (size_t i = 0; i < nmaps; i++)
		if ((err = bts_writer_map(w, th->pid, &maps[i])))
			die("writer", err);
	for (size_t i = 0; i < ncode; i++)
		if ((err = bts_writer_code(w, th->pid, code[i].addr, code[i].bytes,
					   code[i].len)))
			die("writer", err);
	if ((err = bts_writer_thread(w, th->pid, th->tid)))
		die("writer", err);
	for (uint64_t done = 0; done < want;) {
		size_t k = hi - lo < want - done ? hi - lo : want - done;

		if ((err = bts_writer_records(w, th->pid, th->tid, r + lo, k)))
			die("writer", err);
		done += k;
	}
	err = bts_writer_finish(w);
	bts_writer_free(w);
	if (err)
		die("writer", err);
	fprintf(stderr, "lib-decode: %" PRIu64 " records: a cycle of %zu records "
		"of the source trace, repeated\n", want, hi - lo);
	free(r);
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

static int calls(const char *btrace, const char *path)
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
	secs = now() - t0;
	secs = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("%-8s %12" PRIu64 " %-7s %8.3f s cpu %8.1f M%s/s   peak %7ld KiB"
	       " (whole btrace run)\n", "calls", lines, "lines", secs,
	       lines / secs / 1e6, "lines", ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 4 ? strtoull(argv[4], NULL, 10) : 10000000;
	struct bts_trace *src;
	char path[4096];
	int err, failed = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: lib-decode SOURCE.btr BTRACE OUTDIR [N]\n");
		return 2;
	}
	err = bts_trace_new(argv[1], &src);
	if (err)
		die(argv[1], err);
	snprintf(path, sizeof(path), "%s/decode-bench.btr", argv[3]);
	write_trace(src, path, want);
	bts_trace_free(src);
	failed |= measure("iterate", "records", path, iterate);
	failed |= measure("decode", "insns", path, decode);
	failed |= calls(argv[2], path);
	unlink(path);
	return failed;
}
