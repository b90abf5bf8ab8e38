// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RING mode keeps exactly the newest N = floor(buffer / 24) records and
 * counts the rest as lost.  static-ring-tail is a static program without
 * libc whose every branch is known (tests/progs/static-ring-tail.S): a
 * loop of known pattern, then a raw exit_group.  Its BLOCK-mode trace must
 * be exactly that sequence, the same in two runs; that total less N is
 * what RING mode must report lost, and the N records it keeps must be the
 * end of the sequence; STOP mode keeps the N first, and counts the rest.
 * (A libc program is not used here: where the kernel
 * puts the stack changes the alignment-dependent paths of libc's string
 * functions now and then, and so its total.)
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "raw_dump.h"

#define PROG "static-ring-tail"
#define RING_BUFFER "4096"	/* not a multiple of 24: 170 records, 16 bytes spare */
#define RING_N (4096 / 24)

struct run {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_summary sum;
	struct raw_dump dump;
	const struct raw_thread *t;
	struct raw_pair *all;	/* every branch of the program, oldest first */
	size_t nall;
};

/* The program's records, written out from its labels. */
static void expected_records(struct run *r)
{
	uint64_t rounds = raw_label(&r->labels, "ring_rounds");

	ASSERT_GT(rounds, (uint64_t)RING_N);
	r->all = calloc(4 * rounds, sizeof(*r->all));
	ASSERT_TRUE(r->all != NULL);
	r->nall = 0;
	for (uint64_t v = rounds; v >= 1; v--) {
		r->all[r->nall++] = (struct raw_pair){ "ring_call", "ring_leaf" };
		r->all[r->nall++] = (struct raw_pair){ "ring_leaf_ret", "ring_after" };
		if (v % 2 == 0)
			r->all[r->nall++] = (struct raw_pair){ "ring_jz", "ring_even" };
		if (v > 1)
			r->all[r->nall++] = (struct raw_pair){ "ring_jnz", "ring_top" };
	}
}

static void record_run(struct run *r, const char *const opts[])
{
	char *path = PROG_PATH(PROG);

	memset(r, 0, sizeof(*r));
	r->btr = raw_record(PROG, opts, 0, &r->cmd);
	raw_labels_from_elf(path, &r->labels);
	free(path);
	raw_summary_parse(r->cmd.err, &r->sum);
	raw_dump_load(r->btr, &r->dump);
	ASSERT_EQ(r->sum.threads, (uint64_t)1);
	ASSERT_EQ(r->dump.n, (size_t)1);
	r->t = &r->dump.threads[0];
	EXPECT_EQ(r->sum.records, r->t->n + r->t->nmarkers);
	expected_records(r);
}

static void free_run(struct run *r)
{
	free(r->all);
	raw_dump_free(&r->dump);
	raw_labels_free(&r->labels);
	harness_cmd_free(&r->cmd);
	free(r->btr);
}

/* A BLOCK run: every record, exactly; returns how many the file holds. */
static uint64_t block_total(void)
{
	const char *opts[] = { "--mode", "block", NULL };
	struct run r;
	uint64_t total;

	record_run(&r, opts);
	total = r.t->n + r.t->nmarkers;
	EXPECT_EQ(r.sum.lost, (uint64_t)0);
	EXPECT_EQ(r.t->nmarkers, (size_t)0);
	raw_expect_seq("block mode", &r.labels, r.t->recs, r.t->n, r.all, r.nall);
	free_run(&r);
	return total;
}

TEST(ring_mode, keeps_exactly_the_newest_n)
{
	const char *opts[] = { "--mode", "ring", "--buffer", RING_BUFFER, NULL };
	uint64_t total = block_total(), again = block_total();
	struct run r;

	ASSERT_EQ(total, again);
	ASSERT_GT(total, (uint64_t)RING_N);
	record_run(&r, opts);
	/* The newest N, oldest first: the end of the program, nothing else. */
	raw_expect_seq("ring mode", &r.labels, r.t->recs, r.t->n,
		       r.all + r.nall - RING_N, RING_N);
	EXPECT_EQ(r.sum.lost, total - RING_N);
	/* The file says so too: one "# lost" marker, before the records. */
	ASSERT_EQ(r.t->nmarkers, (size_t)1);
	EXPECT_EQ(r.t->marker_pos[0], (size_t)0);
	EXPECT_EQ(r.t->lost, total - RING_N);
	free_run(&r);
}

/*
 * STOP mode keeps exactly the oldest N records and counts the rest: the
 * start of the program, then one "# lost" marker; the program runs on to
 * its end (exit 0).
 */
TEST(stop_mode, keeps_exactly_the_oldest_n)
{
	const char *opts[] = { "--mode", "stop", "--buffer", RING_BUFFER, NULL };
	uint64_t total = block_total();
	struct run r;

	ASSERT_GT(total, (uint64_t)RING_N);
	record_run(&r, opts);
	raw_expect_seq("stop mode", &r.labels, r.t->recs, r.t->n, r.all, RING_N);
	EXPECT_EQ(r.sum.lost, total - RING_N);
	ASSERT_EQ(r.t->nmarkers, (size_t)1);
	EXPECT_EQ(r.t->marker_pos[0], (size_t)RING_N);
	EXPECT_EQ(r.t->lost, total - RING_N);
	free_run(&r);
}
