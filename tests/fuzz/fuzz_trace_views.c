// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the views of a trace on any bytes.  What the reader
 * accepts (fuzz_trace_read.c) is walked as every view walks it: each
 * thread's instructions decoded, its call history built, and btrace's own
 * stats, dump --insns, dump --calls and report run on the file, whose
 * output goes to /dev/null.  Any failure must be an error, not a crash.
 *
 * With BTS_FUZZ_WRITE_SEEDS=DIR in the environment the target writes a seed
 * corpus into DIR with libbts's own writer and exits: traces whose records
 * branch about in a copy of real code (a "[vdso]" map), so that decoding
 * and the call history have something to chew on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bts.h>

#include "btrace.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* Bounds each input's work: a few records may expand to many instructions. */
#define MAX_INSNS 100000

static int memfd = -1;
static char path[64];

static void decode(const struct bts_trace *t, size_t thread)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	uint64_t n = 0;
	int ret;

	if (bts_insn_decoder_new(t, thread, NULL, &d) < 0)
		return;
	while (n < MAX_INSNS && (ret = bts_insn_next(d, &e, sizeof(e))) > 0) {
		CHECK(e.index == ++n);
		CHECK(e.iclass == BTS_ICLASS_GAP ? !e.ip : e.size > 0);
	}
	for (size_t i = 0; bts_insn_decoder_warning(d, i); i++)
		;
	bts_insn_decoder_free(d);
}

/* A cursor hands out the history's segments, levels from its first's. */
static void cursor(const struct bts_trace *t, size_t thread,
		   const struct bts_calls_opts *o,
		   const struct bts_call_history *h)
{
	const struct bts_segment *w, *first = bts_call_history_segment(h, 0);
	struct bts_call_cursor *c;
	struct bts_segment s;
	size_t n = 0;
	int ret;

	if (bts_call_cursor_new(t, thread, o, &c) < 0)
		return;
	while ((ret = bts_call_cursor_next(c, &s, sizeof(s))) > 0) {
		w = bts_call_history_segment(h, n++);
		CHECK(w && s.number == w->number && s.entry == w->entry);
		CHECK(s.first == w->first && s.last == w->last);
		CHECK(s.level == w->level - first->level);
	}
	CHECK(ret < 0 || n == bts_call_history_count(h));
	CHECK(ret < 0 || !n || -bts_call_cursor_min_level(c) == first->level);
	bts_call_cursor_free(c);
}

static void calls(const struct bts_trace *t, size_t thread,
		  struct bts_symbolizer *sym)
{
	struct bts_calls_opts o = { .sz = sizeof(o), .sym = sym, .lines = true };
	struct bts_call_history *h;
	uint64_t last = 0;

	if (bts_call_history_new(t, thread, &o, &h) < 0)
		return;
	for (size_t i = 0; i < bts_call_history_count(h); i++) {
		const struct bts_segment *s = bts_call_history_segment(h, i);

		CHECK(s && s->number == i + 1 && s->level >= 0);
		CHECK(s->first == last + 1 && s->last >= s->first);
		last = s->last;
	}
	CHECK(last == bts_call_history_insns(h));
	cursor(t, thread, &o, h);
	bts_call_history_free(h);
}

static void libbts_views(const struct bts_trace *t)
{
	for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
		const struct bts_thread_info *th = bts_trace_thread(t, i);
		struct bts_symbolizer *sym = NULL;

		if (th->nrecords > MAX_INSNS / 16)
			continue;
		decode(t, i);
		if (bts_symbolizer_new(t, th->pid, &sym) < 0)
			sym = NULL;
		calls(t, i, sym);
		bts_symbolizer_free(sym);
	}
}

static uint64_t total_records(const struct bts_trace *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		n += bts_trace_thread(t, i)->nrecords;
	return n;
}

/* btrace's views, on the input as a file (they take a path). */
static void btrace_views(const uint8_t *data, size_t size)
{
	char stats[] = "stats", dump[] = "dump", report[] = "report";
	char insns[] = "--insns", calls_opt[] = "--calls";
	char *argv_stats[] = { stats, path, NULL };
	char *argv_insns[] = { dump, insns, path, NULL };
	char *argv_calls[] = { dump, calls_opt, path, NULL };
	char *argv_report[] = { report, path, NULL };

	CHECK(!ftruncate(memfd, 0));
	CHECK(pwrite(memfd, data, size, 0) == (ssize_t)size);
	cmd_stats(2, argv_stats);
	cmd_dump(3, argv_insns);
	cmd_dump(3, argv_calls);
	cmd_report(2, argv_report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bts_trace *t;

	if (bts_trace_new_mem(data, size, &t))
		return 0;
	/* Each record may stand for a long straight run: keep inputs quick. */
	if (total_records(t) <= MAX_INSNS / 16) {
		libbts_views(t);
		btrace_views(data, size);
	}
	bts_trace_free(t);
	return 0;
}

/* ---------------------------------------------------------------- seeds */

/*
 *  0: push %rbp          4: call 0x10      9: pop %rbp      a: ret
 * 10: xor %eax,%eax     12: je 0x16       14: nop; nop     16: ret
 * 17: ud2
 */
static const uint8_t code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xe8, 0x07, 0x00, 0x00, 0x00, 0x5d, 0xc3,
	0x90, 0x90, 0x90, 0x90, 0x90, 0x31, 0xc0, 0x74, 0x02, 0x90, 0x90,
	0xc3, 0x0f, 0x0b,
};

#define VDSO 0x7ffd000ull

static struct ptbts_record rec(uint64_t from, uint64_t to, int kind)
{
	return (struct ptbts_record){ VDSO + from, VDSO + to, PTBTS_MKKIND(kind) };
}

static void must(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "seed %s: %s\n", what, bts_errdetail());
		exit(1);
	}
}

/*
 * @loops rounds of call, je, ret, ret, with a filtered region or lost
 * records between some; @gaps: a filtered region after each round.
 */
static void seed_code(const char *dir, int loops, bool gaps, int format)
{
	struct ptbts_record recs[1024];
	struct bts_map m = {
		.start = VDSO, .end = VDSO + 0x1000, .prot = 5, .path = "[vdso]",
	};
	struct bts_writer *w;
	char *file;
	size_t n = 0;

	for (int i = 0; i < loops && n + 6 < 1024; i++) {
		recs[n++] = rec(0x04, 0x10, PTBTS_KIND_BRANCH);
		recs[n++] = rec(0x12, 0x16, PTBTS_KIND_BRANCH);
		recs[n++] = rec(0x16, 0x09, PTBTS_KIND_BRANCH);
		recs[n++] = rec(0x0a, 0x00, PTBTS_KIND_BRANCH);
		if (gaps || i % 3 == 1)
			recs[n++] = (struct ptbts_record){ 0, 0, PTBTS_MKKIND(PTBTS_KIND_FILTERED) };
		if (i % 5 == 2)
			recs[n++] = (struct ptbts_record){ 0, 2, PTBTS_MKKIND(PTBTS_KIND_LOST) };
	}
	if (asprintf(&file, "%s/seed-code-%d%s%s.btr", dir, loops,
		     gaps ? "-gaps" : "",
		     format == BTS_FORMAT_COMPACT ? "-compact" :
		     format == BTS_FORMAT_TNT ? "-tnt" : "") < 0)
		exit(1);
	must(bts_writer_new(file, &w), file);
	/* tnt: a whole file rewritten, its code in the trace. */
	must(bts_writer_format(w, format == BTS_FORMAT_TNT ? BTS_FORMAT_COMPACT :
			       format), "format");
	must(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), "session");
	must(bts_writer_process(w, 10, 1, "/usr/bin/prog"), "process");
	must(bts_writer_map(w, 10, &m), "map");
	must(bts_writer_code(w, 10, VDSO, code, sizeof(code)), "code");
	must(bts_writer_thread(w, 10, 10), "thread");
	must(bts_writer_records(w, 10, 10, recs, n), "records");
	must(bts_writer_exit(w, 10, 0, 0), "exit");
	must(bts_writer_finish(w), file);
	bts_writer_free(w);
	if (format == BTS_FORMAT_TNT)
		must(bts_trace_tnt_file(file), file);
	free(file);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("BTS_FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	if (dir) {
		seed_code(dir, 1, false, BTS_FORMAT_RAW);
		seed_code(dir, 40, false, BTS_FORMAT_RAW);
		seed_code(dir, 3, false, BTS_FORMAT_COMPACT);
		seed_code(dir, 40, false, BTS_FORMAT_COMPACT);
		/* Call histories of hundreds of segments, gaps among them. */
		seed_code(dir, 150, true, BTS_FORMAT_COMPACT);
		seed_code(dir, 40, false, BTS_FORMAT_TNT);
		seed_code(dir, 150, true, BTS_FORMAT_TNT);
		exit(0);
	}
	/* The views print their findings: only the errors matter here. */
	if (!freopen("/dev/null", "w", stdout))
		exit(1);
	memfd = memfd_create("trace", MFD_CLOEXEC);
	if (memfd < 0)
		exit(1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}
