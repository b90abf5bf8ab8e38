// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Basic blocks for a branch-stop tracer, and a cache of them keyed by start
 * address (open addressing, linear probing, grown at half load): a traced
 * loop passes the same few blocks millions of times, and each pass should
 * cost one lookup.
 */
#include <stdlib.h>

#include "util/addr_table.h"
#include "decode/insn.h"

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

/* One segment: from @start to the first transfer; @h hashes on from there. */
static void decode_segment(bool is32, bts_code_reader rd, void *arg,
			   uint64_t start, uint64_t h, struct bts_block *out)
{
	uint8_t buf[READ_CHUNK];
	uint64_t pc = start;
	size_t off = 0, n = 0;
	struct bts_branch br;
	ssize_t got;

	memset(out, 0, sizeof(*out));
	out->start = start;
	out->br.mode32 = is32;
	while (pc - start < BLOCK_MAX) {
		if (off == n ||
		    bts_branch_decode_mode(is32, buf + off, n - off, pc, &br)) {
			/* Out of bytes, or an instruction cut short: read on from pc. */
			if (off == n || n == sizeof(buf)) {
				got = rd(arg, pc, buf, sizeof(buf));
				if (got <= 0)
					return;
				n = (size_t)got;
				off = 0;
				if (bts_branch_decode_mode(is32, buf, n, pc, &br))
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

uint64_t bts_block_seg_start(const struct bts_block *b, int i)
{
	return i == 0 ? b->start : b->hops[i - 1].to;
}

uint64_t bts_block_seg_end(const struct bts_block *b, int i)
{
	return i == b->nhops ? b->end : b->hops[i].end;
}

int bts_block_segment(const struct bts_block *b, uint64_t pc)
{
	int i;

	for (i = 0; i <= b->nhops; i++)
		if (pc >= bts_block_seg_start(b, i) && pc < bts_block_seg_end(b, i))
			return i;
	return -1;
}

bool bts_block_sys_ahead(const struct bts_block *b, uint64_t pc)
{
	int i = bts_block_segment(b, pc);

	if (!b->last_sys || i < 0)
		return false;
	return b->sys_seg > i || (b->sys_seg == i && b->last_sys >= pc);
}

static bool overlaps(const struct bts_block *b, uint64_t lo, uint64_t hi)
{
	int i;

	for (i = 0; i <= b->nhops; i++)
		if (lo < bts_block_seg_end(b, i) && bts_block_seg_start(b, i) < hi)
			return true;
	return false;
}

static bool direct(const struct bts_branch *br)
{
	return br->kind == BTS_INSN_JUMP || br->kind == BTS_INSN_CALL;
}

/*
 * The thread runs through a direct jump or call by itself: the block goes
 * on at its target, as long as the code there makes a block of its own
 * that ends in a branch the tracer can carry out, and does not overlap
 * the segments so far (a pc must name one segment).  Otherwise the direct
 * transfer stays the site, carried out at a stop as before.
 */
void bts_block_decode_mode(bool is32, bts_code_reader rd, void *arg,
			   uint64_t start, bool (*follow)(void *arg, uint64_t to),
			   struct bts_block *out)
{
	struct bts_block next;

	decode_segment(is32, rd, arg, start, BTS_HASH_INIT, out);
	while (out->site && direct(&out->br) && out->nhops < BTS_BLOCK_HOPS &&
	       (!follow || follow(arg, out->br.target))) {
		decode_segment(is32, rd, arg, out->br.target, out->hash, &next);
		if (!next.site || overlaps(out, next.start, next.end))
			return;
		out->hops[out->nhops++] = (struct bts_hop){
			out->site, out->end, out->br.target };
		if (next.last_sys) {
			out->last_sys = next.last_sys;
			out->sys_seg = out->nhops;
		}
		out->site = next.site;
		out->end = next.end;
		out->hash = next.hash;
		out->br = next.br;
	}
}

void bts_block_decode(bts_code_reader rd, void *arg, uint64_t start,
		      bool (*follow)(void *arg, uint64_t to),
		      struct bts_block *out)
{
	bts_block_decode_mode(false, rd, arg, start, follow, out);
}

/* ------------------------------------------------------------------ cache */

/* Entries are struct bts_block, keyed by @start, its first field. */
struct bts_block_cache {
	struct bts_addr_table table;
};

#define CACHE_MIN 1024

struct bts_block_cache *bts_block_cache_new(void)
{
	struct bts_block_cache *c = calloc(1, sizeof(*c));

	if (c)
		bts_addr_table_init(&c->table, sizeof(struct bts_block), CACHE_MIN);
	return c;
}

void bts_block_cache_free(struct bts_block_cache *c)
{
	if (!c)
		return;
	bts_addr_table_fini(&c->table);
	free(c);
}

void bts_block_cache_flush(struct bts_block_cache *c)
{
	bts_addr_table_clear(&c->table);
}

const struct bts_block *bts_block_cache_get(struct bts_block_cache *c,
					    uint64_t start)
{
	return bts_addr_table_get(&c->table, start);
}

const struct bts_block *bts_block_cache_put(struct bts_block_cache *c,
					    const struct bts_block *b)
{
	struct bts_block *s = bts_addr_table_put(&c->table, b->start);

	if (s)
		*s = *b;
	return s;
}
