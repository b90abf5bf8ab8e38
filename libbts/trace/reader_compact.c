// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading compact records (trace_format.h, codec.h).  Opening a
 * trace decodes every chunk once to check it, one chunk at a time through
 * one bounded buffer; reading the records later decodes each chunk again
 * into a small cache, so memory never grows with the trace.  The model
 * keeps each chunk's place, which gives random access (bts_rec_iter_seek).
 */
#include <stdlib.h>

#include "trace/codec.h"
#include "trace/reader.h"

/* Two: a reader going back and forth across one chunk boundary decodes once. */
#define CACHE_SLOTS	2

struct reader_cache {
	struct bts_zstd *zstd;
	uint8_t *raw;			/* one chunk's stream */
	struct slot {
		bool valid;
		size_t thread, batch;
		struct ptbts_record *recs;
	} slot[CACHE_SLOTS];
	unsigned int next;		/* the slot to replace */
};

static struct reader_cache *cache_new(void)
{
	struct reader_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->zstd = bts_zstd_new();
	c->raw = malloc(BTS_RECORDS_PER_CHUNK * BTS_CODEC_REC_MAX);
	for (int i = 0; i < CACHE_SLOTS; i++)
		c->slot[i].recs = calloc(BTS_RECORDS_PER_CHUNK,
					 sizeof(struct ptbts_record));
	return c;
}

static bool cache_whole(const struct reader_cache *c)
{
	if (!c || !c->zstd || !c->raw)
		return false;
	for (int i = 0; i < CACHE_SLOTS; i++)
		if (!c->slot[i].recs)
			return false;
	return true;
}

void bts_reader_compact_free(struct bts_trace *t)
{
	struct reader_cache *c = t->cache;

	if (!c)
		return;
	bts_zstd_free(c->zstd);
	free(c->raw);
	for (int i = 0; i < CACHE_SLOTS; i++)
		free(c->slot[i].recs);
	free(c);
	t->cache = NULL;
}

static struct reader_cache *cache_get(struct bts_trace *t)
{
	struct reader_cache *c;

	if (t->cache)
		return t->cache;
	c = t->cache = cache_new();
	if (cache_whole(c))
		return c;
	bts_reader_compact_free(t);
	bts_fail(BTS_E_NOMEM, "compact records");
	return NULL;
}

/*
 * The payload's fixed part, checked; the data follows it.  The sizes are
 * bounded before anything is allocated or decompressed.
 */
static const char *compact_header(const uint8_t *p, size_t plen,
				  struct bts_chunk_records_compact *h)
{
	if (plen <= sizeof(*h))
		return "compact records chunk is too short";
	bts_chunk_load(h, p, sizeof(*h), BTS_LAYOUT_RECORDS_COMPACT);
	if (h->codec != BTS_CODEC_DELTA_ZSTD || h->reserved)
		return "compact records chunk: unknown codec or reserved field";
	if (!h->count || h->count > BTS_RECORDS_PER_CHUNK || !h->raw_len ||
	    h->raw_len > (uint64_t)h->count * BTS_CODEC_REC_MAX)
		return "compact records chunk: count or size out of bounds";
	return NULL;
}

/* Decodes the chunk at payload @p into @recs: NULL, or what is wrong. */
static const char *decode(struct reader_cache *c, const uint8_t *p,
			  size_t plen, struct ptbts_record *recs,
			  struct bts_chunk_records_compact *h)
{
	const char *why = compact_header(p, plen, h);

	if (!why)
		why = bts_zstd_unpack(c->zstd, p + sizeof(*h), plen - sizeof(*h),
				      c->raw, h->raw_len);
	if (!why)
		why = bts_codec_decode(c->raw, h->raw_len, recs, h->count);
	return why;
}

int bts_read_compact_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			   size_t off)
{
	struct reader_cache *c = cache_get(t);
	struct bts_chunk_records_compact h;
	struct ptbts_record *recs;
	struct trace_thread *th;
	const char *why;

	if (!c)
		return -BTS_E_NOMEM;
	/* Slot 0 is scratch while the file is being checked. */
	recs = c->slot[0].recs;
	c->slot[0].valid = false;
	why = decode(c, p, plen, recs, &h);
	if (why)
		return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, why);
	th = bts_reader_thread_of(t, h.pid, h.tid);
	if (!th)
		return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off,
				"records of a thread that has not appeared");
	for (uint32_t i = 0; i < h.count; i++) {
		int kind;

		why = bts_record_problem(&recs[i], &kind);
		if (why)
			return bts_fail(BTS_E_FORMAT,
					"offset %zu: compact record %u, flags 0x%llx: %s",
					off, i, (unsigned long long)recs[i].flags, why);
	}
	bts_reader_drop(t, p - t->buf, plen);
	t->records += h.count;
	return bts_reader_add_compact(th, p - t->buf, plen, h.count);
}

int bts_reader_compact_batch(const struct bts_trace *tc, size_t thread,
			     size_t batch, const struct ptbts_record **out)
{
	/* The cache is the one part of a trace that reading changes. */
	struct bts_trace *t = (struct bts_trace *)tc;
	const struct trace_batch *b = &t->threads[thread].batches[batch];
	struct reader_cache *c = cache_get(t);
	struct bts_chunk_records_compact h;
	struct slot *s;
	const char *why;
	int err;

	if (!c)
		return -BTS_E_NOMEM;
	for (int i = 0; i < CACHE_SLOTS; i++) {
		if (c->slot[i].valid && c->slot[i].thread == thread &&
		    c->slot[i].batch == batch) {
			*out = c->slot[i].recs;
			return 0;
		}
	}
	err = bts_reader_check_size(t);
	if (err)
		return err;
	s = &c->slot[c->next];
	c->next = (c->next + 1) % CACHE_SLOTS;
	why = decode(c, t->buf + b->off, b->len, s->recs, &h);
	bts_reader_drop(t, b->off, b->len);
	/* Checked when the trace was opened: only a file changed since fails. */
	if (why || h.count != b->count) {
		s->valid = false;
		return bts_fail(BTS_E_FORMAT,
				"compact records changed since the trace was opened");
	}
	*s = (struct slot){ true, thread, batch, s->recs };
	*out = s->recs;
	return 0;
}
