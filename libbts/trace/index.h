/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The index of a thread's history (bts.h, "the index of a history"), as
 * the reader takes it from an INDEX chunk (reader_index.c) and the
 * decoder builds it (decode/decode_index.c).
 */
#ifndef BTS_TRACE_INDEX_H
#define BTS_TRACE_INDEX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct index_point {
	uint64_t record;	/* records decoded before it */
	uint64_t entry;		/* entries numbered before it */
	uint64_t prev_to;	/* the decoder's: where the next block starts */
	int64_t depth;		/* calls minus returns */
	uint16_t flags;		/* the next entry's: BTS_IF_RESYNC, _SIGNAL */
	uint32_t nsites;
	size_t site;		/* its first return site in bts_index.sites */
};

struct bts_index {
	pid_t tid;
	bool from_file;
	bool borrowed;		/* @points and @sites are the trace's */
	uint32_t stack_max;
	uint64_t interval, records, entries;
	struct index_point *points;
	size_t npoints, cappoints;
	uint64_t *sites;	/* every point's, innermost first */
	size_t nsites, capsites;
};

void bts_index_release(struct bts_index *ix);
/*
 * A copy of @ix that shares its points and sites (@ix, the trace's, lives
 * as long as the trace, which outlives its copies), or NULL when memory
 * ran out.
 */
struct bts_index *bts_index_copy(const struct bts_index *ix);

#endif /* BTS_TRACE_INDEX_H */
