/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A thread's record iterator, for the parts of libbts that hold one in
 * their own state (decode/): callers of bts.h get an opaque one from
 * bts_rec_iter_new().  trace/reader_records.c walks it.
 */
#ifndef BTS_TRACE_REC_ITER_H
#define BTS_TRACE_REC_ITER_H

#include "bts.h"

struct bts_rec_iter {
	const struct bts_trace *trace;
	size_t thread;
	size_t batch;		/* the thread's batch being read */
	uint64_t index;		/* the next record in that batch */
	/*
	 * That batch's records in a cache slot of the reader, host order,
	 * @nrecs of them, while the trace's fills count is still @fills;
	 * NULL: none.
	 */
	const struct ptbts_record *recs;
	uint32_t nrecs;
	uint64_t fills;
};

/* bts_rec_iter_new() into an iterator the caller holds. */
void bts_rec_iter_init(const struct bts_trace *t, size_t thread,
		       struct bts_rec_iter *it);

#endif /* BTS_TRACE_REC_ITER_H */
