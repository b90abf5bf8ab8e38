// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --skip (libbts/sources/ptrace-step/skip.c) on skip-qsort: libc and ld.so run
 * at full speed, and yet
 *  - every record starts in the program's own text (nothing of libc or
 *    ld.so is recorded), and markers are "filtered", never "gap";
 *  - each of the two calls into qsort (through a pointer) is recorded,
 *    exactly {the call -> qsort};
 *  - the comparator that libc calls back is seen every time it runs: each
 *    run is exactly a filtered marker, {skip_cmp_ret -> libc}, and another
 *    filtered marker (the program counts the runs itself);
 *  - the program runs as it would untraced (it checks its sorts).
 * The same holds for i386-skip-qsort, the program built -m32 (suite
 * skip32): skip.c reads its stack in 4-byte words, and its PLT and calls
 * through pointers are carried out as 32-bit branches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

struct skip_run {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_dump dump;
	int calls;
};

#define PROG64 "skip-qsort"
#define PROG32 "i386-skip-qsort"

static void record_skip(const char *prog, const char *const opts[],
			struct skip_run *r)
{
	const char *c;

	r->btr = raw_record(prog, opts, 0, &r->cmd);
	raw_labels_parse(r->cmd.out, &r->labels);
	c = strstr(r->cmd.out, "calls ");
	ASSERT_TRUE(c != NULL);
	r->calls = atoi(c + 6);
	ASSERT_GT(r->calls, 0);
	raw_dump_load(r->btr, &r->dump);
	ASSERT_EQ(r->dump.n, (size_t)1);
}

static void free_skip_run(struct skip_run *r)
{
	raw_dump_free(&r->dump);
	raw_labels_free(&r->labels);
	harness_cmd_free(&r->cmd);
	unlink(r->btr);
	free(r->btr);
}

/* Whether a marker of @t stands right before record @i, and its text. */
static const char *marker_before(const struct raw_thread *t, size_t i)
{
	size_t m;

	for (m = 0; m < t->nmarkers; m++)
		if (t->marker_pos[m] == i)
			return t->markers[m];
	return NULL;
}

static size_t count_to(const struct raw_thread *t, uint64_t to)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->recs[i].to == to;
	return n;
}

static size_t count_from(const struct raw_thread *t, uint64_t from)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->recs[i].from == from;
	return n;
}

static void libc_and_ld_so_skipped(const char *prog)
{
	const char *opts[] = { "--skip", "libc.so.6", "--skip", "ld-linux*", NULL };
	struct skip_run r;
	const struct raw_thread *t;
	uint64_t lo, hi, ret;
	const char *m;
	size_t i, cmp = 0;

	record_skip(prog, opts, &r);
	t = &r.dump.threads[0];
	lo = raw_label(&r.labels, "text_lo");
	hi = raw_label(&r.labels, "text_hi");
	ret = raw_label(&r.labels, "skip_cmp_ret");
	EXPECT_EQ(raw_count_markers(t, "gap"), (size_t)0);
	EXPECT_GT(raw_count_markers(t, "filtered"), (size_t)0);
	EXPECT_EQ(raw_count_markers(t, "filtered"), t->nmarkers);
	for (i = 0; i < t->n; i++) {
		if (t->recs[i].from < lo || t->recs[i].from >= hi)
			FAIL("record %zu starts at 0x%llx, outside the program's text",
			     i, (unsigned long long)t->recs[i].from);
		if (t->recs[i].from != ret)
			continue;
		cmp++;
		m = marker_before(t, i);
		EXPECT_TRUE(m && !strncmp(m, "filtered", 8));
		m = marker_before(t, i + 1);
		EXPECT_TRUE(m && !strncmp(m, "filtered", 8));
	}
	EXPECT_EQ(cmp, (size_t)r.calls);
	EXPECT_EQ(count_to(t, raw_label(&r.labels, "qsort")), (size_t)2);
	free_skip_run(&r);
}

static void unmatched_glob_changes_nothing(const char *prog)
{
	const char *opts[] = { "--skip", "no-such-object.so", NULL };
	struct skip_run r, full;
	const struct raw_thread *t;
	size_t i, outside = 0;
	unsigned long persona;
	uint64_t lo, hi;

	persona = harness_aslr_off();
	record_skip(prog, NULL, &full);
	record_skip(prog, opts, &r);
	harness_aslr_restore(persona);
	t = &full.dump.threads[0];
	EXPECT_EQ(r.dump.threads[0].n, t->n);
	EXPECT_EQ(raw_count_markers(t, "filtered"), (size_t)0);
	EXPECT_EQ(count_from(t, raw_label(&full.labels, "skip_cmp_ret")),
		  (size_t)full.calls);
	/* Traced in full, libc's and ld.so's own branches are there. */
	lo = raw_label(&full.labels, "text_lo");
	hi = raw_label(&full.labels, "text_hi");
	for (i = 0; i < t->n; i++)
		outside += t->recs[i].from < lo || t->recs[i].from >= hi;
	EXPECT_GT(outside, (size_t)0);
	free_skip_run(&r);
	free_skip_run(&full);
}

/* libc alone skipped (ld.so traced): every comparator run is still there. */
static void libc_alone_skipped(const char *prog)
{
	const char *opts[] = { "--skip", "libc.so.6", NULL };
	struct skip_run r;
	const struct raw_thread *t;

	record_skip(prog, opts, &r);
	t = &r.dump.threads[0];
	EXPECT_EQ(count_from(t, raw_label(&r.labels, "skip_cmp_ret")),
		  (size_t)r.calls);
	EXPECT_GT(raw_count_markers(t, "filtered"), (size_t)0);
	EXPECT_EQ(raw_count_markers(t, "gap"), (size_t)0);
	EXPECT_EQ(raw_count_markers(t, "filtered"), t->nmarkers);
	free_skip_run(&r);
}

TEST(skip, libc_and_ld_so_run_free_but_the_callback_is_recorded)
{
	libc_and_ld_so_skipped(PROG64);
}

TEST(skip, without_skip_the_same_callbacks_and_more)
{
	unmatched_glob_changes_nothing(PROG64);
}

TEST(skip, libc_alone_skipped_keeps_every_callback)
{
	libc_alone_skipped(PROG64);
}

TEST(skip32, libc_and_ld_so_run_free_but_the_callback_is_recorded)
{
	REQUIRE_I386();
	libc_and_ld_so_skipped(PROG32);
}

TEST(skip32, without_skip_the_same_callbacks_and_libc_too)
{
	REQUIRE_I386();
	unmatched_glob_changes_nothing(PROG32);
}

TEST(skip32, libc_alone_skipped_keeps_every_callback)
{
	REQUIRE_I386();
	libc_alone_skipped(PROG32);
}

TEST(skip, an_empty_name_is_refused)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("skip-qsort");
	char *out = harness_path(harness_tmpdir(), "skip-empty.btr");
	char *argv[] = { btrace, "record", "-o", out, "--skip", "", "--", prog, NULL };
	struct harness_cmd cmd;

	ASSERT_EQ(harness_run(argv, 30, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 125);
	EXPECT_TRUE(strstr(cmd.err, "expected an object name") != NULL);
	EXPECT_EQ(access(out, F_OK), -1);
	harness_cmd_free(&cmd);
	free(btrace);
	free(prog);
	free(out);
}

/* stats tells the regions left out on purpose apart from real holes. */
TEST(skip, stats_counts_filtered_regions_apart_from_gaps)
{
	const char *opts[] = { "--skip", "libc.so.6", "--skip", "ld-linux*", NULL };
	char *btrace = BTRACE_PATH();
	struct harness_cmd cmd;
	struct skip_run r;
	char want[64];

	record_skip(PROG64, opts, &r);
	char *argv[] = { btrace, "stats", r.btr, NULL };

	ASSERT_EQ(harness_run(argv, 30, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	EXPECT_TRUE(strstr(cmd.out, "    gaps          0\n") != NULL);
	snprintf(want, sizeof(want), "    filtered      %zu\n",
		 raw_count_markers(&r.dump.threads[0], "filtered"));
	EXPECT_TRUE(strstr(cmd.out, want) != NULL);
	harness_cmd_free(&cmd);
	free_skip_run(&r);
	free(btrace);
}
