// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The record ring, with the kernel ABI's producer protocol.
 *
 * The producer owns @head (byte offset of the next slot) and @wraps (how
 * often @head went back to 0); the consumer owns @tail, a count of records
 * consumed since the start, so that it cannot be ambiguous across a wrap.
 * written - tail is the number of unread records.  In RING mode the
 * producer overwrites unread records: the consumer notices, when it asks
 * for the unread ones, that more than @cap are unread and skips (and counts
 * as lost) the overwritten ones.
 *
 * No barrier here: the producer and the consumer of such a ring are one
 * thread (the ptrace-step tracer, session/session_threads.c).  The module's
 * rings are not read through this code: their positions come from STATUS,
 * whose load-acquire of the count (C in kernel/ptrace_bts/ring.c) orders
 * the records before the ioctl returns, and ACK's store-release of the
 * tail (D there) orders the reads before the slots are reused
 * (sources/kmod/kmod_source.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "records/ring.h"

#define REC_SIZE sizeof(struct ptbts_record)

int bts_ring_init(struct bts_ring *ring, void *mem, size_t size, int mode)
{
	if (!ring || !mem)
		return bts_fail(BTS_E_INVAL, "ring: no memory given");
	if (size < REC_SIZE)
		return bts_fail(BTS_E_INVAL, "ring: %zu bytes hold no record", size);
	if (mode != PTBTS_MODE_RING && mode != PTBTS_MODE_STOP &&
	    mode != PTBTS_MODE_BLOCK)
		return bts_fail(BTS_E_INVAL, "ring: unknown mode %d", mode);
	*ring = (struct bts_ring){
		.recs = mem,
		.cap = size / REC_SIZE,
		.mode = mode,
	};
	return 0;
}

int bts_ring_new(void *mem, size_t size, int mode, struct bts_ring **out)
{
	struct bts_ring *ring;
	int err;

	if (!out)
		return bts_fail(BTS_E_INVAL, "ring: nowhere to put it");
	ring = malloc(sizeof(*ring));
	if (!ring)
		return bts_fail(BTS_E_NOMEM, "ring");
	err = bts_ring_init(ring, mem, size, mode);
	if (err) {
		free(ring);
		return err;
	}
	*out = ring;
	return 0;
}

void bts_ring_free(struct bts_ring *ring)
{
	free(ring);
}

uint64_t bts_ring_capacity(const struct bts_ring *ring)
{
	return ring->cap;
}

uint64_t bts_ring_written(const struct bts_ring *ring)
{
	return ring->wraps * ring->cap + ring->head / REC_SIZE;
}

uint64_t bts_ring_consumed(const struct bts_ring *ring)
{
	return ring->tail;
}

uint64_t bts_ring_lost(const struct bts_ring *ring)
{
	return ring->lost;
}

static bool ring_full(const struct bts_ring *ring)
{
	return bts_ring_written(ring) - ring->tail >= ring->cap;
}

int bts_ring_put(struct bts_ring *ring, const struct ptbts_record *rec)
{
	if (ring->mode != PTBTS_MODE_RING && ring_full(ring)) {
		if (ring->mode == PTBTS_MODE_BLOCK)
			return -BTS_E_AGAIN;
		ring->lost++;
		return 0;
	}
	ring->recs[ring->head / REC_SIZE] = *rec;
	ring->head += REC_SIZE;
	if (ring->head == ring->cap * REC_SIZE) {
		ring->head = 0;
		ring->wraps++;
	}
	return 0;
}

int bts_ring_unread(struct bts_ring *ring, struct bts_span span[2])
{
	uint64_t written = bts_ring_written(ring);
	uint64_t n, first;

	if (written - ring->tail > ring->cap) {
		ring->lost += written - ring->tail - ring->cap;
		ring->tail = written - ring->cap;
	}
	n = written - ring->tail;
	if (!n)
		return 0;
	first = ring->tail % ring->cap;
	span[0].recs = ring->recs + first;
	if (first + n <= ring->cap) {
		span[0].n = n;
		return 1;
	}
	span[0].n = ring->cap - first;
	span[1].recs = ring->recs;
	span[1].n = n - span[0].n;
	return 2;
}

void bts_ring_consume(struct bts_ring *ring, uint64_t n)
{
	uint64_t unread = bts_ring_written(ring) - ring->tail;

	ring->tail += n < unread ? n : unread;
}
