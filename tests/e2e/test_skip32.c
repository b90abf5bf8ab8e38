// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --skip on an i386 program (i386-skip-qsort, skip-qsort
 * built -m32): skip.c reads its stack in 4-byte words and its PLT and
 * calls through pointers are carried out as 32-bit branches, so the same
 * holds as for the 64-bit program (test_skip.c):
 *  - every record starts in the program's own text (nothing of libc or
 *    ld.so is recorded), and markers are "filtered", never "gap";
 *  - each of the two calls into qsort (through a pointer) is recorded,
 *    exactly {the call -> qsort};
 *  - each run of the comparator libc calls back is exactly a filtered
 *    marker, {skip_cmp_ret -> libc}, and another filtered marker;
 *  - the program runs as it would untraced (it checks its sorts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

#define PROG32 "i386-skip-qsort"

struct skip32_run {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_dump dump;
	int calls;
};

static void record32(const char *const opts[], struct skip32_run *r)
{
	const char *c;

	r->btr = raw_record(PROG32, opts, 0, &r->cmd);
	raw_labels_parse(r->cmd.out, &r->labels);
	c = strstr(r->cmd.out, "calls ");
	ASSERT_TRUE(c != NULL);
	r->calls = atoi(c + 6);
	ASSERT_GT(r->calls, 0);
	raw_dump_load(r->btr, &r->dump);
	ASSERT_EQ(r->dump.n, (size_t)1);
}

static void free_run32(struct skip32_run *r)
{
	raw_dump_free(&r->dump);
	raw_labels_free(&r->labels);
	harness_cmd_free(&r->cmd);
	unlink(r->btr);
	free(r->btr);
}

/* The marker of @t right before record @i, or NULL. */
static const char *marker_at(const struct raw_thread *t, size_t i)
{
	size_t m;

	for (m = 0; m < t->nmarkers; m++)
		if (t->marker_pos[m] == i)
			return t->markers[m];
	return NULL;
}

static size_t count_from(const struct raw_thread *t, uint64_t from)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->recs[i].from == from;
	return n;
}

TEST(skip32, libc_and_ld_so_run_free_but_the_callback_is_recorded)
{
	const char *opts[] = { "--skip", "libc.so.6", "--skip", "ld-linux*", NULL };
	struct skip32_run r;
	const struct raw_thread *t;
	uint64_t lo, hi, ret, qsort_at;
	const char *m;
	size_t i, cmp = 0, to_qsort = 0;

	record32(opts, &r);
	t = &r.dump.threads[0];
	lo = raw_label(&r.labels, "text_lo");
	hi = raw_label(&r.labels, "text_hi");
	ret = raw_label(&r.labels, "skip_cmp_ret");
	qsort_at = raw_label(&r.labels, "qsort");
	EXPECT_EQ(raw_count_markers(t, "gap"), (size_t)0);
	EXPECT_GT(raw_count_markers(t, "filtered"), (size_t)0);
	EXPECT_EQ(raw_count_markers(t, "filtered"), t->nmarkers);
	for (i = 0; i < t->n; i++) {
		if (t->recs[i].from < lo || t->recs[i].from >= hi)
			FAIL("record %zu starts at 0x%llx, outside the program's text",
			     i, (unsigned long long)t->recs[i].from);
		to_qsort += t->recs[i].to == qsort_at;
		if (t->recs[i].from != ret)
			continue;
		cmp++;
		m = marker_at(t, i);
		EXPECT_TRUE(m && !strncmp(m, "filtered", 8));
		m = marker_at(t, i + 1);
		EXPECT_TRUE(m && !strncmp(m, "filtered", 8));
	}
	EXPECT_EQ(cmp, (size_t)r.calls);
	EXPECT_EQ(to_qsort, (size_t)2);
	free_run32(&r);
}

TEST(skip32, without_skip_the_same_callbacks_and_libc_too)
{
	const char *opts[] = { "--skip", "no-such-object.so", NULL };
	struct skip32_run r, full;
	uint64_t lo, hi;
	size_t i, outside = 0;

	record32(NULL, &full);
	record32(opts, &r);
	/* A glob that matches nothing changes nothing. */
	EXPECT_EQ(r.dump.threads[0].n, full.dump.threads[0].n);
	EXPECT_EQ(raw_count_markers(&full.dump.threads[0], "filtered"), (size_t)0);
	EXPECT_EQ(count_from(&full.dump.threads[0],
			     raw_label(&full.labels, "skip_cmp_ret")),
		  (size_t)full.calls);
	/* Traced in full, libc's and ld.so's own branches are there. */
	lo = raw_label(&full.labels, "text_lo");
	hi = raw_label(&full.labels, "text_hi");
	for (i = 0; i < full.dump.threads[0].n; i++)
		outside += full.dump.threads[0].recs[i].from < lo ||
			   full.dump.threads[0].recs[i].from >= hi;
	EXPECT_GT(outside, (size_t)0);
	free_run32(&r);
	free_run32(&full);
}

/* libc alone skipped (ld.so traced): every comparator run is still there. */
TEST(skip32, libc_alone_skipped_keeps_every_callback)
{
	const char *opts[] = { "--skip", "libc.so.6", NULL };
	struct skip32_run r;

	record32(opts, &r);
	EXPECT_EQ(count_from(&r.dump.threads[0],
			     raw_label(&r.labels, "skip_cmp_ret")),
		  (size_t)r.calls);
	EXPECT_GT(raw_count_markers(&r.dump.threads[0], "filtered"), (size_t)0);
	EXPECT_EQ(raw_count_markers(&r.dump.threads[0], "gap"), (size_t)0);
	EXPECT_EQ(raw_count_markers(&r.dump.threads[0], "filtered"),
		  r.dump.threads[0].nmarkers);
	free_run32(&r);
}
