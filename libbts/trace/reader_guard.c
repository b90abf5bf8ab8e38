// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A trace file may change while it is read: rewritten in place (`cp
 * new.btr old.btr`), truncated, or edited.  A mapping of a file that shrank
 * faults (SIGBUS) where the file ended, and pages given back after the
 * opening pass (bts_reader_drop) read back whatever the file holds now.
 * So what the model keeps of the file's bytes (paths, code copies,
 * messages) is copied out of the mapping while it is checked, and the
 * records, read from the file again later (reader_raw.c), are checked
 * again when read: the file's size before each batch, and each raw
 * batch's sum as the opening pass computed it (compact batches carry
 * zstd's checksum).  A reader then sees an error saying the file
 * changed, never other records.  Only a file that shrinks between the
 * size check and a read from the mapping still faults; the btrace views
 * catch that SIGBUS and say the same.
 *
 * The pages of a mapped file are given back once read (bts_reader_drop),
 * so the memory of reading a trace stays flat however long it is.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/reader.h"

struct reader_kept {
	struct reader_kept *next;
	uint8_t bytes[];
};

const void *bts_reader_keep(struct bts_trace *t, const void *p, size_t len)
{
	struct reader_kept *k;

	/* A caller's buffer (bts_trace_new_mem) is the caller's to keep. */
	if (!t->mapped)
		return p;
	k = malloc(sizeof(*k) + len);
	if (!k)
		return NULL;
	memcpy(k->bytes, p, len);
	k->next = t->kept;
	t->kept = k;
	return k->bytes;
}

void bts_reader_keep_free(struct bts_trace *t)
{
	while (t->kept) {
		struct reader_kept *k = t->kept;

		t->kept = k->next;
		free(k);
	}
}

/* One step of the sum of one lane. */
static inline uint64_t sum_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/*
 * Not a cryptographic sum: it notices changes, it does not resist forgers.
 * Four lanes, each word i in lane i % 4: the steps of one lane wait for
 * each other (a multiply's latency), the four lanes do not, and every
 * record is summed twice (at open and when read).
 */
/* The word at @p, in the host's order: the sum is never stored. */
static inline uint64_t word(const uint8_t *p)
{
	uint64_t w;

	/* A fixed-size copy: a load, not a call. */
	memcpy(&w, p, sizeof(w));
	return w;
}

uint64_t bts_reader_raw_sum(const uint8_t *p, size_t len)
{
	uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
	uint64_t c = 0x9e3779b97f4a7c15ull, d = 0x7f4a7c159e3779b9ull, w = 0;
	size_t i;

	/* Four scalars: as vectors the multiplies would be shifts and adds. */
	for (i = 0; i + 32 <= len; i += 32) {
		a = sum_step(a, word(p + i));
		b = sum_step(b, word(p + i + 8));
		c = sum_step(c, word(p + i + 16));
		d = sum_step(d, word(p + i + 24));
	}
	for (; i + 8 <= len; i += 8)
		a = sum_step(a, word(p + i));
	if (i < len) {
		memcpy(&w, p + i, len - i);
		a = sum_step(a, w);
	}
	return sum_step(sum_step(sum_step(a, b), c), d);
}

int bts_reader_shrank(void)
{
	return bts_fail(BTS_E_IO, "the trace file shrank since it was opened "
			"(rewritten in place?): it reads no further");
}

int bts_reader_check_size(const struct bts_trace *t)
{
	struct stat st;

	if (t->fd < 0 || fstat(t->fd, &st) || (uint64_t)st.st_size >= t->len)
		return 0;
	return bts_reader_shrank();
}

int bts_reader_check_sum(const struct trace_batch *b, const uint8_t *bytes)
{
	if (bts_reader_raw_sum(bytes, (size_t)b->count *
			       sizeof(struct ptbts_record)) == b->sum)
		return 0;
	return bts_fail(BTS_E_FORMAT, "records changed since the trace was opened");
}

/* Whether batch @batch of @thread was checked lately (a small ring). */
static bool checked(struct bts_trace *t, size_t thread, size_t batch)
{
	for (size_t i = 0; i < ARRAY_SIZE(t->checked); i++)
		if (t->checked[i].valid && t->checked[i].thread == thread &&
		    t->checked[i].batch == batch)
			return true;
	return false;
}

int bts_reader_check_batch(const struct bts_trace *tc, size_t thread,
			   size_t batch)
{
	/* Like the compact cache, a part of the trace that reading changes. */
	struct bts_trace *t = (struct bts_trace *)tc;
	const struct trace_batch *b = &t->threads[thread].batches[batch];
	unsigned int slot;
	int err;

	if (!t->mapped || checked(t, thread, batch))
		return 0;
	err = bts_reader_check_size(t);
	if (err)
		return err;
	err = bts_reader_check_sum(b, t->buf + b->off);
	if (err)
		return err;
	slot = t->next_checked++ % ARRAY_SIZE(t->checked);
	t->checked[slot].valid = true;
	t->checked[slot].thread = thread;
	t->checked[slot].batch = batch;
	return 0;
}

/*
 * A read fault maps the cached pages around it too: those of the
 * kernel's fault_around_bytes (64 KiB by default), and, where the page
 * cache holds the file in large folios (ext4, xfs), the rest of the folio
 * it hit, up to a huge page (2 MiB on x86).  So reading one chunk maps
 * back the end of those before it: the drop reaches that far behind.
 */
#define FAULT_AROUND	(2u << 20)

/*
 * Pages are given back a megabyte of new reading at a time: a madvise
 * flushes the TLB, which costs far more than the few kilobytes of one
 * compact chunk.  A drop starts FAULT_AROUND behind what was read, so a
 * batch smaller than that would flush at every chunk.
 */
#define DROP_BATCH	(FAULT_AROUND + (1u << 20))

static void drop_pending(struct bts_trace *t)
{
	if (t->drop_hi > t->drop_lo)
		madvise((void *)t->drop_lo, t->drop_hi - t->drop_lo, MADV_DONTNEED);
	t->drop_lo = t->drop_hi = 0;
}

void bts_reader_drop(const struct bts_trace *tc, size_t off, size_t len)
{
	/* Like the batches checked: a part of the trace that reading changes. */
	struct bts_trace *t = (struct bts_trace *)tc;
	static size_t page;
	uintptr_t lo, hi;

	/* Only a file we mapped: a caller's buffer is the caller's. */
	if (!t->mapped || !len)
		return;
	if (!page)
		page = sysconf(_SC_PAGESIZE);
	hi = (uintptr_t)t->buf + off + len;
	off = off > FAULT_AROUND ? off - FAULT_AROUND : 0;
	lo = (uintptr_t)t->buf + off;
	lo &= ~(uintptr_t)(page - 1);
	hi = (hi + page - 1) & ~(uintptr_t)(page - 1);
	/* A private mapping never written: dropped pages read back from the file. */
	if (t->drop_hi && lo <= t->drop_hi && hi >= t->drop_lo) {
		t->drop_lo = lo < t->drop_lo ? lo : t->drop_lo;
		t->drop_hi = hi > t->drop_hi ? hi : t->drop_hi;
	} else {
		drop_pending(t);
		t->drop_lo = lo;
		t->drop_hi = hi;
	}
	if (t->drop_hi - t->drop_lo >= DROP_BATCH)
		drop_pending(t);
}
