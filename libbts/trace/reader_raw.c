// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading raw records through a buffer.  A mapped file's raw chunks are
 * read with pread() into a buffer of one chunk's records, at open to be
 * checked and summed, and again when read, to be summed again
 * (reader_guard.c says why) and handed out: the copy costs far less than
 * faulting the mapping's pages in and giving them back (bts_reader_drop)
 * twice, and the records are in the cache when the sum and the decoder
 * read them.  Two buffers: readers of two threads taking turns read each
 * chunk once.
 *
 * A chunk of more records than libbts writes in one (only other writers
 * make them) is read from the mapping, as a caller's buffer
 * (bts_trace_new_mem) always is: the buffers never grow.  The headers of
 * the chunks are read too, so that the opening pass leaves the pages of
 * raw chunks alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/reader.h"

#define RAW_SLOTS	2
#define RAW_MAX		BTS_RECORDS_PER_CHUNK

struct reader_raw {
	struct raw_slot {
		bool valid;
		size_t thread, batch;
		uint8_t *bytes;		/* RAW_MAX records */
	} slot[RAW_SLOTS];
	unsigned int next;		/* the slot to replace */
};

bool bts_reader_raw_buffered(const struct bts_trace *t, uint32_t count)
{
	return t->fd >= 0 && count <= RAW_MAX;
}

void bts_reader_raw_free(struct bts_trace *t)
{
	if (!t->raw)
		return;
	for (int i = 0; i < RAW_SLOTS; i++)
		free(t->raw->slot[i].bytes);
	free(t->raw);
	t->raw = NULL;
}

/* The slot to fill next, invalid until it is filled and checked. */
static struct raw_slot *slot_next(struct bts_trace *t)
{
	struct raw_slot *s;

	if (!t->raw) {
		t->raw = calloc(1, sizeof(*t->raw));
		if (!t->raw)
			return NULL;
	}
	s = &t->raw->slot[t->raw->next];
	if (!s->bytes) {
		s->bytes = malloc(RAW_MAX * sizeof(struct ptbts_record));
		if (!s->bytes)
			return NULL;
	}
	t->raw->next = (t->raw->next + 1) % RAW_SLOTS;
	s->valid = false;
	t->fills++;
	return s;
}

/* @len bytes of the file at @off into @buf. */
static int read_at(const struct bts_trace *t, uint8_t *buf, size_t len,
		   size_t off)
{
	while (len) {
		ssize_t n = pread(t->fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bts_fail_errno(BTS_E_IO, "cannot read the trace file");
		if (!n)
			return bts_reader_shrank();
		buf += n;
		off += (size_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int bts_reader_read(const struct bts_trace *t, void *dst, size_t len,
		    size_t off)
{
	if (t->fd < 0) {
		memcpy(dst, t->buf + off, len);
		return 0;
	}
	return read_at(t, dst, len, off);
}

/* A slot filled with the @count records at @off of the file. */
static int load(struct bts_trace *t, size_t off, uint32_t count,
		struct raw_slot **out)
{
	struct raw_slot *s = slot_next(t);

	if (!s)
		return bts_fail(BTS_E_NOMEM, "raw records");
	*out = s;
	return read_at(t, s->bytes, (size_t)count * sizeof(struct ptbts_record),
		       off);
}

int bts_reader_raw_load(struct bts_trace *t, size_t off, uint32_t count,
			const uint8_t **out)
{
	struct raw_slot *s;
	int err;

	if (!bts_reader_raw_buffered(t, count)) {
		*out = t->buf + off;
		return 0;
	}
	err = load(t, off, count, &s);
	if (!err)
		*out = s->bytes;
	return err;
}

static struct raw_slot *slot_of(struct reader_raw *r, size_t thread,
				size_t batch)
{
	for (int i = 0; r && i < RAW_SLOTS; i++)
		if (r->slot[i].valid && r->slot[i].batch == batch &&
		    r->slot[i].thread == thread)
			return &r->slot[i];
	return NULL;
}

int bts_reader_raw_batch(const struct bts_trace *tc, size_t thread,
			 size_t batch, const uint8_t **out)
{
	/* Like the compact cache, a part of the trace that reading changes. */
	struct bts_trace *t = (struct bts_trace *)tc;
	const struct trace_batch *b = &t->threads[thread].batches[batch];
	struct raw_slot *s = slot_of(t->raw, thread, batch);
	int err;

	if (s) {
		*out = s->bytes;
		return 0;
	}
	if (!bts_reader_raw_buffered(t, b->count)) {
		*out = t->buf + b->off;
		return bts_reader_check_batch(t, thread, batch);
	}
	err = bts_reader_check_size(t);
	if (!err)
		err = load(t, b->off, b->count, &s);
	if (!err)
		err = bts_reader_check_sum(b, s->bytes);
	if (err)
		return err;
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		for (uint32_t i = 0; i < b->count; i++)
			bts_chunk_to_host(s->bytes + i * sizeof(struct ptbts_record),
					  BTS_LAYOUT_RECORD);
	s->thread = thread;
	s->batch = batch;
	s->valid = true;
	*out = s->bytes;
	return 0;
}
