// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the trace reader on any bytes.  An input either fails
 * with a known error and a detail, or opens into a trace whose every part
 * can be walked and keeps the promises of bts.h.
 *
 * With BTS_FUZZ_WRITE_SEEDS=DIR in the environment the target writes a seed
 * corpus into DIR with libbts's own writer and exits, so that the seeds
 * always follow the current format (scripts/run-tests uses this).
 */
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void walk_maps(const struct bts_trace *t, pid_t pid)
{
	const struct bts_map *maps;
	size_t n = bts_trace_maps(t, pid, &maps);

	for (size_t i = 0; i < n; i++) {
		CHECK(maps[i].start < maps[i].end);
		CHECK(maps[i].build_id_len <= BTS_BUILD_ID_MAX);
		CHECK(strlen(maps[i].path) < (size_t)-1);
		CHECK(!i || maps[i - 1].end <= maps[i].start);
	}
}

static void walk_code(const struct bts_trace *t, pid_t pid)
{
	const struct bts_code *code;
	size_t n = bts_trace_code(t, pid, &code);
	unsigned int sum = 0;

	for (size_t i = 0; i < n; i++) {
		CHECK(code[i].len && code[i].addr + code[i].len > code[i].addr);
		CHECK(!i || code[i - 1].addr + code[i - 1].len <= code[i].addr);
		for (uint64_t j = 0; j < code[i].len; j++)
			sum += code[i].bytes[j];	/* ASan: every byte is there */
	}
	(void)sum;
}

/* The file's index of thread @i, if any, as the reader promises it. */
static void walk_index(const struct bts_trace *t, size_t i, uint64_t nrecords)
{
	struct bts_index_opts o = { .sz = sizeof(o), .file_only = true };
	struct bts_index_point pt, prev = { 0 };
	struct bts_index *ix;
	uint64_t sum = 0;

	CHECK(bts_index_new(t, i, &o, &ix) == 0);
	if (!ix)
		return;
	CHECK(bts_index_from_file(ix) && bts_index_npoints(ix) >= 1);
	for (size_t k = 0; k < bts_index_npoints(ix); k++) {
		CHECK(bts_index_point(ix, k, &pt, sizeof(pt)) == 0);
		CHECK(!k || (pt.record > prev.record && pt.entry >= prev.entry));
		CHECK(pt.record <= nrecords && pt.entry <= bts_index_entries(ix));
		for (size_t j = 0; j < pt.nsites; j++)
			sum += pt.sites[j];	/* ASan: every site is there */
		prev = pt;
	}
	(void)sum;
	CHECK(bts_index_find(ix, bts_index_entries(ix) + 1) < bts_index_npoints(ix));
	bts_index_free(ix);
}

static void walk(const struct bts_trace *t)
{
	const struct bts_trace_info *info = bts_trace_info(t);
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;

	CHECK(info->version == 1);
	for (size_t i = 0; i < bts_trace_nprocesses(t); i++) {
		const struct bts_process_info *p = bts_trace_process(t, i);

		CHECK(p && p->pid > 0 && strlen(p->exe) < (size_t)-1);
		walk_maps(t, p->pid);
		walk_code(t, p->pid);
	}
	for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
		const struct bts_thread_info *th = bts_trace_thread(t, i);
		uint64_t n = 0;

		CHECK(th && th->tid > 0);
		CHECK(bts_rec_iter_new(t, i, &it) == 0);
		for (; bts_rec_iter_next(it, &r); n++)
			CHECK(bts_record_kind(&r) >= 0);
		CHECK(n == th->nrecords);
		/* Random access lands on a record exactly when there is one. */
		CHECK(bts_rec_iter_seek(it, n / 2) == (n > 0));
		CHECK(bts_rec_iter_next(it, &r) == (n > 0));
		CHECK(bts_rec_iter_seek(it, n) == 0 && bts_rec_iter_next(it, &r) == 0);
		bts_rec_iter_free(it);
		walk_index(t, i, n);
	}
	CHECK(!bts_trace_thread(t, bts_trace_nthreads(t)));
	for (size_t i = 0; i < bts_trace_npebs(t); i++) {
		const struct bts_pebs_sample *s = bts_trace_pebs(t, i);

		CHECK(s && bts_trace_thread_index(t, s->tid) >= 0);
		CHECK(!bts_pebs_event_problem(s->event, s->period));
		CHECK(s->rec.size && s->format <= 5);
	}
	CHECK(!bts_trace_pebs(t, bts_trace_npebs(t)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bts_trace *t;
	int err = bts_trace_new_mem(data, size, &t);

	if (err) {
		CHECK(err == -BTS_E_FORMAT || err == -BTS_E_VERSION ||
		      err == -BTS_E_TRUNCATED || err == -BTS_E_DECODE);
		CHECK(bts_errdetail()[0]);
		return 0;
	}
	walk(t);
	bts_trace_free(t);
	return 0;
}

/* ---------------------------------------------------------------- seeds */

static struct ptbts_record rec(uint64_t from, uint64_t to, int kind)
{
	return (struct ptbts_record){ from, to, PTBTS_MKKIND(kind) | 0x10 };
}

static void must(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "seed %s: %s\n", what, bts_errdetail());
		exit(1);
	}
}

static void seed_empty(const char *dir)
{
	struct bts_writer *w;
	char *path;

	if (asprintf(&path, "%s/seed-empty.btr", dir) < 0)
		exit(1);
	must(bts_writer_new(path, &w), path);
	must(bts_writer_finish(w), path);
	bts_writer_free(w);
	free(path);
}

/*
 * Two processes, three threads, interleaved batches, every record kind,
 * PEBS samples; in either record format.
 */
static void seed_full(const char *dir, int nrecs, int format, bool indexed)
{
	struct ptbts_record recs[64];
	struct bts_map m = {
		.start = 0x400000, .end = 0x402000, .offset = 0x1000, .prot = 5,
		.build_id_len = 20, .build_id = { 1, 2, 3, 4, 5 }, .path = "/usr/bin/prog",
	};
	/* kmod-pebs's samples: Skylake's format, and adaptive with a loss. */
	uint64_t r3[2][25] = { { 0x246, 0x401008, [18] = 1, [22] = 0x401000 },
			       { 0x202, 0x401108, [18] = 1, [22] = 0x401100 } };
	uint64_t r4[3][4] = { { 32ULL << 48, 0x401000, 1, 99 },
			      { 32ULL << 48, 0x401010, 1, 120 },
			      { 32ULL << 48, 0x401020, 1, 140 } };
	struct bts_pebs_batch pebs3 = {
		.format = 3, .record_size = 200, .event = 0xc4, .period = 1000,
		.records = r3, .count = 2,
	}, pebs4 = {
		.format = 4, .record_size = 32, .event = 0x20c4, .period = 7,
		.lost = 2, .records = r4, .count = 3,
	};
	struct bts_writer *w;
	char *path;

	for (int i = 0; i < 64; i++)
		recs[i] = rec(0x401000 + 16 * i, 0x401100 + 8 * i, i % 3);
	recs[5] = rec(0, 3, PTBTS_KIND_LOST);
	recs[9] = rec(0, PTBTS_GAP_UNREADABLE, PTBTS_KIND_GAP);
	recs[12] = rec(0, 0x401000, PTBTS_KIND_EXEC);
	recs[13] = rec(0, 0, PTBTS_KIND_FILTERED);
	if (asprintf(&path, "%s/seed-full-%d%s%s.btr", dir, nrecs,
		     format == BTS_FORMAT_COMPACT ? "-compact" :
		     format == BTS_FORMAT_TNT ? "-tnt" : "",
		     indexed ? "-indexed" : "") < 0)
		exit(1);
	must(bts_writer_new(path, &w), path);
	/* tnt: a whole file rewritten (no code: its records are given whole). */
	must(bts_writer_format(w, format == BTS_FORMAT_TNT ? BTS_FORMAT_COMPACT :
			       format), "format");
	must(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_RING, 4096), "session");
	must(bts_writer_process(w, 10, 1, "/usr/bin/prog"), "process");
	must(bts_writer_map(w, 10, &m), "map");
	m = (struct bts_map){ .start = 0x401000, .end = 0x401800, .prot = 7, .path = "" };
	must(bts_writer_map(w, 10, &m), "map");
	m = (struct bts_map){ .start = 0x7ffd000, .end = 0x7fff000, .prot = 5, .path = "[vdso]" };
	must(bts_writer_map(w, 10, &m), "map");
	must(bts_writer_code(w, 10, 0x7ffd000, "\177ELF\2\1\1", 7), "code");
	must(bts_writer_code(w, 10, 0x7ffd004, "abcdefgh", 8), "code");
	must(bts_writer_thread(w, 10, 10), "thread");
	must(bts_writer_thread(w, 10, 11), "thread");
	must(bts_writer_records(w, 10, 10, recs, nrecs), "records");
	must(bts_writer_records(w, 10, 11, recs + 20, nrecs / 2), "records");
	must(bts_writer_process(w, 12, 10, "/bin/child"), "process");
	must(bts_writer_thread(w, 12, 12), "thread");
	must(bts_writer_records(w, 10, 10, recs + 30, nrecs / 3), "records");
	must(bts_writer_records(w, 12, 12, recs + 40, nrecs / 4), "records");
	must(bts_writer_pebs(w, 10, 11, &pebs3), "pebs");
	must(bts_writer_pebs(w, 12, 12, &pebs4), "pebs");
	must(bts_writer_exit(w, 10, 11, 0), "exit");
	must(bts_writer_exit(w, 12, 0, 9), "exit");
	must(bts_writer_exit(w, 10, 0, 1 << 8), "exit");
	must(bts_writer_finish(w), path);
	bts_writer_free(w);
	if (format == BTS_FORMAT_TNT)
		must(bts_trace_tnt_file(path), path);
	/* Points two records apart: INDEX chunks with many points. */
	if (indexed)
		must(bts_trace_index_file(path, &(struct bts_index_opts){
			.sz = sizeof(struct bts_index_opts), .interval = 2 }), path);
	free(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("BTS_FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	if (!dir)
		return 0;
	seed_empty(dir);
	seed_full(dir, 1, BTS_FORMAT_RAW, false);
	seed_full(dir, 6, BTS_FORMAT_RAW, false);
	seed_full(dir, 24, BTS_FORMAT_RAW, false);
	seed_full(dir, 1, BTS_FORMAT_COMPACT, false);
	seed_full(dir, 6, BTS_FORMAT_COMPACT, false);
	seed_full(dir, 24, BTS_FORMAT_COMPACT, false);
	seed_full(dir, 24, BTS_FORMAT_RAW, true);
	seed_full(dir, 24, BTS_FORMAT_COMPACT, true);
	seed_full(dir, 24, BTS_FORMAT_TNT, true);
	exit(0);
}
