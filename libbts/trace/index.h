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

/* Points of a file's index per group read from the file at once. */
#define BTS_INDEX_GROUP	64

/*
 * A group of a file's index, checked when the file was opened: the first
 * entry of its points (to find one without reading them), where its
 * return sites start, and the sums of its points' and sites' bytes (a
 * file rewritten since reads as changed, never as other points).
 */
struct index_group {
	uint64_t entry;
	size_t site;
	uint64_t sum_points, sum_sites;
};

/*
 * A built index holds its @points and @sites.  A file's holds only its
 * @groups: its points stay in the file and are read a group at a time
 * into @cache, so that its memory is a group's, however long the history.
 */
struct bts_index {
	pid_t tid;
	bool from_file;
	bool borrowed;		/* @points, @sites and @groups are the trace's */
	uint32_t stack_max;
	uint64_t interval, records, entries;
	struct index_point *points;
	size_t npoints, cappoints;
	uint64_t *sites;	/* every point's, innermost first */
	size_t nsites, capsites;
	/* A file's: where its points and sites lie in the trace's bytes. */
	const struct bts_trace *trace;
	size_t at_points, at_sites;
	struct index_group *groups;
	size_t ngroups;
	struct {
		size_t group;	/* the group held + 1; 0: none */
		struct index_point points[BTS_INDEX_GROUP];
		uint64_t *sites;
		size_t capsites;
	} cache;
};

/*
 * Point @i of @ix (< its npoints) into *@pt and its return sites into
 * *@sites, valid until the next call for @ix: 0, or a negative &enum
 * bts_error, said (a file's index changed since it was opened, no memory).
 */
int bts_index_at(const struct bts_index *ix, size_t i,
		 const struct index_point **pt, const uint64_t **sites);
/*
 * The point at @p, as the file holds it (struct bts_chunk_index_point),
 * with its first return site at @site.
 */
void bts_index_point_load(struct index_point *pt, const uint8_t *p,
			  size_t site);

void bts_index_release(struct bts_index *ix);
/*
 * A copy of @ix that shares its points, sites and groups (@ix, the
 * trace's, lives as long as the trace, which outlives its copies), with a
 * cache of its own, or NULL when memory ran out.
 */
struct bts_index *bts_index_copy(const struct bts_index *ix);

#endif /* BTS_TRACE_INDEX_H */
