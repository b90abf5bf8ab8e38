// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Basic blocks for a branch-stop tracer, and a cache of them keyed by start
 * address (open addressing, linear probing, grown at half load): a traced
 * loop passes the same few blocks millions of times, and each pass should
 * cost one lookup.
 */
#include <stdlib.h>

#include "insn.h"

#define READ_CHUNK	256
/* Straight-line code longer than this is single-stepped, not decoded further. */
#define BLOCK_MAX	(64u << 10)

uint64_t bts_code_hash(uint64_t h, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static bool ends_block(int kind)
{
	return kind != BTS_INSN_OTHER && kind != BTS_INSN_SYSCALL &&
	       kind != BTS_INSN_INT;
}

void bts_block_decode(bts_code_reader rd, void *arg, uint64_t start,
		      struct bts_block *out)
{
	uint8_t buf[READ_CHUNK];
	uint64_t pc = start, h = BTS_HASH_INIT;
	size_t off = 0, n = 0;
	struct bts_branch br;
	ssize_t got;

	memset(out, 0, sizeof(*out));
	out->start = start;
	while (pc - start < BLOCK_MAX) {
		if (off == n || bts_branch_decode(buf + off, n - off, pc, &br)) {
			/* Out of bytes, or an instruction cut short: read on from pc. */
			if (off == n || n == sizeof(buf)) {
				got = rd(arg, pc, buf, sizeof(buf));
				if (got <= 0)
					return;
				n = (size_t)got;
				off = 0;
				if (bts_branch_decode(buf, n, pc, &br))
					return;
			} else {
				return;
			}
		}
		h = bts_code_hash(h, buf + off, br.len);
		if (ends_block(br.kind)) {
			if (!br.emulable)
				return;
			out->site = pc;
			out->end = pc + br.len;
			out->hash = h;
			out->br = br;
			return;
		}
		if (br.kind != BTS_INSN_OTHER)
			out->last_sys = pc;
		off += br.len;
		pc += br.len;
	}
}

/* ------------------------------------------------------------------ cache */

struct bts_block_cache {
	struct bts_block *slots;	/* start 0: empty */
	size_t mask;
	size_t used;
};

#define CACHE_MIN 1024

struct bts_block_cache *bts_block_cache_new(void)
{
	struct bts_block_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->slots = calloc(CACHE_MIN, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	c->mask = CACHE_MIN - 1;
	return c;
}

void bts_block_cache_free(struct bts_block_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

void bts_block_cache_flush(struct bts_block_cache *c)
{
	memset(c->slots, 0, (c->mask + 1) * sizeof(*c->slots));
	c->used = 0;
}

static size_t hash(uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 24);
}

static struct bts_block *find(struct bts_block *slots, size_t mask,
			      uint64_t start)
{
	size_t i = hash(start) & mask;

	while (slots[i].start && slots[i].start != start)
		i = (i + 1) & mask;
	return &slots[i];
}

const struct bts_block *bts_block_cache_get(struct bts_block_cache *c,
					    uint64_t start)
{
	struct bts_block *b = find(c->slots, c->mask, start);

	return b->start ? b : NULL;
}

static int grow(struct bts_block_cache *c)
{
	size_t n = (c->mask + 1) * 2, i;
	struct bts_block *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i <= c->mask; i++)
		if (c->slots[i].start)
			*find(slots, n - 1, c->slots[i].start) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->mask = n - 1;
	return 0;
}

const struct bts_block *bts_block_cache_put(struct bts_block_cache *c,
					    const struct bts_block *b)
{
	struct bts_block *s;

	if (!b->start)
		return NULL;
	if (2 * (c->used + 1) > c->mask + 1 && grow(c))
		return NULL;
	s = find(c->slots, c->mask, b->start);
	if (!s->start)
		c->used++;
	*s = *b;
	return s;
}
