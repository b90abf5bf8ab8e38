// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Straight-line blocks, decoded once.  A record's @to starts a block and
 * the next record's @from ends it somewhere inside: which instruction
 * depends on the record (a conditional branch may or may not have been
 * taken), so a block holds everything that can run in a row from its
 * start, up to and including the first unconditional transfer, and a
 * record picks its end by address.  Repeated blocks, which are most of
 * any trace, then cost one hash probe and (usually) the memo of the last
 * end found.
 */
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "decode/decode.h"
#include "util/addr_table.h"
#include "util/array.h"

/* Longer straight-line code than this is not a real program's. */
#define BLOCK_MAX_INSNS	65536

/* An entry of the table; @start first, as struct bts_addr_table wants. */
struct entry {
	uint64_t start;
	struct bts_dblock *block;
};

struct bts_dblock_cache {
	struct bts_code_image *ci;
	ZydisDecoder zydis;
	struct bts_addr_table blocks;	/* of struct entry */
	struct bts_dblock *at_zero;	/* the table keeps no key 0 */
	size_t max;
	uint32_t *off;			/* scratch while decoding */
	size_t off_cap;
	uint8_t *cls;
	size_t cls_cap;
};

struct bts_dblock_cache *bts_dblock_cache_new(struct bts_code_image *ci,
					    size_t max_blocks)
{
	struct bts_dblock_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ci = ci;
	c->max = max_blocks ? max_blocks : 65536;
	/* Grown with the blocks a trace has, up to @max, then flushed. */
	bts_addr_table_init(&c->blocks, sizeof(struct entry), 1024);
	if (ZYAN_FAILED(ZydisDecoderInit(&c->zydis, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64))) {
		bts_dblock_cache_free(c);
		return NULL;
	}
	return c;
}

/* An i386 process's code (legacy 32-bit mode, 32-bit stack). */
void bts_dblock_cache_set_32bit(struct bts_dblock_cache *c)
{
	ZydisDecoderInit(&c->zydis, ZYDIS_MACHINE_MODE_LEGACY_32,
			 ZYDIS_STACK_WIDTH_32);
}

static void flush(struct bts_dblock_cache *c)
{
	struct entry *e;

	for (size_t i = 0; i < bts_addr_table_nslots(&c->blocks); i++)
		if ((e = bts_addr_table_at(&c->blocks, i)))
			free(e->block);
	bts_addr_table_clear(&c->blocks);
	free(c->at_zero);
	c->at_zero = NULL;
}

void bts_dblock_cache_free(struct bts_dblock_cache *c)
{
	if (!c)
		return;
	flush(c);
	bts_addr_table_fini(&c->blocks);
	free(c->off);
	free(c->cls);
	free(c);
}

static int iclass_of(const ZydisDecodedInstruction *insn)
{
	bool far = insn->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return BTS_ICLASS_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return far ? BTS_ICLASS_FAR : BTS_ICLASS_JUMP;
	case ZYDIS_CATEGORY_CALL:
		return far ? BTS_ICLASS_FAR : BTS_ICLASS_CALL;
	case ZYDIS_CATEGORY_RET:
		if (far || insn->mnemonic == ZYDIS_MNEMONIC_IRET ||
		    insn->mnemonic == ZYDIS_MNEMONIC_IRETD ||
		    insn->mnemonic == ZYDIS_MNEMONIC_IRETQ)
			return BTS_ICLASS_FAR;
		return BTS_ICLASS_RETURN;
	case ZYDIS_CATEGORY_SYSRET:
		return BTS_ICLASS_FAR;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
		return BTS_ICLASS_SYSCALL;
	default:
		return BTS_ICLASS_OTHER;
	}
}

static bool ends_block(int cls)
{
	return cls == BTS_ICLASS_JUMP || cls == BTS_ICLASS_CALL ||
	       cls == BTS_ICLASS_RETURN || cls == BTS_ICLASS_FAR;
}

/* Room in the scratch arrays for @n instructions. */
static int scratch_for(struct bts_dblock_cache *c, size_t n)
{
	return BTS_ARRAY_RESERVE(c->off, c->off_cap, n + 1) ||
	       BTS_ARRAY_RESERVE(c->cls, c->cls_cap, n);
}

/* Decodes into the scratch arrays; returns the count, *end why it stopped. */
static long decode(struct bts_dblock_cache *c, const uint8_t *code,
		   size_t avail, uint8_t *end)
{
	ZydisDecodedInstruction insn;
	size_t off = 0;
	long n = 0;

	*end = BTS_DBLOCK_NOCODE;
	if (scratch_for(c, 0))
		return -1;
	c->off[0] = 0;
	while (code && off < avail) {
		ZyanStatus st = ZydisDecoderDecodeInstruction(&c->zydis, NULL,
				code + off, avail - off, &insn);

		if (st == ZYDIS_STATUS_NO_MORE_DATA)
			break;	/* the bytes end inside it */
		if (ZYAN_FAILED(st)) {
			*end = BTS_DBLOCK_UNDECODABLE;
			break;
		}
		if (n == BLOCK_MAX_INSNS) {
			*end = BTS_DBLOCK_LIMIT;
			break;
		}
		if (scratch_for(c, n + 1))
			return -1;
		c->cls[n] = iclass_of(&insn);
		off += insn.length;
		c->off[++n] = off;
		if (ends_block(c->cls[n - 1])) {
			*end = BTS_DBLOCK_TRANSFER;
			break;
		}
	}
	return n;
}

static struct bts_dblock *make_block(struct bts_dblock_cache *c, uint64_t start)
{
	size_t avail = 0;
	const uint8_t *code = bts_code_image_at(c->ci, start, &avail), *more;
	struct bts_dblock *b;
	uint8_t end;
	long n = decode(c, code, avail, &end);

	/* live memory is read in chunks: a block may run past the first */
	while (n >= 0 && end == BTS_DBLOCK_NOCODE && code &&
	       (more = bts_code_image_more(c->ci, start, avail, &avail))) {
		code = more;
		n = decode(c, code, avail, &end);
	}
	if (n < 0)
		return NULL;
	b = malloc(sizeof(*b) + (n + 1) * sizeof(*b->off) + n);
	if (!b)
		return NULL;
	*b = (struct bts_dblock){ .start = start, .code = code, .n = n, .end = end };
	b->off = (uint32_t *)(b + 1);
	b->cls = (uint8_t *)(b->off + n + 1);
	memcpy(b->off, c->off, (n + 1) * sizeof(*b->off));
	if (n)		/* an empty block leaves the scratch arrays unallocated */
		memcpy(b->cls, c->cls, n);
	return b;
}

struct bts_dblock *bts_dblock_get(struct bts_dblock_cache *c, uint64_t start)
{
	struct entry *e;
	struct bts_dblock *b;

	if (!start)
		return c->at_zero ? c->at_zero : (c->at_zero = make_block(c, 0));
	e = bts_addr_table_get(&c->blocks, start);
	if (e)
		return e->block;
	if (c->blocks.used >= c->max)
		flush(c);
	b = make_block(c, start);
	if (!b)
		return NULL;
	e = bts_addr_table_put(&c->blocks, start);
	if (!e) {
		free(b);
		return NULL;
	}
	e->block = b;
	return b;
}
