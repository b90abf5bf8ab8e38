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
#include "trace/tnt_ops.h"

/* Two: a reader going back and forth across one chunk boundary decodes once. */
#define CACHE_SLOTS	2

struct reader_cache {
	struct bts_zstd *zstd;
	struct bts_tnt *tnt;		/* made for the first tnt batch */
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
	if (c->tnt)
		bts_tnt_decoder->destroy(c->tnt);
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
 * A chunk's record count and decompressed size, within what a reader
 * allocates for (@rec_max: stream bytes a record may take).
 */
static bool records_bounded(uint32_t count, uint32_t raw_len, uint64_t rec_max)
{
	return count && count <= BTS_RECORDS_PER_CHUNK && raw_len &&
	       raw_len <= (uint64_t)count * rec_max;
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
	if (!records_bounded(h->count, h->raw_len, BTS_CODEC_REC_MAX))
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

/*
 * The thread of a chunk of records whose header was read (@why: what is
 * wrong with it, or NULL), or NULL after failing with -BTS_E_FORMAT.
 */
static struct trace_thread *chunk_thread(struct bts_trace *t, const char *why,
					 pid_t pid, pid_t tid, size_t off)
{
	struct trace_thread *th;

	if (why) {
		bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, why);
		return NULL;
	}
	th = bts_reader_thread_of(t, pid, tid);
	if (!th)
		bts_fail(BTS_E_FORMAT, "offset %zu: %s", off,
			 "records of a thread that has not appeared");
	return th;
}

/* Every one of @n records well-formed: 0, or -BTS_E_FORMAT naming it. */
static int check_records(const struct ptbts_record *recs, uint32_t n,
			 size_t off, const char *what)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *why;
		int kind;

		why = bts_record_problem(&recs[i], &kind);
		if (why)
			return bts_fail(BTS_E_FORMAT,
					"offset %zu: %s record %u, flags 0x%llx: %s",
					off, what, i, (unsigned long long)recs[i].flags, why);
	}
	return 0;
}

int bts_read_compact_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			   size_t off)
{
	struct reader_cache *c = cache_get(t);
	struct bts_chunk_records_compact h;
	struct ptbts_record *recs;
	struct trace_thread *th;
	const char *why;
	int err;

	if (!c)
		return -BTS_E_NOMEM;
	/* Slot 0 is scratch while the file is being checked. */
	recs = c->slot[0].recs;
	c->slot[0].valid = false;
	t->fills++;
	why = decode(c, p, plen, recs, &h);
	th = chunk_thread(t, why, h.pid, h.tid, off);
	if (!th)
		return -BTS_E_FORMAT;
	err = check_records(recs, h.count, off, "compact");
	if (err)
		return err;
	bts_reader_drop(t, p - t->buf, plen);
	t->records += h.count;
	return bts_reader_add_compact(th, p - t->buf, plen, h.count);
}

const char *bts_tnt_header(const uint8_t *p, size_t plen,
			   struct bts_chunk_records_tnt *h)
{
	if (plen <= sizeof(*h))
		return "tnt records chunk is too short";
	bts_chunk_load(h, p, sizeof(*h), BTS_LAYOUT_RECORDS_TNT);
	if (h->codec != BTS_CODEC_TNT_ZSTD || h->reserved)
		return "tnt records chunk: unknown codec or reserved field";
	if (!records_bounded(h->count, h->raw_len, BTS_TNT_REC_MAX) ||
	    h->nbits > (uint64_t)h->count * BTS_TNT_WALK_BITS ||
	    (h->nbits + 7ull) / 8 + h->esc_len > h->raw_len)
		return "tnt records chunk: count or sizes out of bounds";
	return NULL;
}

const struct bts_tnt_ops *bts_tnt_decoder;

/*
 * The header, for the open pass; the records are decoded once the maps
 * are known (bts_reader_check_tnt).
 */
int bts_read_tnt_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
		       size_t off)
{
	struct bts_chunk_records_tnt h;
	const char *why = bts_tnt_header(p, plen, &h);
	struct trace_thread *th;
	int err;

	th = chunk_thread(t, why, h.pid, h.tid, off);
	if (!th)
		return -BTS_E_FORMAT;
	if (!bts_tnt_decoder)
		return bts_fail(BTS_E_VERSION,
				"offset %zu: records in the tnt encoding, and this program was linked without libbts's tnt decoder",
				off);
	t->records += h.count;
	err = bts_reader_add_compact(th, p - t->buf, plen, h.count);
	if (!err)
		th->batches[th->nbatches - 1].tnt = true;
	return err;
}

/*
 * Tnt batch @b into @recs.  The file offset names the chunk, as the open
 * pass does: its header lies before the payload.
 */
static int decode_tnt(struct bts_trace *t, struct reader_cache *c,
		      const struct trace_batch *b, struct ptbts_record *recs)
{
	struct bts_chunk_records_tnt h;
	int err;

	if (!c->tnt && !(c->tnt = bts_tnt_decoder->create(t)))
		return bts_fail(BTS_E_NOMEM, "tnt records");
	err = bts_tnt_decoder->decode(c->tnt, t->buf + b->off, b->len,
				      b->off - sizeof(struct bts_chunk_header),
				      recs, &h);
	bts_reader_drop(t, b->off, b->len);
	if (!err && h.count != b->count)
		err = bts_fail(BTS_E_FORMAT,
			       "tnt records changed since the trace was opened");
	return err;
}

int bts_reader_check_tnt(struct bts_trace *t)
{
	struct reader_cache *c = NULL;

	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		for (size_t j = 0; j < th->nbatches; j++) {
			const struct trace_batch *b = &th->batches[j];
			size_t off = b->off - sizeof(struct bts_chunk_header);
			struct ptbts_record *recs;
			int err;

			if (!b->tnt)
				continue;
			if (!c && !(c = cache_get(t)))
				return -BTS_E_NOMEM;
			/* Slot 0 is scratch while the file is being checked. */
			recs = c->slot[0].recs;
			c->slot[0].valid = false;
			t->fills++;
			err = decode_tnt(t, c, b, recs);
			if (!err)
				err = check_records(recs, b->count, off, "tnt");
			if (err)
				return err;
		}
	}
	return 0;
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
	t->fills++;
	if (b->tnt) {
		err = decode_tnt(t, c, b, s->recs);
		s->valid = !err;
		if (!err)
			*out = s->recs;
		s->thread = thread;
		s->batch = batch;
		return err;
	}
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
