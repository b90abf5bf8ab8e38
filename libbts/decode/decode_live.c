// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The code bytes of a traced process that is still there, read from its
 * memory through bts_read_code() so that no planted breakpoint shows.
 * Memory is read in chunks that live as long as the decoder: its blocks
 * point into them.  A chunk is never changed, so code rewritten while we
 * decode is seen as it was at the first read.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "util/array.h"

/* Big enough that one read serves many blocks, small enough to be cheap. */
#define LIVE_CHUNK	16384
/* More than the longest straight-line code a real program has. */
#define LIVE_MAX	(1u << 20)

struct live_chunk {
	uint64_t addr;
	size_t len;
	bool whole;		/* the readable memory ends at addr + len */
	uint8_t *bytes;
};

struct bts_live_code {
	struct bts_session *s;
	pid_t pid;
	struct live_chunk *chunks;	/* sorted by addr; later ones win */
	size_t n, cap;
};

struct bts_live_code *bts_live_code_new(struct bts_session *s, pid_t pid)
{
	struct bts_live_code *lc = calloc(1, sizeof(*lc));

	if (lc) {
		lc->s = s;
		lc->pid = pid;
	}
	return lc;
}

void bts_live_code_free(struct bts_live_code *lc)
{
	if (!lc)
		return;
	for (size_t i = 0; i < lc->n; i++)
		free(lc->chunks[i].bytes);
	free(lc->chunks);
	free(lc);
}

/* The index after the last chunk starting at or below @addr. */
static size_t upper(const struct bts_live_code *lc, uint64_t addr)
{
	size_t lo = 0, hi = lc->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lc->chunks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct live_chunk *read_chunk(struct bts_live_code *lc, uint64_t addr,
				     size_t len)
{
	struct live_chunk *c;
	uint8_t *buf;
	ssize_t n;
	size_t at;

	if (BTS_ARRAY_RESERVE(lc->chunks, lc->cap, lc->n + 1))
		return NULL;
	buf = malloc(len);
	if (!buf)
		return NULL;
	n = bts_read_code(lc->s, lc->pid, addr, buf, len);
	if (n <= 0) {
		free(buf);
		return NULL;	/* not in its memory (or it is gone) */
	}
	at = upper(lc, addr);
	memmove(&lc->chunks[at + 1], &lc->chunks[at],
		(lc->n - at) * sizeof(*lc->chunks));
	lc->n++;
	c = &lc->chunks[at];
	*c = (struct live_chunk){ .addr = addr, .len = n, .bytes = buf,
				  .whole = (size_t)n < len };
	return c;
}

/*
 * The bytes at @addr, at least @want of them unless the memory ends
 * sooner; *avail: how many.  NULL when the process does not map @addr.
 */
const uint8_t *bts_live_code_at(struct bts_live_code *lc, uint64_t addr,
				size_t want, size_t *avail)
{
	size_t at = upper(lc, addr);
	struct live_chunk *c = at ? &lc->chunks[at - 1] : NULL;

	if (!c || addr - c->addr >= c->len ||
	    (c->len - (addr - c->addr) < want && !c->whole)) {
		if (want > LIVE_MAX)
			return NULL;
		c = read_chunk(lc, addr, want > LIVE_CHUNK ? want : LIVE_CHUNK);
		if (!c)
			return NULL;
	}
	*avail = c->len - (addr - c->addr);
	return c->bytes + (addr - c->addr);
}
