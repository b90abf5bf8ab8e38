// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading a thread's records: its batches in order, raw ones from the
 * file's bytes, compact ones through reader_compact.c's cache.
 */
#include <stdlib.h>

#include "trace/reader.h"
#include "trace/rec_iter.h"

void bts_rec_iter_init(const struct bts_trace *t, size_t thread,
		       struct bts_rec_iter *it)
{
	*it = (struct bts_rec_iter){ .trace = t, .thread = thread };
}

int bts_rec_iter_new(const struct bts_trace *t, size_t thread,
		     struct bts_rec_iter **out)
{
	struct bts_rec_iter *it;

	if (!out)
		return bts_fail(BTS_E_INVAL, "record iterator: no place for it");
	it = malloc(sizeof(*it));
	if (!it)
		return bts_fail(BTS_E_NOMEM, "record iterator");
	bts_rec_iter_init(t, thread, it);
	*out = it;
	return 0;
}

void bts_rec_iter_free(struct bts_rec_iter *it)
{
	free(it);
}

/* The next calls read @recs, @n records in a cache slot, while it holds them. */
static void read_on(struct bts_rec_iter *it, const struct ptbts_record *recs,
		    uint32_t n)
{
	it->recs = recs;
	it->nrecs = n;
	it->fills = it->trace->fills;
}

static int next_compact(struct bts_rec_iter *it, const struct trace_thread *th,
			struct ptbts_record *rec)
{
	const struct ptbts_record *r;
	int err = bts_reader_compact_batch(it->trace, it->thread, it->batch,
					   &r);

	if (err) {
		/* Stop here: a caller looping while the result is non-zero ends. */
		it->batch = th->nbatches;
		return err;
	}
	read_on(it, r, th->batches[it->batch].count);
	*rec = r[it->index++];
	return 1;
}

/* A raw batch read from the mapping gives its pages back once read. */
static void drop(const struct bts_trace *t, const struct trace_batch *b)
{
	if (!b->compact && !bts_reader_raw_buffered(t, b->count))
		bts_reader_drop(t, b->off, b->count * sizeof(struct ptbts_record));
}

static int next_raw(struct bts_rec_iter *it, const struct trace_thread *th,
		    struct ptbts_record *rec)
{
	const uint8_t *p;
	int err = bts_reader_raw_batch(it->trace, it->thread, it->batch, &p);

	if (err) {
		/* As next_compact(): a loop on the result ends. */
		it->batch = th->nbatches;
		return err;
	}
	if (bts_reader_raw_buffered(it->trace, th->batches[it->batch].count))
		read_on(it, (const struct ptbts_record *)p,
			th->batches[it->batch].count);
	/* memcpy: a buffer given to open_mem may be unaligned. */
	bts_chunk_load(rec, p + it->index++ * sizeof(*rec), sizeof(*rec),
		       BTS_LAYOUT_RECORD);
	return 1;
}

int bts_rec_iter_next(struct bts_rec_iter *it, struct ptbts_record *rec)
{
	const struct trace_thread *th;

	/* Most calls: the next record of a batch still in its slot. */
	if (it->recs && it->index < it->nrecs && it->fills == it->trace->fills) {
		*rec = it->recs[it->index++];
		return 1;
	}
	it->recs = NULL;
	if (!it->trace || it->thread >= it->trace->nthreads)
		return 0;
	th = &it->trace->threads[it->thread];
	while (it->batch < th->nbatches) {
		const struct trace_batch *b = &th->batches[it->batch];

		if (it->index < b->count) {
			if (b->compact)
				return next_compact(it, th, rec);
			return next_raw(it, th, rec);
		}
		drop(it->trace, b);
		it->batch++;
		it->index = 0;
	}
	return 0;
}

int bts_rec_iter_seek(struct bts_rec_iter *it, uint64_t index)
{
	const struct trace_thread *th;
	size_t lo = 0, hi;

	if (!it || !it->trace || it->thread >= it->trace->nthreads)
		return 0;
	th = &it->trace->threads[it->thread];
	/* The first batch that ends past @index: ends only grow. */
	for (hi = th->nbatches; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->batches[mid].first + th->batches[mid].count > index)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* A raw batch left half read gives its pages back as a whole one does. */
	if (it->batch < th->nbatches && it->batch != lo && it->index)
		drop(it->trace, &th->batches[it->batch]);
	it->batch = lo;
	it->index = lo < th->nbatches ? index - th->batches[lo].first : 0;
	it->recs = NULL;
	return lo < th->nbatches;
}

int bts_trace_format(const struct bts_trace *t)
{
	int format = BTS_FORMAT_RAW;

	for (size_t i = 0; t && i < t->nthreads; i++)
		for (size_t j = 0; j < t->threads[i].nbatches; j++) {
			if (t->threads[i].batches[j].tnt)
				return BTS_FORMAT_TNT;
			if (t->threads[i].batches[j].compact)
				format = BTS_FORMAT_COMPACT;
		}
	return format;
}
