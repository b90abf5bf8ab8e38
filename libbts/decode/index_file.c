// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bts_trace_index_file(): a trace file written again with an INDEX chunk
 * per thread before its END.  Its other chunks are copied byte for byte
 * (the reader checked them all when it opened the file), through the
 * writer, which writes under a temporary name and renames only a whole
 * file over the old one.
 */
#include <endian.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "decode/rewrite.h"
#include "trace/index.h"
#include "trace/reader.h"
#include "trace/writer.h"
#include "util/opts.h"

/* Every chunk but END and any INDEX chunk, as it is. */
static int drop_index(void *arg, struct bts_writer *w, uint32_t type,
		      const uint8_t *p, size_t len)
{
	(void)arg;
	(void)w;
	(void)p;
	(void)len;
	return BTS_CHUNK_TYPE(type) == BTS_CHUNK_INDEX;
}

static void put64(uint8_t **p, uint64_t v)
{
	v = htole64(v);
	memcpy(*p, &v, 8);
	*p += 8;
}

static int write_index(struct bts_writer *w, const struct bts_thread_info *th,
		       const struct bts_index *ix)
{
	size_t len = sizeof(struct bts_chunk_index) +
		     ix->npoints * sizeof(struct bts_chunk_index_point) +
		     ix->nsites * 8;
	struct bts_chunk_index c = {
		.pid = htole32(th->pid), .tid = htole32(th->tid),
		.npoints = htole32((uint32_t)ix->npoints),
		.stack_max = htole32(ix->stack_max),
		.interval = htole64(ix->interval),
		.records = htole64(ix->records), .entries = htole64(ix->entries),
	};
	uint8_t *buf, *p;
	int ret;

	if (ix->npoints > BTS_INDEX_POINTS_MAX || len > UINT32_MAX)
		return bts_fail(BTS_E_INVAL, "thread %d: an index of %zu points is too large for a chunk (a longer interval makes fewer)",
				(int)th->tid, ix->npoints);
	buf = malloc(len);
	if (!buf)
		return bts_fail(BTS_E_NOMEM, "index chunk");
	memcpy(buf, &c, sizeof(c));
	p = buf + sizeof(c);
	for (size_t i = 0; i < ix->npoints; i++) {
		const struct index_point *pt = &ix->points[i];

		put64(&p, pt->record);
		put64(&p, pt->entry);
		put64(&p, pt->prev_to);
		put64(&p, (uint64_t)pt->depth);
		/* flags, then nsites: the low half comes first. */
		put64(&p, pt->flags | (uint64_t)pt->nsites << 32);
	}
	for (size_t i = 0; i < ix->nsites; i++)
		put64(&p, ix->sites[i]);
	ret = bts_writer_chunk(w, BTS_CHUNK_INDEX | BTS_CHUNK_OPTIONAL, buf, len,
			       NULL, 0, NULL);
	free(buf);
	return ret;
}

/* Every thread's index, built before anything is written. */
static int index_all(const struct bts_trace *t, struct bts_index **ix,
		     const struct bts_index_opts *opts)
{
	struct bts_index_opts o = {
		.sz = sizeof(o), .rebuild = true,
		.interval = BTS_OPTS_GET(opts, interval, 0),
		.decoder = BTS_OPTS_GET(opts, decoder, NULL),
	};
	int ret = 0;

	for (size_t i = 0; !ret && i < bts_trace_nthreads(t); i++)
		ret = bts_index_new(t, i, &o, &ix[i]);
	return ret;
}

static int write_all(const struct bts_trace *t, struct bts_writer *w,
		     struct bts_index **ix)
{
	int ret = bts_rewrite_chunks(t, w, drop_index, NULL);

	for (size_t i = 0; !ret && i < bts_trace_nthreads(t); i++)
		ret = write_index(w, bts_trace_thread(t, i), ix[i]);
	return ret;
}

int bts_trace_index_file(const char *path, const struct bts_index_opts *opts)
{
	struct bts_writer *w = NULL;
	struct bts_index **ix;
	struct bts_trace *t;
	struct stat st;
	size_t n;
	int ret;

	ret = BTS_OPTS_VALID(opts, "index options");
	if (ret)
		return ret;
	ret = bts_trace_new(path, &t);
	if (ret)
		return ret;
	n = bts_trace_nthreads(t);
	ix = calloc(n ? n : 1, sizeof(*ix));
	if (!ix)
		ret = bts_fail(BTS_E_NOMEM, "index");
	else if (fstat(t->fd, &st))
		ret = bts_fail_errno(BTS_E_IO, "cannot read %s", path);
	if (!ret)
		ret = bts_rewrite_header(t);
	/* Decoding fails more often than writing: before the file exists. */
	if (!ret)
		ret = index_all(t, ix, opts);
	if (!ret)
		ret = bts_writer_open_mode(path, st.st_mode & 0777, &w);
	if (!ret)
		ret = write_all(t, w, ix);
	if (!ret)
		ret = bts_writer_finish(w);
	bts_writer_free(w);
	for (size_t i = 0; ix && i < n; i++)
		bts_index_free(ix[i]);
	free(ix);
	bts_trace_free(t);
	return ret;
}
