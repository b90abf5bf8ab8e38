/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The record ring's insides, for the parts of libbts that embed one (a
 * ptrace-step thread's, session/session.h).  Callers of bts.h get an
 * opaque ring from bts_ring_new().
 *
 * @head is the byte offset where the next record lands and @wraps counts
 * returns to 0, so wraps * cap + head / 24 records were written in all.
 */
#ifndef BTS_RECORDS_RING_H
#define BTS_RECORDS_RING_H

#include "bts.h"

struct bts_ring {
	struct ptbts_record *recs;
	uint64_t cap;		/* records */
	uint64_t head;		/* bytes */
	uint64_t wraps;
	uint64_t lost;		/* records overwritten (RING) or dropped (STOP) */
	uint64_t tail;		/* records consumed, counted since the start */
	int mode;		/* &enum ptbts_mode */
};

/* bts_ring_new() into a ring the caller holds: 0 or -BTS_E_INVAL. */
int bts_ring_init(struct bts_ring *ring, void *mem, size_t size, int mode);

#endif /* BTS_RECORDS_RING_H */
