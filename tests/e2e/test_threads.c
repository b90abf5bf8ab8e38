// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Threads: threads-count runs four workers; worker k makes 300 * (k + 1)
 * calls to thr_leaf from thr_loop.  Recorded in BLOCK mode with a 4 KiB
 * buffer per thread (170 records, filled many times over), every thread
 * has its own records, each worker's thr_loop visit is exactly the
 * expected sequence, the main thread never runs thr_loop, and nothing is
 * lost.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "raw_dump.h"

#define NWORKERS 4

struct worker {
	int tid;
	int iters;
};

/* "worker K tid TID iters N" lines; "main tid PID". */
static int parse_workers(const char *out, struct worker *w)
{
	const char *p = out;
	int main_tid = 0, k, tid, iters;

	for (int i = 0; i < NWORKERS; i++)
		w[i].tid = 0;
	while (p && *p) {
		if (sscanf(p, "worker %d tid %d iters %d", &k, &tid, &iters) == 3 &&
		    k >= 0 && k < NWORKERS)
			w[k] = (struct worker){ tid, iters };
		sscanf(p, "main tid %d", &main_tid);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	for (int i = 0; i < NWORKERS; i++)
		if (!w[i].tid)
			FAIL("the program did not report worker %d", i);
	if (!main_tid)
		FAIL("the program did not report its main thread");
	return main_tid;
}

/* thr_loop(n): entered once, n rounds of call/return/back jump, left once. */
static void expect_worker(const struct raw_thread *t, struct raw_labels *l,
			  int k, int iters)
{
	size_t n = 0, cap = 3 * (size_t)iters + 2, start, calls = 0;
	struct raw_pair *want = calloc(cap, sizeof(*want));
	char what[64], call[32], resume[32];

	ASSERT_TRUE(want != NULL);
	/* The call in the C worker: a direct call, 5 bytes. */
	start = raw_find_one(t, 0, raw_label(l, "thr_loop"));
	snprintf(call, sizeof(call), "worker%d_call", k);
	snprintf(resume, sizeof(resume), "worker%d_resume", k);
	raw_labels_add(l, call, t->recs[start].from);
	raw_labels_add(l, resume, t->recs[start].from + 5);
	want[n++] = (struct raw_pair){ call, "thr_loop" };
	for (int i = 0; i < iters; i++) {
		want[n++] = (struct raw_pair){ "thr_call", "thr_leaf" };
		want[n++] = (struct raw_pair){ "thr_leaf_ret", "thr_after" };
		if (i + 1 < iters)
			want[n++] = (struct raw_pair){ "thr_jnz", "thr_top" };
	}
	want[n++] = (struct raw_pair){ "thr_loop_ret", resume };
	snprintf(what, sizeof(what), "thread %d", t->tid);
	raw_expect_seq(what, l, t->recs + start,
		       t->n - start < n ? t->n - start : n, want, n);
	raw_expect_no_marker(t, start, start + n - 1);
	/* Nothing else in the thread enters thr_leaf. */
	for (size_t i = 0; i < t->n; i++)
		calls += t->recs[i].to == raw_label(l, "thr_leaf");
	EXPECT_EQ(calls, (size_t)iters);
	free(want);
}

static void expect_untouched(const struct raw_thread *t,
			     const struct raw_labels *l)
{
	uint64_t lo = raw_label(l, "thr_loop");
	uint64_t hi = raw_label(l, "thr_leaf_ret");

	for (size_t i = 0; i < t->n; i++)
		if ((t->recs[i].from >= lo && t->recs[i].from <= hi) ||
		    (t->recs[i].to >= lo && t->recs[i].to <= hi))
			FAIL("main thread %d: record %zu 0x%llx -> 0x%llx is in thr_loop",
			     t->tid, i, (unsigned long long)t->recs[i].from,
			     (unsigned long long)t->recs[i].to);
}

TEST(threads, four_workers_block_mode_lossless)
{
	const char *opts[] = { "--mode", "block", "--buffer", "4K", NULL };
	struct worker w[NWORKERS];
	struct harness_cmd cmd;
	struct raw_summary sum;
	struct raw_labels l;
	struct raw_dump d;
	const struct raw_thread *t;
	uint64_t lines = 0;
	int main_tid;
	char *btr = raw_record("threads-count", opts, 0, &cmd);

	raw_labels_parse(cmd.out, &l);
	main_tid = parse_workers(cmd.out, w);
	raw_summary_parse(cmd.err, &sum);
	raw_dump_load(btr, &d);
	EXPECT_EQ(sum.threads, (uint64_t)(NWORKERS + 1));
	EXPECT_EQ(sum.lost, (uint64_t)0);
	ASSERT_EQ(d.n, (size_t)(NWORKERS + 1));
	for (size_t i = 0; i < d.n; i++) {
		EXPECT_GT(d.threads[i].n, (size_t)0);
		EXPECT_EQ(raw_count_markers(&d.threads[i], "lost"), (size_t)0);
		EXPECT_EQ(raw_count_markers(&d.threads[i], "gap"), (size_t)0);
		lines += d.threads[i].n + d.threads[i].nmarkers;
	}
	EXPECT_EQ(lines, sum.records);

	t = raw_dump_thread(&d, main_tid);
	ASSERT_TRUE(t != NULL);
	expect_untouched(t, &l);
	for (int k = 0; k < NWORKERS; k++) {
		t = raw_dump_thread(&d, w[k].tid);
		if (!t)
			FAIL("no records for worker %d (thread %d)", k, w[k].tid);
		expect_worker(t, &l, k, w[k].iters);
	}
	raw_dump_free(&d);
	raw_labels_free(&l);
	harness_cmd_free(&cmd);
	free(btr);
}
