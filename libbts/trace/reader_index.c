// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * INDEX chunks (trace_format.h): checked whole when the file is opened,
 * as every chunk is, and copied into the thread's model.  What can be
 * checked without decoding is: the points follow each other, stay within
 * the thread's totals, start where the history starts, and their return
 * sites fill the chunk exactly.  The entry numbers themselves come from
 * the decoder that wrote them; a file whose numbers lie numbers its
 * entries wrongly from a point on, as one whose records lie would.
 */
#include <endian.h>
#include <stdlib.h>

#include "trace/index.h"
#include "trace/reader.h"
#include "util/array.h"

#define POINT_FLAGS	(BTS_IF_RESYNC | BTS_IF_SIGNAL)

void bts_index_release(struct bts_index *ix)
{
	if (!ix)
		return;
	if (!ix->borrowed) {
		free(ix->points);
		free(ix->sites);
	}
	free(ix);
}

struct bts_index *bts_index_copy(const struct bts_index *ix)
{
	struct bts_index *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *ix;
	c->borrowed = true;
	return c;
}

static const char *point_problem(const struct bts_index *ix,
				 const struct index_point *pt,
				 const struct trace_thread *th)
{
	const struct index_point *prev = ix->npoints ? pt - 1 : NULL;

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

static int read_points(struct bts_index *ix, const uint8_t *p, size_t plen,
		       size_t off, const struct trace_thread *th)
{
	size_t at = sizeof(struct bts_chunk_index), npoints = ix->cappoints;

	for (size_t i = 0; i < npoints; i++) {
		struct bts_chunk_index_point c;
		struct index_point *pt = &ix->points[i];
		const char *why;

		bts_chunk_load(&c, p + at, sizeof(c), BTS_LAYOUT_INDEX_POINT);
		at += sizeof(c);
		*pt = (struct index_point){
			.record = c.record, .entry = c.entry,
			.prev_to = c.prev_to, .depth = c.depth,
			.flags = (uint16_t)c.flags,
			.nsites = c.nsites, .site = ix->nsites,
		};
		if (c.flags > UINT16_MAX)
			pt->flags = UINT16_MAX;
		why = point_problem(ix, pt, th);
		if (why)
			return bts_fail(BTS_E_FORMAT, "offset %zu: index chunk: point %zu: %s",
					off, i, why);
		ix->npoints++;
		ix->nsites += pt->nsites;
	}
	if ((plen - at) / 8 != ix->nsites || (plen - at) % 8)
		return bts_reader_bad(off, "index chunk: its return sites do not fill the chunk");
	ix->sites = malloc((ix->nsites ? ix->nsites : 1) * sizeof(*ix->sites));
	if (!ix->sites)
		return bts_fail(BTS_E_NOMEM, "trace index");
	ix->capsites = ix->nsites;
	for (size_t i = 0; i < ix->nsites; i++) {
		uint64_t v;

		memcpy(&v, p + at + i * 8, 8);
		ix->sites[i] = le64toh(v);
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
	ix = calloc(1, sizeof(*ix));
	if (ix)
		ix->points = malloc(c.npoints * sizeof(*ix->points));
	if (!ix || !ix->points) {
		bts_index_release(ix);
		return bts_fail(BTS_E_NOMEM, "trace index");
	}
	*ix = (struct bts_index){
		.tid = c.tid, .from_file = true, .stack_max = c.stack_max,
		.interval = c.interval, .records = c.records,
		.entries = c.entries, .points = ix->points,
		.cappoints = c.npoints,
	};
	ret = read_points(ix, p, plen, off, th);
	if (ret) {
		bts_index_release(ix);
		return ret;
	}
	th->index = ix;
	/* Copied: the file's pages go back, as the records' do. */
	bts_reader_drop(t, off, sizeof(struct bts_chunk_header) + plen);
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
