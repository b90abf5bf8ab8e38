// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * INDEX chunks (trace_format.h): checked whole when the file is opened,
 * as every chunk is, and left in the file: the thread's model keeps a
 * group's sums and first entry for every BTS_INDEX_GROUP points, and
 * index_load.c reads a group again when it is asked for.  What can be
 * checked without decoding is: the points follow each other, stay within
 * the thread's totals, start where the history starts, and their return
 * sites fill the chunk exactly.  The entry numbers themselves come from
 * the decoder that wrote them; a file whose numbers lie numbers its
 * entries wrongly from a point on, as one whose records lie would.
 */
#include <stdlib.h>

#include "trace/index.h"
#include "trace/reader.h"

#define POINT_FLAGS	(BTS_IF_RESYNC | BTS_IF_SIGNAL)

void bts_index_release(struct bts_index *ix)
{
	if (!ix)
		return;
	if (!ix->borrowed) {
		free(ix->points);
		free(ix->sites);
		free(ix->groups);
	}
	free(ix->cache.sites);
	free(ix);
}

struct bts_index *bts_index_copy(const struct bts_index *ix)
{
	struct bts_index *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *ix;
	c->borrowed = true;
	c->cache.group = 0;
	c->cache.sites = NULL;
	c->cache.capsites = 0;
	return c;
}

static const char *point_problem(const struct bts_index *ix,
				 const struct index_point *pt,
				 const struct index_point *prev,
				 const struct trace_thread *th)
{
	if (!prev && (pt->record || pt->entry || pt->depth ||
		      pt->flags != BTS_IF_RESYNC || pt->nsites ||
		      pt->prev_to != th->info.start))
		return "its first point is not the start of the history";
	if (prev && (pt->record <= prev->record || pt->entry < prev->entry))
		return "its points are out of order";
	if (pt->record > ix->records || pt->entry > ix->entries)
		return "a point lies past the thread's end";
	if (pt->flags & ~POINT_FLAGS)
		return "a point has unknown flags";
	/* Every call and return is an entry. */
	/* A signal's first entry enters two frames. */
	if ((pt->depth < 0 ? -(uint64_t)pt->depth : (uint64_t)pt->depth) / 2 > pt->entry)
		return "a point's depth exceeds two frames an entry";
	if (pt->nsites > ix->stack_max)
		return "a point keeps more return sites than the chunk allows";
	return NULL;
}

/*
 * Every point checked in turn, each group's first entry, first site and
 * sum noted, and the pages given back as the check goes: the chunk is
 * never all in memory.
 */
static int read_points(struct bts_index *ix, const struct bts_trace *t,
		       size_t off, const struct trace_thread *th)
{
	const size_t psize = sizeof(struct bts_chunk_index_point);
	struct index_point pt, prev;

	for (size_t i = 0; i < ix->npoints; i++) {
		size_t at = ix->at_points + i * psize, g = i / BTS_INDEX_GROUP;
		const char *why;

		bts_index_point_load(&pt, t->buf + at, ix->nsites);
		why = point_problem(ix, &pt, i ? &prev : NULL, th);
		if (why)
			return bts_fail(BTS_E_FORMAT, "offset %zu: index chunk: point %zu: %s",
					off, i, why);
		if (i % BTS_INDEX_GROUP == 0)
			ix->groups[g] = (struct index_group){
				.entry = pt.entry, .site = ix->nsites,
			};
		if ((i + 1) % BTS_INDEX_GROUP == 0 || i + 1 == ix->npoints) {
			size_t from = g * BTS_INDEX_GROUP * psize;

			ix->groups[g].sum_points =
				bts_reader_raw_sum(t->buf + ix->at_points + from,
						   at + psize - ix->at_points - from);
			bts_reader_drop(t, ix->at_points + from,
					at + psize - ix->at_points - from);
		}
		ix->nsites += pt.nsites;
		prev = pt;
	}
	return 0;
}

/* The return sites fill the rest of the chunk: each group's sum. */
static int read_sites(struct bts_index *ix, const struct bts_trace *t,
		      size_t off, size_t end)
{
	if ((end - ix->at_sites) / 8 != ix->nsites || (end - ix->at_sites) % 8)
		return bts_reader_bad(off, "index chunk: its return sites do not fill the chunk");
	for (size_t g = 0; g < ix->ngroups; g++) {
		size_t first = ix->groups[g].site;
		size_t n = (g + 1 < ix->ngroups ? ix->groups[g + 1].site : ix->nsites) - first;

		ix->groups[g].sum_sites =
			bts_reader_raw_sum(t->buf + ix->at_sites + first * 8, n * 8);
		bts_reader_drop(t, ix->at_sites + first * 8, n * 8);
	}
	return 0;
}

static const char *head_problem(const struct bts_chunk_index *c, size_t plen,
				const struct trace_thread *th)
{
	if (!th || th->info.pid != c->pid)
		return "index chunk of a thread that has not appeared";
	if (th->index)
		return "a second index chunk for one thread";
	if (!c->npoints || c->npoints > BTS_INDEX_POINTS_MAX ||
	    !c->stack_max || c->stack_max > BTS_INDEX_STACK_MAX || !c->interval)
		return "index chunk: bad number of points, sites or interval";
	if ((plen - sizeof(*c)) / sizeof(struct bts_chunk_index_point) < c->npoints)
		return "index chunk: its points do not fit in the chunk";
	if (c->records != th->info.nrecords)
		return "index chunk: its records are not the thread's";
	return NULL;
}

int bts_read_index_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			 size_t off)
{
	size_t ngroups, at = p - t->buf;
	struct bts_chunk_index c;
	struct trace_thread *th;
	struct bts_index *ix;
	const char *why;
	int ret;

	if (plen < sizeof(c))
		return bts_reader_bad(off, "index chunk is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_INDEX);
	th = bts_reader_thread(t, c.tid);
	why = head_problem(&c, plen, th);
	if (why)
		return bts_reader_bad(off, why);
	ngroups = (c.npoints + BTS_INDEX_GROUP - 1) / BTS_INDEX_GROUP;
	ix = calloc(1, sizeof(*ix));
	if (ix)
		ix->groups = calloc(ngroups, sizeof(*ix->groups));
	if (!ix || !ix->groups) {
		bts_index_release(ix);
		return bts_fail(BTS_E_NOMEM, "trace index");
	}
	*ix = (struct bts_index){
		.tid = c.tid, .from_file = true, .stack_max = c.stack_max,
		.interval = c.interval, .records = c.records,
		.entries = c.entries, .npoints = c.npoints,
		.trace = t, .groups = ix->groups, .ngroups = ngroups,
		.at_points = at + sizeof(c),
		.at_sites = at + sizeof(c) + c.npoints * sizeof(struct bts_chunk_index_point),
	};
	ret = read_points(ix, t, off, th);
	if (!ret)
		ret = read_sites(ix, t, off, at + plen);
	if (ret) {
		bts_index_release(ix);
		return ret;
	}
	th->index = ix;
	bts_reader_drop(t, off, ix->at_points - off);
	return 0;
}

int bts_reader_check_indexes(const struct bts_trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		if (th->index && th->index->records != th->info.nrecords)
			return bts_fail(BTS_E_FORMAT,
					"thread %d has records after its index chunk: the file is damaged",
					(int)th->info.tid);
	}
	return 0;
}
