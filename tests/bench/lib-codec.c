// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Trace file benchmarks: the two record encodings on the same
 * records, and the peak memory of a command.
 *
 *	lib-codec rate SOURCE.btr OUTDIR N
 *		N records made by repeating the records of SOURCE's first
 *		thread, written raw and compact, then read back (open, which
 *		checks every chunk, and every record through bts_rec_iter_next).
 *		One line per format: file bytes, bytes per record, write and
 *		read rates over CPU time (best of three).
 *	lib-codec records FILE
 *		The bytes of FILE's chunks of records (RECORDS, RECORDS_COMPACT
 *		and RECORDS_TNT, their headers and padding included) and the
 *		records they hold: "BYTES RECORDS".  The chunk layout is
 *		doc/trace-format.md's, read here without libbts's internals.
 *	lib-codec hwm CMD [ARGS...]
 *		Runs CMD (stdout to /dev/null) and prints its peak resident
 *		memory in KiB (wait4's ru_maxrss: CMD or its largest child).
 *
 * Exits non-zero when anything failed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bts.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "lib-codec: %s: %s (%s)\n", what, bts_errstr(err),
		bts_errdetail());
	exit(1);
}

static struct ptbts_record *load(const char *path, size_t n)
{
	struct ptbts_record *v = malloc(n * sizeof(*v)), r;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	size_t have = 0;
	int err = bts_trace_new(path, &t);

	if (err)
		die(path, err);
	if (!v || !bts_trace_nthreads(t) || !bts_trace_thread(t, 0)->nrecords) {
		fprintf(stderr, "lib-codec: %s: no records\n", path);
		exit(1);
	}
	/* Repeated whole: the stream keeps the program's own deltas. */
	while (have < n) {
		if ((err = bts_rec_iter_new(t, 0, &it)))
			die(path, err);
		while (have < n && bts_rec_iter_next(it, &r) == 1)
			v[have++] = r;
		bts_rec_iter_free(it);
	}
	bts_trace_free(t);
	return v;
}

static double write_file(const char *path, int format,
			 const struct ptbts_record *v, size_t n)
{
	double t0 = cpu_now();
	struct bts_writer *w;
	int err;

	unlink(path);
	if ((err = bts_writer_new(path, &w)) ||
	    (err = bts_writer_format(w, format)) ||
	    (err = bts_writer_process(w, 1, 0, "bench")) ||
	    (err = bts_writer_thread(w, 1, 1)))
		die(path, err);
	/* In ring-drain sized pieces, as a session writes them. */
	for (size_t i = 0; i < n; i += 4096) {
		err = bts_writer_records(w, 1, 1, v + i, n - i < 4096 ? n - i : 4096);
		if (err)
			die(path, err);
	}
	err = bts_writer_finish(w);
	bts_writer_free(w);
	if (err)
		die(path, err);
	return cpu_now() - t0;
}

static double read_file(const char *path, size_t n)
{
	double t0 = cpu_now();
	struct ptbts_record r;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	uint64_t sum = 0;
	size_t got = 0;
	int err = bts_trace_new(path, &t);

	if (err)
		die(path, err);
	if ((err = bts_rec_iter_new(t, 0, &it)))
		die(path, err);
	for (; bts_rec_iter_next(it, &r) == 1; got++)
		sum += r.from;
	bts_rec_iter_free(it);
	bts_trace_free(t);
	if (got != n || !sum) {
		fprintf(stderr, "lib-codec: %s: read %zu records of %zu\n", path, got, n);
		exit(1);
	}
	return cpu_now() - t0;
}

static int rate(const char *src, const char *dir, size_t n)
{
	static const char *const names[] = { "raw", "compact" };
	struct ptbts_record *v = load(src, n);

	for (int f = BTS_FORMAT_RAW; f <= BTS_FORMAT_COMPACT; f++) {
		double wbest = 1e9, rbest = 1e9;
		struct stat st;
		char path[4096];

		snprintf(path, sizeof(path), "%s/codec-%s.btr", dir, names[f]);
		for (int i = 0; i < 3; i++) {
			double w = write_file(path, f, v, n), r = read_file(path, n);

			wbest = w < wbest ? w : wbest;
			rbest = r < rbest ? r : rbest;
		}
		if (stat(path, &st))
			return 1;
		printf("%-8s %12zu records %12jd bytes %7.3f B/record   write %7.2f M records/s   read %7.2f M records/s\n",
		       names[f], n, (intmax_t)st.st_size, (double)st.st_size / n,
		       n / wbest / 1e6, n / rbest / 1e6);
		unlink(path);
	}
	free(v);
	return 0;
}

/* Chunk types of records (doc/trace-format.md). */
#define CHUNK_RECORDS		5
#define CHUNK_END		7
#define CHUNK_RECORDS_COMPACT	16
#define CHUNK_RECORDS_TNT	21

static int records(const char *path)
{
	uint64_t bytes = 0, n = 0;
	uint32_t head[4];
	FILE *f = fopen(path, "rb");

	/* The file header: magic, version, header_size. */
	if (!f || fread(head, 4, 4, f) != 4 || fseek(f, head[3], SEEK_SET))
		return 1;
	/* Each chunk: u32 type, u32 len, the payload padded to 8. */
	while (fread(head, 4, 2, f) == 2) {
		uint32_t type = head[0] & 0x7fffffff, len = head[1];
		long next = ftell(f) + len + (8 - len % 8) % 8;

		if (type == CHUNK_END)
			break;
		/* Every one starts with pid, tid and the count. */
		if ((type == CHUNK_RECORDS || type == CHUNK_RECORDS_COMPACT ||
		     type == CHUNK_RECORDS_TNT) && fread(head, 4, 3, f) == 3) {
			bytes += 8 + len + (8 - len % 8) % 8;
			n += head[2];
		}
		if (fseek(f, next, SEEK_SET))
			return 1;
	}
	fclose(f);
	printf("%" PRIu64 " %" PRIu64 "\n", bytes, n);
	return !n;
}

static int hwm(char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 1;
	printf("%ld\n", ru.ru_maxrss);
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "rate"))
		return rate(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "records"))
		return records(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "hwm"))
		return hwm(argv + 2);
	fprintf(stderr, "usage: lib-codec rate SOURCE.btr OUTDIR N | lib-codec records FILE | "
		"lib-codec hwm CMD...\n");
	return 2;
}
