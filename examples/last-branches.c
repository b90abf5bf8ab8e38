// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libbts in a page: run a program traced, then print the last branches of
 * its main thread with the functions they leave and enter.
 *
 *	cc last-branches.c $(pkg-config --cflags --libs libbts) -o last-branches
 *	./last-branches [-n N] PROGRAM [ARGS...]
 *
 * The records go to a trace file first (libbts keeps nothing in memory
 * that a crash could lose), which is then read back and removed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bts.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "last-branches: %s: %s (%s)\n", what, bts_errstr(err),
		bts_errdetail());
	return 1;
}

/* Runs argv[0] traced into @path: the ring keeps the newest records. */
static int record(char **argv, const char *path)
{
	struct bts_session *s;
	struct bts_writer *w;
	int err;

	err = bts_writer_new(path, &w);
	if (err < 0)
		return fail(path, err);
	BTS_OPTS(bts_session_opts, o, .mode = PTBTS_MODE_RING,
		 .buffer_size = 64 << 10, .writer = w);
	err = bts_session_new_spawn(argv, &o, &s);
	if (err < 0) {
		bts_writer_free(w);
		return fail(argv[0], err);
	}
	err = bts_session_run(s);
	bts_session_free(s);
	if (err < 0) {
		bts_writer_free(w);
		return fail("recording", err);
	}
	err = bts_writer_finish(w);
	bts_writer_free(w);
	return err < 0 ? fail(path, err) : 0;
}

static void print_addr(struct bts_symbolizer *sym, uint64_t addr)
{
	const char *name;
	uint64_t off;

	printf("0x%016llx", (unsigned long long)addr);
	if (sym && bts_symbolize(sym, addr, &name, &off) == 0)
		printf(" <%s+%llu>", name, (unsigned long long)off);
}

/* The last @n branch records of the first thread, oldest first. */
static int print_last(const char *path, size_t n)
{
	struct ptbts_record *last = calloc(n, sizeof(*last)), rec;
	struct bts_symbolizer *sym = NULL;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	size_t seen = 0, i;
	int err;

	if (!last)
		return fail("memory", -BTS_E_NOMEM);
	err = bts_trace_new(path, &t);
	if (err < 0) {
		free(last);
		return fail(path, err);
	}
	if (bts_trace_nthreads(t) == 0) {
		bts_trace_free(t);
		free(last);
		fprintf(stderr, "last-branches: no thread was recorded\n");
		return 1;
	}
	err = bts_rec_iter_new(t, 0, &it);
	while (!err && bts_rec_iter_next(it, &rec) == 1)
		if (bts_record_kind(&rec) == PTBTS_KIND_BRANCH)
			last[seen++ % n] = rec;
	bts_rec_iter_free(it);
	if (bts_symbolizer_new(t, bts_trace_thread(t, 0)->pid, &sym) < 0)
		sym = NULL;
	for (i = seen > n ? seen - n : 0; i < seen; i++) {
		print_addr(sym, last[i % n].from);
		printf("  ->  ");
		print_addr(sym, last[i % n].to);
		putchar('\n');
	}
	bts_symbolizer_free(sym);
	bts_trace_free(t);
	free(last);
	return 0;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/last-branches.XXXXXX";
	size_t n = 10;
	int first = 1, fd, ret;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		n = strtoul(argv[2], NULL, 10);
		first = 3;
	}
	if (first >= argc || n == 0) {
		fprintf(stderr, "usage: last-branches [-n N] PROGRAM [ARGS...]\n");
		return 2;
	}
	/* A name of our own; the writer creates the file anew under it. */
	fd = mkstemp(path);
	if (fd < 0) {
		perror("last-branches: mkstemp");
		return 1;
	}
	close(fd);
	ret = record(argv + first, path);
	if (!ret)
		ret = print_last(path, n);
	unlink(path);
	return ret;
}
