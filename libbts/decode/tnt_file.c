// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bts_trace_tnt_file(): a whole trace written again with its records in
 * the tnt encoding (tnt.h).  Each chunk of records becomes one RECORDS_TNT
 * chunk of the same records at the same place, so the order of chunks,
 * the record numbers (and an INDEX chunk's points) stay as they were.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "decode/rewrite.h"
#include "decode/tnt.h"
#include "trace/rec_iter.h"

struct tnt_file {
	const struct bts_trace *t;
	struct bts_tnt *tnt;
	size_t *next_batch;		/* per thread: its next chunk of records */
	struct ptbts_record *recs;	/* one chunk's */
	uint8_t *payload;
};

#define CHANGED "the trace file changed while it was rewritten"

/* The next chunk of thread @tid, or NULL (the file changed). */
static const struct trace_batch *next_batch(struct tnt_file *f, pid_t tid,
					    long *th)
{
	*th = bts_trace_thread_index(f->t, tid);
	if (*th < 0 || f->next_batch[*th] >= f->t->threads[*th].nbatches)
		return NULL;
	return &f->t->threads[*th].batches[f->next_batch[*th]++];
}

static int skip_batch(struct tnt_file *f, pid_t tid)
{
	long th;

	return next_batch(f, tid, &th) ? 0 : bts_fail(BTS_E_IO, CHANGED);
}

/* The records of the next chunk of thread @tid: their count, or an error. */
static long chunk_recs(struct tnt_file *f, pid_t tid)
{
	const struct trace_batch *b;
	struct bts_rec_iter it;
	long th;

	b = next_batch(f, tid, &th);
	if (!b)
		return bts_fail(BTS_E_IO, CHANGED);
	bts_rec_iter_init(f->t, th, &it);
	bts_rec_iter_seek(&it, b->first);
	for (uint32_t i = 0; i < b->count; i++) {
		int ret = bts_rec_iter_next(&it, &f->recs[i]);

		if (ret != 1)
			return ret < 0 ? ret : bts_fail(BTS_E_IO, CHANGED);
	}
	return b->count;
}

static int encode_chunk(void *arg, struct bts_writer *w, uint32_t type,
			const uint8_t *p, size_t len)
{
	struct tnt_file *f = arg;
	struct bts_chunk_records c;
	long n, plen;

	(void)len;
	type = BTS_CHUNK_TYPE(type);
	if (type != BTS_CHUNK_RECORDS && type != BTS_CHUNK_RECORDS_COMPACT &&
	    type != BTS_CHUNK_RECORDS_TNT)
		return 0;
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_RECORDS);
	/* Encoded already: copied, its records counted as its thread's. */
	if (type == BTS_CHUNK_RECORDS_TNT)
		return skip_batch(f, c.tid);
	n = chunk_recs(f, c.tid);
	if (n < 0)
		return n;
	plen = bts_tnt_encode(f->tnt, c.pid, c.tid, f->recs,
			      n, f->payload);
	if (plen < 0)
		return plen;
	return bts_writer_copy_chunk(w, BTS_CHUNK_RECORDS_TNT, f->payload, plen,
				     n) ?: 1;
}

static int rewrite(const char *path, const struct bts_trace *t)
{
	struct tnt_file f = { .t = t };
	struct bts_writer *w = NULL;
	struct stat st;
	int ret;

	f.tnt = bts_tnt_new(t);
	f.next_batch = calloc(bts_trace_nthreads(t) + 1, sizeof(*f.next_batch));
	f.recs = malloc(BTS_RECORDS_PER_CHUNK * sizeof(*f.recs));
	f.payload = malloc(bts_tnt_payload_max());
	if (!f.tnt || !f.next_batch || !f.recs || !f.payload)
		ret = bts_fail(BTS_E_NOMEM, "tnt encoding");
	else if (fstat(t->fd, &st))
		ret = bts_fail_errno(BTS_E_IO, "cannot read %s", path);
	else
		ret = bts_rewrite_header(t);
	if (!ret)
		ret = bts_writer_open_mode(path, st.st_mode & 0777, &w);
	if (!ret)
		ret = bts_rewrite_chunks(t, w, encode_chunk, &f);
	if (!ret)
		ret = bts_writer_finish(w);
	bts_writer_free(w);
	bts_tnt_free(f.tnt);
	free(f.next_batch);
	free(f.recs);
	free(f.payload);
	return ret;
}

int bts_trace_tnt_file(const char *path)
{
	struct bts_trace *t;
	int ret = bts_trace_new(path, &t);

	if (ret)
		return ret;
	ret = rewrite(path, t);
	bts_trace_free(t);
	return ret;
}
