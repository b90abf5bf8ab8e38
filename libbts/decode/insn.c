// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Control-transfer classification with Zydis, and a cache of it keyed by
 * address (open addressing, linear probing, grown at half load): a traced
 * loop asks about the same few addresses millions of times.
 */
#include <stdlib.h>

#include <Zydis/Zydis.h>

#include "util/addr_table.h"
#include "decode/insn.h"

/* [0] long mode; [1] legacy 32-bit mode, for i386 programs (abi32.c). */
static ZydisDecoder decoders[2];
static bool decoders_ready[2];

static const ZydisDecoder *decoder_for(bool is32)
{
	/* Initialising twice from two threads writes the same bytes. */
	if (!decoders_ready[is32]) {
		if (is32)
			ZydisDecoderInit(&decoders[1], ZYDIS_MACHINE_MODE_LEGACY_32,
					 ZYDIS_STACK_WIDTH_32);
		else
			ZydisDecoderInit(&decoders[0], ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64);
		decoders_ready[is32] = true;
	}
	return &decoders[is32];
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
	case ZYDIS_CATEGORY_SYSCALL:	/* syscall, sysenter */
		return BTS_INSN_SYSCALL;
	case ZYDIS_CATEGORY_INTERRUPT:	/* int3, int $0x80 */
		return BTS_INSN_INT;
	default:
		break;
	}
	/* XBEGIN jumps to its fallback only when the transaction aborts. */
	if (zi->mnemonic == ZYDIS_MNEMONIC_XBEGIN)
		return BTS_INSN_COND;
	return BTS_INSN_OTHER;
}

int bts_insn_classify_mode(bool is32, const void *buf, size_t len,
			   struct bts_insn *out)
{
	ZydisDecodedInstruction zi;
	ZyanStatus st;

	st = ZydisDecoderDecodeInstruction(decoder_for(is32), NULL, buf, len, &zi);
	if (st == ZYDIS_STATUS_NO_MORE_DATA)
		return bts_fail(BTS_E_TRUNCATED, "instruction runs past %zu bytes", len);
	if (!ZYAN_SUCCESS(st))
		return bts_fail(BTS_E_DECODE, "undecodable %sinstruction (Zydis status 0x%x)",
				is32 ? "32-bit " : "", (unsigned int)st);
	out->len = zi.length;
	out->kind = kind_of(&zi);
	out->flags = 0;
	if (zi.meta.category == ZYDIS_CATEGORY_STRINGOP &&
	    (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			      ZYDIS_ATTRIB_HAS_REPNE)))
		out->flags |= BTS_INSN_F_REP;
	return 0;
}

int bts_insn_classify(const void *buf, size_t len, struct bts_insn *out)
{
	return bts_insn_classify_mode(false, buf, len, out);
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

/* --------------------------------------------------------------- branches */

static int cond_of(ZydisMnemonic m)
{
	static const ZydisMnemonic jcc[16] = {
		ZYDIS_MNEMONIC_JO, ZYDIS_MNEMONIC_JNO, ZYDIS_MNEMONIC_JB,
		ZYDIS_MNEMONIC_JNB, ZYDIS_MNEMONIC_JZ, ZYDIS_MNEMONIC_JNZ,
		ZYDIS_MNEMONIC_JBE, ZYDIS_MNEMONIC_JNBE, ZYDIS_MNEMONIC_JS,
		ZYDIS_MNEMONIC_JNS, ZYDIS_MNEMONIC_JP, ZYDIS_MNEMONIC_JNP,
		ZYDIS_MNEMONIC_JL, ZYDIS_MNEMONIC_JNL, ZYDIS_MNEMONIC_JLE,
		ZYDIS_MNEMONIC_JNLE,
	};
	int i;

	for (i = 0; i < 16; i++)
		if (jcc[i] == m)
			return i;
	switch (m) {
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
		return BTS_COND_RCXZ;
	case ZYDIS_MNEMONIC_LOOP:
		return BTS_COND_LOOP;
	case ZYDIS_MNEMONIC_LOOPE:
		return BTS_COND_LOOPE;
	case ZYDIS_MNEMONIC_LOOPNE:
		return BTS_COND_LOOPNE;
	default:
		return -1;	/* xbegin: only an abort takes it */
	}
}

/* A general register's hardware number; BTS_REG_RIP; -1 for others. */
static int reg_of(ZydisRegister r)
{
	ZydisRegister big;

	if (r == ZYDIS_REGISTER_NONE)
		return BTS_REG_NONE;
	if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP)
		return BTS_REG_RIP;
	big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (big < ZYDIS_REGISTER_RAX || big > ZYDIS_REGISTER_R15)
		return -1;
	return ZydisRegisterGetId(big);
}

static bool take_operand(const ZydisDecodedOperand *op, struct bts_branch *b)
{
	/* The target is as wide as the pc: 4 bytes in i386 code. */
	unsigned int width = b->mode32 ? 32 : 64;
	int base, index;

	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		base = reg_of(op->reg.value);
		if (base < 0 || base == BTS_REG_RIP || base == BTS_REG_NONE ||
		    op->size != width)
			return false;
		b->opnd = BTS_OPND_REG;
		b->base = (uint8_t)base;
		return true;
	}
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    op->mem.type != ZYDIS_MEMOP_TYPE_MEM || op->size != width)
		return false;
	base = reg_of(op->mem.base);
	index = reg_of(op->mem.index);
	if (base < 0 || index < 0 || index == BTS_REG_RIP)
		return false;
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		b->seg = 1;
	else if (op->mem.segment == ZYDIS_REGISTER_GS)
		b->seg = 2;
	b->opnd = BTS_OPND_MEM;
	b->base = (uint8_t)base;
	b->index = (uint8_t)index;
	b->scale = op->mem.scale;
	b->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
	return true;
}

/* Whether a tracer can carry the branch out exactly as the CPU would. */
static bool fill_branch(const ZydisDecodedInstruction *zi,
			const ZydisDecodedOperand *ops, uint64_t pc,
			struct bts_branch *b)
{
	ZyanU64 abs;
	int cond;

	/* 16-bit operand size: AMD and Intel disagree on what it does. */
	if (zi->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE)
		return false;
	b->addr32 = zi->address_width == 32;
	/* i386 code with 0x67: 16-bit addresses and %cx counts, left to the CPU. */
	if (b->mode32 && !b->addr32)
		return false;
	switch (b->kind) {
	case BTS_INSN_COND:
		cond = cond_of(zi->mnemonic);
		/*
		 * loop with 0x67 in long mode writes %ecx: how the upper half
		 * fares is unclear.  i386 code has only %ecx to count.
		 */
		if (cond < 0 || (cond >= BTS_COND_LOOP && b->addr32 && !b->mode32))
			return false;
		b->cond = (uint8_t)cond;
		/* fall through */
	case BTS_INSN_JUMP:
	case BTS_INSN_CALL:
		if (!zi->operand_count_visible ||
		    ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, &ops[0], pc, &abs)))
			return false;
		/* i386 code: the pc wraps at 4 GiB. */
		b->target = b->mode32 ? (uint32_t)abs : abs;
		return true;
	case BTS_INSN_JUMP_IND:
	case BTS_INSN_CALL_IND:
		return zi->operand_count_visible &&
		       take_operand(&ops[0], b);
	case BTS_INSN_RET:
		if (zi->operand_count_visible &&
		    ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			b->imm = (uint16_t)ops[0].imm.value.u;
		return zi->operand_width == (b->mode32 ? 32 : 64);
	default:
		return false;
	}
}

int bts_branch_decode_mode(bool is32, const void *buf, size_t len, uint64_t pc,
			   struct bts_branch *out)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	ZyanStatus st;

	st = ZydisDecoderDecodeFull(decoder_for(is32), buf, len, &zi, ops);
	if (st == ZYDIS_STATUS_NO_MORE_DATA)
		return bts_fail(BTS_E_TRUNCATED, "instruction runs past %zu bytes", len);
	if (!ZYAN_SUCCESS(st))
		return bts_fail(BTS_E_DECODE, "undecodable instruction (Zydis status 0x%x)",
				(unsigned int)st);
	memset(out, 0, sizeof(*out));
	out->len = zi.length;
	out->kind = (uint8_t)kind_of(&zi);
	out->base = out->index = BTS_REG_NONE;
	out->mode32 = is32;
	out->emulable = fill_branch(&zi, ops, pc, out);
	return 0;
}

int bts_branch_decode(const void *buf, size_t len, uint64_t pc,
		      struct bts_branch *out)
{
	return bts_branch_decode_mode(false, buf, len, pc, out);
}

/* ------------------------------------------------------------------ cache */

struct slot {
	uint64_t addr;		/* the key: first, as the table wants it */
	struct bts_insn insn;
};

struct bts_insn_cache {
	struct bts_addr_table table;
};

#define CACHE_MIN 4096

struct bts_insn_cache *bts_insn_cache_new(void)
{
	struct bts_insn_cache *c = calloc(1, sizeof(*c));

	if (c)
		bts_addr_table_init(&c->table, sizeof(struct slot), CACHE_MIN);
	return c;
}

void bts_insn_cache_free(struct bts_insn_cache *c)
{
	if (!c)
		return;
	bts_addr_table_fini(&c->table);
	free(c);
}

void bts_insn_cache_flush(struct bts_insn_cache *c)
{
	bts_addr_table_clear(&c->table);
}

const struct bts_insn *bts_insn_cache_get(struct bts_insn_cache *c,
					  uint64_t addr)
{
	struct slot *s = bts_addr_table_get(&c->table, addr);

	return s ? &s->insn : NULL;
}

int bts_insn_cache_put(struct bts_insn_cache *c, uint64_t addr,
		       const struct bts_insn *insn)
{
	struct slot *s;

	if (!addr)
		return bts_fail(BTS_E_INVAL, "no instruction lives at 0");
	s = bts_addr_table_put(&c->table, addr);
	if (!s)
		return -BTS_E_NOMEM;
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
