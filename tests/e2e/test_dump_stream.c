// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The views walk a trace and hold what they show, not the history: on a
 * recording of skip-qsort, the windows of dump --calls (--last, --from/
 * --to, a filter) print exactly the lines of the whole view they select,
 * levels and all; and on synthetic traces of 10^5 and 10^6 records made
 * from that recording (tests/synth/), each view's peak memory stays
 * within 1.25 times its peak at the smaller scale while the records grow
 * tenfold, and so does the heap that holds a file's index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../synth/synth_trace.h"
#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

#define TIMEOUT 300

static void btrace(const char *const args[], struct harness_cmd *cmd)
{
	int code = harness_btrace_argv(cmd, TIMEOUT, args);

	if (code)
		FAIL("btrace %s %s exited with %d; stderr:\n%s", args[0],
		     args[1], code, cmd->err);
}

/* Lines @lo to @hi (from 0) of @v, each with its newline, after @head. */
static char *joined(const char *head, char **v, size_t lo, size_t hi)
{
	size_t len = strlen(head) + 1;
	char *s;

	for (size_t i = lo; i <= hi; i++)
		len += strlen(v[i]) + 1;
	s = malloc(len);
	ASSERT_TRUE(s != NULL);
	strcpy(s, head);
	for (size_t i = lo; i <= hi; i++) {
		strcat(s, v[i]);
		strcat(s, "\n");
	}
	return s;
}

/* The whole view @args (NULL-ended, the file last) and its lines. */
struct whole {
	struct harness_cmd cmd;
	char **lines;		/* lines[0]: "thread..." in text views */
	size_t n;
};

static void whole_view(const char *const args[], struct whole *w)
{
	btrace(args, &w->cmd);
	w->lines = raw_lines(w->cmd.out, &w->n);
	ASSERT_GE(w->n, (size_t)50);
}

static void whole_free(struct whole *w)
{
	free(w->lines);
	harness_cmd_free(&w->cmd);
}

/* Asserts that btrace @args prints exactly @want, and frees @want. */
static void expect_view(const char *const args[], char *want)
{
	struct harness_cmd cmd;

	btrace(args, &cmd);
	EXPECT_STREQ(cmd.out, want);
	free(want);
	harness_cmd_free(&cmd);
}

TEST(dump_stream, call_windows_are_lines_of_the_whole_view)
{
	struct harness_cmd rec;
	char *btr = raw_record("skip-qsort", NULL, 0, &rec);
	const char *all[] = { "dump", "--calls", "--indent", "--insn-range",
			      "--line-range", btr, NULL };
	const char *last[] = { "dump", "--calls", "--indent", "--insn-range",
			       "--line-range", "--last", "7", btr, NULL };
	const char *range[] = { "dump", "--calls", "--indent", "--insn-range",
				"--line-range", "--from", "20", "--to", "41",
				btr, NULL };
	char head[128];
	struct whole w;

	whole_view(all, &w);
	snprintf(head, sizeof(head), "%s\n", w.lines[0]);
	expect_view(last, joined(head, w.lines, w.n - 7, w.n - 1));
	expect_view(range, joined(head, w.lines, 20, 41));
	whole_free(&w);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(dump_stream, json_windows_and_filters_are_lines_of_the_whole_view)
{
	struct harness_cmd rec;
	char *btr = raw_record("skip-qsort", NULL, 0, &rec);
	const char *all[] = { "dump", "--calls", "--json", btr, NULL };
	const char *last[] = { "dump", "--calls", "--json", "--last", "5",
			       btr, NULL };
	const char *fn[] = { "dump", "--calls", "--json", "--function",
			     "skip_cmp", btr, NULL };
	char *want;
	struct whole w;

	whole_view(all, &w);
	expect_view(last, joined("", w.lines, w.n - 5, w.n - 1));
	want = calloc(1, w.cmd.out_len + 1);
	ASSERT_TRUE(want != NULL);
	for (size_t i = 0; i < w.n; i++) {
		if (!strstr(w.lines[i], "\"func\":\"skip_cmp\""))
			continue;
		strcat(want, w.lines[i]);
		strcat(want, "\n");
	}
	EXPECT_TRUE(strstr(want, "skip_cmp") != NULL);
	expect_view(fn, want);
	whole_free(&w);
	harness_cmd_free(&rec);
	free(btr);
}

/* A trace of @n records made from @src's cycle, at @path (malloc'ed). */
static char *synth(const char *src, uint64_t n)
{
	char name[64], *path;
	struct bts_trace *t;

	snprintf(name, sizeof(name), "synth-%llu.btr", (unsigned long long)n);
	path = harness_path(harness_tmpdir(), name);
	ASSERT_EQ(bts_trace_new(src, &t), 0);
	ASSERT_GT(synth_trace_write(t, path, n), 1);
	bts_trace_free(t);
	return path;
}

/*
 * The peak resident set (KiB) of btrace @args with @btr, output dropped,
 * from Python's wait: a child forked from this test would start with the
 * test's own resident set as its peak, one forked from Python with
 * Python's few megabytes.
 */
static const char peak_py[] =
"import resource, subprocess, sys\n"
"r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,\n"
"                   stderr=subprocess.DEVNULL)\n"
"print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
"      if r.returncode == 0 else -r.returncode)\n";

static long peak_kib(const char *const args[], const char *btr)
{
	const char *argv[20];
	struct harness_cmd cmd;
	char *bin = BTRACE_PATH();
	size_t n = 0;
	long kib;

	argv[n++] = "/usr/bin/python3";
	argv[n++] = "-c";
	argv[n++] = peak_py;
	argv[n++] = bin;
	for (; *args; args++)
		argv[n++] = *args;
	argv[n++] = btr;
	argv[n] = NULL;
	ASSERT_EQ(harness_run((char *const *)argv, TIMEOUT, &cmd), 0);
	kib = strtol(cmd.out, NULL, 10);
	if (kib <= 0)
		FAIL("btrace %s: exit %ld (%s)", argv[4], -kib, cmd.err);
	harness_cmd_free(&cmd);
	free(bin);
	return kib;
}

static const char *const views[][6] = {
	{ "dump", "--calls", NULL },
	{ "dump", "--calls", "--json", "--line-range", NULL },
	{ "dump", "--calls", "--indent", "--last", "10", NULL },
	{ "dump", "--insns", "--last", "10", NULL },
	{ "stats", NULL },
	{ "export", "--format", "speedscope", NULL },
	{ "export", "--format", "perfetto", NULL },
};

TEST(dump_stream, memory_stays_flat_from_1e5_to_1e6_records)
{
	struct harness_cmd rec;
	char *btr = raw_record("skip-qsort", NULL, 0, &rec);
	char *small = synth(btr, 100000), *big = synth(btr, 1000000);

	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		long a = peak_kib(views[v], small), b = peak_kib(views[v], big);

		fprintf(stderr, "btrace");
		for (size_t i = 0; views[v][i]; i++)
			fprintf(stderr, " %s", views[v][i]);
		fprintf(stderr, ": peak %ld KiB at 10^5 records, %ld KiB at 10^6\n",
			a, b);
		EXPECT_LT(4 * b, 5 * a);
	}
	harness_cmd_free(&rec);
	free(small);
	free(big);
	free(btr);
}

/*
 * btrace replay holds a window of the history: its peak, going to either
 * end, stepping there and walking a backtrace back to the start, stays
 * within 1.25 times its peak at 10^5 records while the records grow
 * tenfold.
 */
TEST(dump_stream, replay_memory_stays_flat_from_1e5_to_1e6_records)
{
	struct harness_cmd rec;
	char *btr = raw_record("skip-qsort", NULL, 0, &rec);
	char *small = synth(btr, 100000), *big = synth(btr, 1000000);
	char *script = harness_path(harness_tmpdir(), "replay-script");
	const char *args[] = { "replay", "-x", script, NULL };
	FILE *f = fopen(script, "w");
	long a, b;

	ASSERT_TRUE(f != NULL);
	fputs("goto end\nreverse-stepi 5000\nbt\ngoto begin\nstepi 3000\n"
	      "history 10\nreverse-finish\nbt\n", f);
	fclose(f);
	a = peak_kib(args, small);
	b = peak_kib(args, big);
	fprintf(stderr, "btrace replay: peak %ld KiB at 10^5 records, %ld KiB at 10^6\n",
		a, b);
	EXPECT_LT(4 * b, 5 * a);
	harness_cmd_free(&rec);
	free(script);
	free(small);
	free(big);
	free(btr);
}

/* The heap a trace holds with its file's index open and walked (bytes). */
static size_t index_heap(const char *btr)
{
	size_t before = harness_heap_in_use(), held, n;
	struct bts_insn_decoder *d;
	struct bts_index_point pt;
	struct bts_insn_entry e;
	struct bts_index *ix;
	struct bts_trace *t;
	uint64_t sites = 0;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_index_new(t, 0, NULL, &ix), 0);
	ASSERT_TRUE(bts_index_from_file(ix));
	n = bts_index_npoints(ix);
	for (size_t i = 0; i < n; i++) {
		ASSERT_EQ(bts_index_point(ix, i, &pt, sizeof(pt)), 0);
		sites += pt.nsites;
	}
	/* The synthetic stack only grows: most points keep many sites. */
	EXPECT_GT(sites, (uint64_t)n * 16);
	ASSERT_EQ(bts_insn_decoder_new(t, 0, NULL, &d), 0);
	ASSERT_EQ(bts_insn_decoder_seek(d, ix, bts_index_entries(ix) / 2), 0);
	ASSERT_EQ(bts_insn_next(d, &e, sizeof(e)), 1);
	EXPECT_EQ(e.index, bts_index_entries(ix) / 2);
	held = harness_heap_in_use() - before;
	bts_insn_decoder_free(d);
	bts_index_free(ix);
	bts_trace_free(t);
	return held;
}

/*
 * A file's index stays in the file: the heap that opening a trace, taking
 * its index, reading every point and seeking through it holds stays
 * within 1.25 times that at 10^5 records while the records (and points)
 * grow tenfold.
 */
TEST(dump_stream, file_index_heap_stays_flat_from_1e5_to_1e6_records)
{
	struct bts_index_opts o = { .sz = sizeof(o), .interval = 64 };
	struct harness_cmd rec;
	char *btr = raw_record("skip-qsort", NULL, 0, &rec);
	char *small = synth(btr, 100000), *big = synth(btr, 1000000);
	size_t a, b;

	ASSERT_EQ(bts_trace_index_file(small, &o), 0);
	ASSERT_EQ(bts_trace_index_file(big, &o), 0);
	a = index_heap(small);
	b = index_heap(big);
	fprintf(stderr, "file index: heap %zu bytes at 10^5 records, %zu at 10^6\n",
		a, b);
	EXPECT_LT(4 * b, 5 * a);
	harness_cmd_free(&rec);
	free(small);
	free(big);
	free(btr);
}
