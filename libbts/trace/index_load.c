// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The points of a file's index, read from the file a group at a time when
 * asked for (trace/index.h): the INDEX chunk was checked whole when the
 * file was opened, its pages given back, and each group's sums noted, so
 * that what is read again is the same or refused.  A mapped file's group
 * is read with pread(), not through the mapping: a goto reads one, and
 * pages mapped for it would cost faults and a drop each time.  Its memory
 * is one group's, however long the history.
 */
#include <endian.h>

#include "trace/index.h"
#include "trace/reader.h"
#include "util/array.h"

void bts_index_point_load(struct index_point *pt, const uint8_t *p,
			  size_t site)
{
	struct bts_chunk_index_point c;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_INDEX_POINT);
	*pt = (struct index_point){
		.record = c.record, .entry = c.entry, .prev_to = c.prev_to,
		.depth = c.depth, .nsites = c.nsites, .site = site,
		/* Too large: refused by the check, not wrapped into one. */
		.flags = c.flags > UINT16_MAX ? UINT16_MAX : (uint16_t)c.flags,
	};
}

static int load_group(struct bts_index *ix, size_t g)
{
	const size_t psize = sizeof(struct bts_chunk_index_point);
	const struct index_group *gr = &ix->groups[g];
	size_t first = g * BTS_INDEX_GROUP, site = 0;
	size_t n = ix->npoints - first < BTS_INDEX_GROUP ?
		   ix->npoints - first : BTS_INDEX_GROUP;
	size_t nsites = (g + 1 < ix->ngroups ? gr[1].site : ix->nsites) - gr->site;
	uint8_t points[BTS_INDEX_GROUP * sizeof(struct bts_chunk_index_point)];
	int err;

	ix->cache.group = 0;
	if (BTS_ARRAY_RESERVE(ix->cache.sites, ix->cache.capsites, nsites ? nsites : 1))
		return bts_fail(BTS_E_NOMEM, "trace index");
	err = bts_reader_read(ix->trace, points, n * psize,
			      ix->at_points + first * psize);
	if (!err)
		err = bts_reader_read(ix->trace, ix->cache.sites, nsites * 8,
				      ix->at_sites + gr->site * 8);
	if (err)
		return err;
	if (bts_reader_raw_sum(points, n * psize) != gr->sum_points ||
	    bts_reader_raw_sum((const uint8_t *)ix->cache.sites, nsites * 8) != gr->sum_sites)
		return bts_fail(BTS_E_FORMAT, "the index changed since the trace was opened");
	for (size_t i = 0; i < n; i++) {
		bts_index_point_load(&ix->cache.points[i], points + i * psize, site);
		site += ix->cache.points[i].nsites;
	}
	for (size_t i = 0; i < nsites; i++)
		ix->cache.sites[i] = le64toh(ix->cache.sites[i]);
	ix->cache.group = g + 1;
	return 0;
}

int bts_index_at(const struct bts_index *cix, size_t i,
		 const struct index_point **pt, const uint64_t **sites)
{
	/* Like the trace's caches: a part of the index that reading changes. */
	struct bts_index *ix = (struct bts_index *)cix;
	const struct index_point *p;
	size_t g = i / BTS_INDEX_GROUP;
	int err;

	if (!ix->groups) {
		p = &ix->points[i];
		*sites = ix->sites + p->site;
		*pt = p;
		return 0;
	}
	if (ix->cache.group != g + 1) {
		err = load_group(ix, g);
		if (err)
			return err;
	}
	p = &ix->cache.points[i % BTS_INDEX_GROUP];
	*sites = ix->cache.sites + p->site;
	*pt = p;
	return 0;
}
