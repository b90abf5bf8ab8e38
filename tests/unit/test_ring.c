// SPDX-License-Identifier: GPL-2.0-or-later
/* The record ring: producer position, wraps, and the three modes. */
#include "bts.h"
#include "bts_internal.h"
#include "harness.h"

static struct ptbts_record rec(uint64_t i)
{
	return (struct ptbts_record){ .from = i, .to = i + 1000 };
}

/* The unread records' @from values, oldest first, into @out. */
static size_t unread_froms(struct bts_ring *r, uint64_t *out, size_t max)
{
	struct bts_span span[2];
	int i, n = bts_ring_unread(r, span);
	size_t k = 0, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < span[i].n && k < max; j++)
			out[k++] = span[i].recs[j].from;
	return k;
}

TEST(ring, init_rejects_bad_arguments)
{
	struct ptbts_record mem[4];
	struct bts_ring *r;

	EXPECT_EQ(bts_ring_new(mem, 23, PTBTS_MODE_RING, &r), -BTS_E_INVAL);
	EXPECT_EQ(bts_ring_new(NULL, 96, PTBTS_MODE_RING, &r), -BTS_E_INVAL);
	EXPECT_EQ(bts_ring_new(mem, sizeof(mem), 7, &r), -BTS_E_INVAL);
	ASSERT_EQ(bts_ring_new(mem, sizeof(mem) - 1, PTBTS_MODE_RING, &r), 0);
	/* floor(size / 24), as the hardware fills a buffer */
	EXPECT_EQ(bts_ring_capacity(r), 3u);
	bts_ring_free(r);
}

TEST(ring, head_and_wraps)
{
	struct ptbts_record mem[4], x;
	struct bts_ring *r;
	uint64_t i;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_RING, &r), 0);
	for (i = 0; i < 10; i++) {
		x = rec(i);
		ASSERT_EQ(bts_ring_put(r, &x), 0);
	}
	/* 10 = 2 wraps of 4, and 2 records into the third round */
	EXPECT_EQ(r->wraps, 2u);
	EXPECT_EQ(r->head, 2 * 24u);
	EXPECT_EQ(bts_ring_written(r), 10u);
	EXPECT_EQ(mem[0].from, 8u);
	EXPECT_EQ(mem[1].from, 9u);
	EXPECT_EQ(mem[2].from, 6u);
	bts_ring_free(r);
}

TEST(ring, ring_mode_keeps_exactly_newest)
{
	struct ptbts_record mem[5], x;
	uint64_t got[16];
	struct bts_ring *r;
	size_t n, i;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_RING, &r), 0);
	for (i = 0; i < 13; i++) {
		x = rec(i);
		ASSERT_EQ(bts_ring_put(r, &x), 0);
	}
	n = unread_froms(r, got, 16);
	ASSERT_EQ(n, 5u);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(got[i], 8 + i);
	EXPECT_EQ(bts_ring_lost(r), 8u);
	bts_ring_consume(r, 5);
	EXPECT_EQ(unread_froms(r, got, 16), 0u);
	EXPECT_EQ(bts_ring_lost(r), 8u);
	bts_ring_free(r);
}

TEST(ring, ring_mode_partial_reads_count_lost_once)
{
	struct ptbts_record mem[3], x;
	uint64_t got[8];
	struct bts_ring *r;
	size_t i;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_RING, &r), 0);
	for (i = 0; i < 2; i++) {
		x = rec(i);
		bts_ring_put(r, &x);
	}
	ASSERT_EQ(unread_froms(r, got, 8), 2u);
	bts_ring_consume(r, 1);		/* 0 read, 1 unread */
	for (i = 2; i < 6; i++) {
		x = rec(i);
		bts_ring_put(r, &x);
	}
	/* unread were 1..5 (5), room 3: 1 and 2 overwritten */
	ASSERT_EQ(unread_froms(r, got, 8), 3u);
	EXPECT_EQ(got[0], 3u);
	EXPECT_EQ(got[1], 4u);
	EXPECT_EQ(got[2], 5u);
	EXPECT_EQ(bts_ring_lost(r), 2u);
	EXPECT_EQ(bts_ring_consumed(r), 3u);
	bts_ring_free(r);
}

TEST(ring, unread_spans_wrap)
{
	struct ptbts_record mem[4], x;
	struct bts_span span[2];
	struct bts_ring *r;
	size_t i;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_BLOCK, &r), 0);
	for (i = 0; i < 3; i++) {
		x = rec(i);
		ASSERT_EQ(bts_ring_put(r, &x), 0);
	}
	bts_ring_consume(r, 2);
	for (i = 3; i < 6; i++) {
		x = rec(i);
		ASSERT_EQ(bts_ring_put(r, &x), 0);
	}
	ASSERT_EQ(bts_ring_unread(r, span), 2);
	ASSERT_EQ(span[0].n, 2u);	/* slots 2, 3 */
	ASSERT_EQ(span[1].n, 2u);	/* slots 0, 1 */
	EXPECT_EQ(span[0].recs[0].from, 2u);
	EXPECT_EQ(span[0].recs[1].from, 3u);
	EXPECT_EQ(span[1].recs[0].from, 4u);
	EXPECT_EQ(span[1].recs[1].from, 5u);
	bts_ring_free(r);
}

TEST(ring, block_mode_again_when_full)
{
	struct ptbts_record mem[3], x = rec(0);
	uint64_t got[8];
	struct bts_ring *r;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_BLOCK, &r), 0);
	EXPECT_EQ(bts_ring_put(r, &x), 0);
	EXPECT_EQ(bts_ring_put(r, &x), 0);
	EXPECT_EQ(bts_ring_put(r, &x), 0);
	x = rec(99);
	EXPECT_EQ(bts_ring_put(r, &x), -BTS_E_AGAIN);
	EXPECT_EQ(bts_ring_written(r), 3u);
	bts_ring_consume(r, 1);
	EXPECT_EQ(bts_ring_put(r, &x), 0);
	EXPECT_EQ(bts_ring_put(r, &x), -BTS_E_AGAIN);
	ASSERT_EQ(unread_froms(r, got, 8), 3u);
	EXPECT_EQ(got[2], 99u);
	EXPECT_EQ(bts_ring_lost(r), 0u);
	bts_ring_free(r);
}

TEST(ring, stop_mode_drops_and_counts)
{
	struct ptbts_record mem[2], x;
	uint64_t got[8];
	struct bts_ring *r;
	size_t i;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_STOP, &r), 0);
	for (i = 0; i < 7; i++) {
		x = rec(i);
		EXPECT_EQ(bts_ring_put(r, &x), 0);
	}
	EXPECT_EQ(bts_ring_lost(r), 5u);
	ASSERT_EQ(unread_froms(r, got, 8), 2u);
	EXPECT_EQ(got[0], 0u);
	EXPECT_EQ(got[1], 1u);
	bts_ring_free(r);
}

TEST(ring, consume_never_passes_head)
{
	struct ptbts_record mem[4], x = rec(1);
	struct bts_ring *r;

	ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_BLOCK, &r), 0);
	bts_ring_put(r, &x);
	bts_ring_consume(r, 10);
	EXPECT_EQ(bts_ring_consumed(r), 1u);
	bts_ring_free(r);
}
