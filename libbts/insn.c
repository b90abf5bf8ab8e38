// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Control-transfer classification with Zydis, and a cache of it keyed by
 * address (open addressing, linear probing, grown at half load): a traced
 * loop asks about the same few addresses millions of times.
 */
#include <stdlib.h>

#include <Zydis/Zydis.h>

#include "insn.h"

static ZydisDecoder decoder;
static bool decoder_ready;

static const ZydisDecoder *get_decoder(void)
{
	/* Initialising twice from two threads writes the same bytes. */
	if (!decoder_ready) {
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
		decoder_ready = true;
	}
	return &decoder;
}

static int kind_of(const ZydisDecodedInstruction *zi)
{
	/*
	 * Indirect near jmp/call are opcode FF (/2, /4); IS_RELATIVE would
	 * also be set by a rip-relative memory operand.
	 */
	bool rel = zi->opcode != 0xff;

	if (zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return BTS_INSN_FAR;
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return BTS_INSN_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return rel ? BTS_INSN_JUMP : BTS_INSN_JUMP_IND;
	case ZYDIS_CATEGORY_CALL:
		return rel ? BTS_INSN_CALL : BTS_INSN_CALL_IND;
	case ZYDIS_CATEGORY_RET:
		return zi->mnemonic == ZYDIS_MNEMONIC_RET ? BTS_INSN_RET
							  : BTS_INSN_FAR;
	case ZYDIS_CATEGORY_SYSCALL:
		return BTS_INSN_SYSCALL;
	case ZYDIS_CATEGORY_INTERRUPT:
		return BTS_INSN_INT;
	default:
		break;
	}
	/* XBEGIN jumps to its fallback only when the transaction aborts. */
	if (zi->mnemonic == ZYDIS_MNEMONIC_XBEGIN)
		return BTS_INSN_COND;
	return BTS_INSN_OTHER;
}

int bts_insn_classify(const void *buf, size_t len, struct bts_insn *out)
{
	ZydisDecodedInstruction zi;
	ZyanStatus st;

	st = ZydisDecoderDecodeInstruction(get_decoder(), NULL, buf, len, &zi);
	if (st == ZYDIS_STATUS_NO_MORE_DATA)
		return bts_fail(BTS_E_TRUNCATED, "instruction runs past %zu bytes", len);
	if (!ZYAN_SUCCESS(st))
		return bts_fail(BTS_E_DECODE, "undecodable instruction (Zydis status 0x%x)",
				(unsigned int)st);
	out->len = zi.length;
	out->kind = kind_of(&zi);
	out->flags = 0;
	if (zi.meta.category == ZYDIS_CATEGORY_STRINGOP &&
	    (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			      ZYDIS_ATTRIB_HAS_REPNE)))
		out->flags |= BTS_INSN_F_REP;
	return 0;
}

bool bts_insn_taken(const struct bts_insn *insn, uint64_t pc, uint64_t next)
{
	switch (insn->kind) {
	case BTS_INSN_COND:
		return next != pc + insn->len;
	case BTS_INSN_JUMP:
	case BTS_INSN_JUMP_IND:
	case BTS_INSN_CALL:
	case BTS_INSN_CALL_IND:
	case BTS_INSN_RET:
	case BTS_INSN_FAR:
		return true;
	default:
		return false;
	}
}

const char *bts_insn_kind_name(int kind)
{
	static const char *const names[] = {
		[BTS_INSN_OTHER] = "other",	[BTS_INSN_COND] = "cond",
		[BTS_INSN_JUMP] = "jump",	[BTS_INSN_JUMP_IND] = "jump-ind",
		[BTS_INSN_CALL] = "call",	[BTS_INSN_CALL_IND] = "call-ind",
		[BTS_INSN_RET] = "ret",		[BTS_INSN_FAR] = "far",
		[BTS_INSN_SYSCALL] = "syscall",	[BTS_INSN_INT] = "int",
	};

	if (kind < 0 || (size_t)kind >= ARRAY_SIZE(names))
		return "?";
	return names[kind];
}

/* ------------------------------------------------------------------ cache */

struct slot {
	uint64_t addr;		/* 0: empty (no code lives at 0) */
	struct bts_insn insn;
};

struct bts_insn_cache {
	struct slot *slots;
	size_t mask;		/* slots - 1, a power of two minus one */
	size_t used;
};

#define CACHE_MIN 4096

struct bts_insn_cache *bts_insn_cache_new(void)
{
	struct bts_insn_cache *c = calloc(1, sizeof(*c));

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

void bts_insn_cache_free(struct bts_insn_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

void bts_insn_cache_flush(struct bts_insn_cache *c)
{
	memset(c->slots, 0, (c->mask + 1) * sizeof(*c->slots));
	c->used = 0;
}

static size_t hash(uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20);
}

static struct slot *find(struct slot *slots, size_t mask, uint64_t addr)
{
	size_t i = hash(addr) & mask;

	while (slots[i].addr && slots[i].addr != addr)
		i = (i + 1) & mask;
	return &slots[i];
}

const struct bts_insn *bts_insn_cache_get(struct bts_insn_cache *c,
					  uint64_t addr)
{
	struct slot *s = find(c->slots, c->mask, addr);

	return s->addr ? &s->insn : NULL;
}

static int grow(struct bts_insn_cache *c)
{
	size_t n = (c->mask + 1) * 2, i;
	struct slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return bts_fail(BTS_E_NOMEM, "instruction cache of %zu entries", n);
	for (i = 0; i <= c->mask; i++)
		if (c->slots[i].addr)
			*find(slots, n - 1, c->slots[i].addr) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->mask = n - 1;
	return 0;
}

int bts_insn_cache_put(struct bts_insn_cache *c, uint64_t addr,
		       const struct bts_insn *insn)
{
	struct slot *s;
	int err;

	if (!addr)
		return bts_fail(BTS_E_INVAL, "no instruction lives at 0");
	if (2 * (c->used + 1) > c->mask + 1) {
		err = grow(c);
		if (err)
			return err;
	}
	s = find(c->slots, c->mask, addr);
	if (!s->addr)
		c->used++;
	s->addr = addr;
	s->insn = *insn;
	return 0;
}

int bts_insn_cache_fill(struct bts_insn_cache *c, uint64_t addr,
			const uint8_t *code, size_t len)
{
	struct bts_insn insn;
	size_t off = 0;
	int n = 0;

	while (off < len && bts_insn_classify(code + off, len - off, &insn) == 0) {
		if (bts_insn_cache_put(c, addr + off, &insn))
			break;
		n++;
		off += insn.len;
	}
	return n;
}
