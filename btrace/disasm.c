// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Zydis's text made into GNU's, the text gdb prints: Zydis names condition
 * codes by their first Intel alias (jnb, setnle), writes the AT&T size of
 * movzx in its own way (movzxb), puts a space after each comma and drops
 * zero displacements that the encoding holds.  The differences are
 * undone here on the formatted text, which keeps Zydis the one decoder and
 * formatter of every view.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "names.h"

#define MNEMONIC_WIDTH 6	/* GNU pads the mnemonic to 6 columns */

void disasm_init(struct disasm *d, int bits, enum disasm_syntax syntax)
{
	ZydisFormatter *f = &d->fmt;

	d->syntax = syntax;
	if (bits == 32)
		ZydisDecoderInit(&d->dec, ZYDIS_MACHINE_MODE_LEGACY_32,
				 ZYDIS_STACK_WIDTH_32);
	else
		ZydisDecoderInit(&d->dec, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(f, syntax == DISASM_INTEL ? ZYDIS_FORMATTER_STYLE_INTEL
						    : ZYDIS_FORMATTER_STYLE_ATT);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, 0);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_DISP_PADDING,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_IMM_PADDING,
				  ZYDIS_PADDING_DISABLED);
	/* GNU: $0xffffffffffffff80, never $-0x80; 0x10(%rip), and the
	 * address it means in a comment. */
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_IMM_SIGNEDNESS,
				  ZYDIS_SIGNEDNESS_UNSIGNED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, 1);
	if (syntax == DISASM_INTEL) {
		/* GNU: QWORD PTR [rax+rax*1+0x0] wherever memory is read. */
		ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_FORCE_SIZE, 1);
		ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_FORCE_SCALE_ONE, 1);
	}
}

/* ------------------------------------------------------------ mnemonics */

/* GNU's names of the condition codes Zydis names otherwise. */
static const char *const cc_alias[][2] = {
	{ "nb", "ae" }, { "nbe", "a" }, { "nl", "ge" }, { "nle", "g" },
	{ "nz", "ne" }, { "z", "e" },
};

/* jnb -> jae, setnle -> setg, cmovz -> cmove. */
static void condition_alias(char *m, size_t len)
{
	static const char *const stems[] = { "j", "set", "cmov" };

	for (size_t s = 0; s < sizeof(stems) / sizeof(stems[0]); s++) {
		size_t n = strlen(stems[s]);

		if (strncmp(m, stems[s], n))
			continue;
		for (size_t i = 0; i < sizeof(cc_alias) / sizeof(cc_alias[0]); i++)
			if (!strcmp(m + n, cc_alias[i][0])) {
				snprintf(m + n, len - n, "%s", cc_alias[i][1]);
				return;
			}
	}
}

static char size_letter(unsigned int bits)
{
	switch (bits) {
	case 8: return 'b';
	case 16: return 'w';
	case 32: return 'l';
	default: return 'q';
	}
}

static bool has_register(const ZydisDecodedInstruction *in,
			 const ZydisDecodedOperand *ops)
{
	for (unsigned int i = 0; i < in->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER)
			return true;
	return false;
}

/* Zydis's AT&T size letter where a register already tells the size. */
static void drop_size_letter(const ZydisDecodedInstruction *in,
			     const ZydisDecodedOperand *ops, char *m)
{
	const char *base = ZydisMnemonicGetString(in->mnemonic);
	size_t n = base ? strlen(base) : 0;

	if (n && !strncmp(m, base, n) && m[n] && !m[n + 1] &&
	    strchr("bwlqxyz", m[n]) && has_register(in, ops))
		m[n] = 0;
}

/* cdqe -> cltq and its kin: the AT&T names of the sign extensions. */
static const char *att_extension(ZydisMnemonic mn)
{
	switch (mn) {
	case ZYDIS_MNEMONIC_CBW: return "cbtw";
	case ZYDIS_MNEMONIC_CWDE: return "cwtl";
	case ZYDIS_MNEMONIC_CDQE: return "cltq";
	case ZYDIS_MNEMONIC_CWD: return "cwtd";
	case ZYDIS_MNEMONIC_CDQ: return "cltd";
	case ZYDIS_MNEMONIC_CQO: return "cqto";
	default: return NULL;
	}
}

/*
 * AT&T names that carry operand sizes where Zydis's do not: movzbl,
 * movswq, movslq (movsxd), nopw/nopl, and movabs for 64-bit immediates
 * and absolute addresses.
 */
static void att_mnemonic(const ZydisDecodedInstruction *in,
			 const ZydisDecodedOperand *ops, char *m, size_t len)
{
	const char *ext = att_extension(in->mnemonic);

	drop_size_letter(in, ops, m);
	if (ext) {
		snprintf(m, len, "%s", ext);
		return;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
		snprintf(m, len, "mov%c%c%c", in->mnemonic == ZYDIS_MNEMONIC_MOVZX ?
			 'z' : 's', size_letter(ops[1].size), size_letter(ops[0].size));
		return;
	case ZYDIS_MNEMONIC_MOVSXD:
		snprintf(m, len, "movs%c%c", size_letter(ops[1].size),
			 size_letter(ops[0].size));
		return;
	case ZYDIS_MNEMONIC_NOP:
		if (in->operand_count_visible)
			snprintf(m, len, "nop%c", size_letter(in->operand_width));
		return;
	case ZYDIS_MNEMONIC_MUL: case ZYDIS_MNEMONIC_IMUL: case ZYDIS_MNEMONIC_DIV:
	case ZYDIS_MNEMONIC_IDIV: case ZYDIS_MNEMONIC_NEG: case ZYDIS_MNEMONIC_NOT:
	case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC:
		/* Only memory: the size is in the name ("negl"). */
		if (in->operand_count_visible == 1 &&
		    ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    !strcmp(m, ZydisMnemonicGetString(in->mnemonic)))
			snprintf(m + strlen(m), len - strlen(m), "%c",
				 size_letter(ops[0].size));
		return;
	default:
		return;
	}
}

static bool is_movabs(const ZydisDecodedInstruction *in,
		      const ZydisDecodedOperand *ops)
{
	return in->mnemonic == ZYDIS_MNEMONIC_MOV &&
	       ((ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		 in->raw.imm[0].size == 64) ||
		(in->opcode >= 0xa0 && in->opcode <= 0xa3 &&
		 in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		 in->machine_mode == ZYDIS_MACHINE_MODE_LONG_64));
}

/*
 * The prefixes of a long nop that GNU shows and Zydis does not: a segment
 * override is "cs", and each operand-size prefix but the one that makes
 * the nop a nopw is "data16".
 */
static void nop_prefixes(const ZydisDecodedInstruction *in, char *out, size_t len)
{
	static const struct { uint8_t byte; const char *name; } names[] = {
		{ 0x2e, "cs " }, { 0x3e, "ds " }, { 0x26, "es " }, { 0x36, "ss " },
		{ 0x64, "fs " }, { 0x65, "gs " }, { 0x66, "data16 " },
	};
	int last66 = -1;
	size_t n = 0;

	out[0] = 0;
	for (int i = 0; i < in->raw.prefix_count; i++)
		if (in->raw.prefixes[i].value == 0x66)
			last66 = i;
	for (int i = 0; i < in->raw.prefix_count; i++) {
		if (i == last66)
			continue;
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (names[k].byte == in->raw.prefixes[i].value && n < len)
				n += snprintf(out + n, len - n, "%s", names[k].name);
	}
}

/* ------------------------------------------------------------- operands */

/* "a, b" -> "a,b"; "%k6 {%k1}" -> "%k6{%k1}". */
static void squeeze(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r == ' ' && (r > s && (r[-1] == ',' || r[1] == '{')))
			continue;
		*w++ = *r;
	}
	*w = 0;
}

static const ZydisDecodedOperand *memory_operand(const ZydisDecodedInstruction *in,
						 const ZydisDecodedOperand *ops)
{
	for (unsigned int i = 0; i < in->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM ||
		     ops[i].mem.type == ZYDIS_MEMOP_TYPE_AGEN))
			return &ops[i];
	return NULL;
}

/* A displacement of 0 that the encoding holds, as GNU shows it: 0x0(%rax). */
static void zero_disp(const struct disasm *d, const ZydisDecodedOperand *mem,
		      char *s, size_t len)
{
	char *at;
	size_t n = strlen(s);

	if (!mem || !mem->mem.disp.has_displacement || mem->mem.disp.value ||
	    (mem->mem.base == ZYDIS_REGISTER_NONE &&
	     mem->mem.index == ZYDIS_REGISTER_NONE))
		return;
	if (d->syntax == DISASM_ATT) {
		at = strchr(s, '(');
		if (!at || n + 4 > len)
			return;
		memmove(at + 3, at, strlen(at) + 1);
		memcpy(at, "0x0", 3);
	} else {
		at = strchr(s, ']');
		if (!at || n + 5 > len)
			return;
		memmove(at + 4, at, strlen(at) + 1);
		memcpy(at, "+0x0", 4);
	}
}

/* " <f>", " <main+9>": how gdb names an address; "" when nothing does. */
static void name_of(struct bts_symbolizer *sym, uint64_t addr, char *out,
		    size_t len)
{
	const char *name;
	uint64_t off;

	out[0] = 0;
	if (!sym || symbolize_shown(sym, addr, &name, &off) < 0)
		return;
	if (off)
		snprintf(out, len, " <%s+%" PRIu64 ">", name, off);
	else
		snprintf(out, len, " <%s>", name);
}

/*
 * What gdb adds after the operands: the target's name after a direct
 * branch, and "# 0xADDR <name>" for a rip-relative operand.
 */
static void annotate(const ZydisDecodedInstruction *in,
		     const ZydisDecodedOperand *ops, uint64_t ip,
		     struct bts_symbolizer *sym, char *out, size_t len)
{
	const ZydisDecodedOperand *mem = memory_operand(in, ops);
	uint64_t addr;
	char name[512];

	out[0] = 0;
	if (in->operand_count_visible &&
	    ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &ops[0], ip, &addr))) {
		name_of(sym, addr, out, len);
		return;
	}
	if (mem && (mem->mem.base == ZYDIS_REGISTER_RIP ||
		    mem->mem.base == ZYDIS_REGISTER_EIP) &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, mem, ip, &addr))) {
		name_of(sym, addr, name, sizeof(name));
		snprintf(out, len, "        # 0x%" PRIx64 "%s", addr, name);
	}
}

/* ----------------------------------------------------------------- text */

static bool is_prefix(const char *w, size_t n)
{
	static const char *const prefixes[] = {
		"lock", "rep", "repe", "repz", "repne", "repnz", "bnd", "notrack",
		"xacquire", "xrelease", "data16", "cs", "ds", "ss", "es", "fs", "gs",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strlen(prefixes[i]) == n && !strncmp(w, prefixes[i], n))
			return true;
	return false;
}

/* A long nop's register operand is Zydis's alone: GNU shows the memory. */
static void long_nop_operand(const struct disasm *d, char *args)
{
	char *comma = d->syntax == DISASM_ATT ? strchr(args, ',') : strrchr(args, ',');

	if (!comma)
		return;
	if (d->syntax == DISASM_ATT)
		memmove(args, comma + 1, strlen(comma + 1) + 1);
	else
		*comma = 0;
}

/* GNU's Intel text: [rip+0xfffffffffffffe92], never [rip-0x16e]. */
static void rip_unsigned(char *s, int64_t disp)
{
	char *p = strstr(s, "[rip-0x"), tail[256];

	if (!p)
		return;
	p += 4;
	snprintf(tail, sizeof(tail), "%s", p + strcspn(p, "]"));
	sprintf(p, "+0x%" PRIx64 "%s", (uint64_t)disp, tail);
}

/* "byte ptr" -> "BYTE PTR"; "[0x28]" -> "ds:0x28", "fs:[0x28]" -> "fs:0x28". */
static void intel_operands(const ZydisDecodedOperand *mem, char *s)
{
	char *p, *open, *close;

	for (p = strstr(s, " ptr "); p; p = strstr(p + 1, " ptr ")) {
		char *w = p;

		while (w > s && w[-1] != ',' && w[-1] != ' ')
			w--;
		for (; w < p + 4; w++)
			*w = (char)(*w >= 'a' && *w <= 'z' ? *w - 32 : *w);
	}
	if (mem && mem->mem.base == ZYDIS_REGISTER_RIP && mem->mem.disp.value < 0)
		rip_unsigned(s, mem->mem.disp.value);
	if (!mem || mem->mem.base != ZYDIS_REGISTER_NONE ||
	    mem->mem.index != ZYDIS_REGISTER_NONE || !(open = strchr(s, '[')) ||
	    !(close = strchr(open, ']')))
		return;
	memmove(close, close + 1, strlen(close + 1) + 1);
	if (open > s && open[-1] == ':') {
		memmove(open, open + 1, strlen(open + 1) + 1);
	} else {
		memmove(open + 2, open, strlen(open) + 1);
		memcpy(open, "ds:", 3);
	}
}

/* The shifts by one (D0, D1): GNU writes no count, or 1. */
static void shift_by_one(const struct disasm *d, const ZydisDecodedInstruction *in,
			 char *args)
{
	size_t n = strlen(args);

	if (in->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT ||
	    (in->opcode != 0xd0 && in->opcode != 0xd1))
		return;
	if (d->syntax == DISASM_ATT && !strncmp(args, "$0x1,", 5))
		memmove(args, args + 5, n - 4);
	else if (d->syntax == DISASM_INTEL && n > 4 && !strcmp(args + n - 4, ",0x1"))
		strcpy(args + n - 4, ",1");
}

static bool is_indirect_branch(const ZydisDecodedInstruction *in,
			       const ZydisDecodedOperand *ops)
{
	return (in->mnemonic == ZYDIS_MNEMONIC_CALL ||
		in->mnemonic == ZYDIS_MNEMONIC_JMP) &&
	       in->operand_count_visible && ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE;
}

/* The mnemonic as GNU spells it, with the prefixes Zydis left out. */
static void mnemonic(const struct disasm *d, const ZydisDecodedInstruction *in,
		     const ZydisDecodedOperand *ops, char *m, size_t len,
		     char *pre, size_t pre_len)
{
	if (in->mnemonic == ZYDIS_MNEMONIC_NOP && in->operand_count_visible)
		nop_prefixes(in, pre + strlen(pre), pre_len - strlen(pre));
	condition_alias(m, len);
	if (is_movabs(in, ops))
		snprintf(m, len, "movabs");
	else if (d->syntax == DISASM_ATT)
		att_mnemonic(in, ops, m, len);
}

/* 66 90: GNU's xchg %ax,%ax, where Zydis sees a nop. */
static bool xchg_ax(const struct disasm *d, const ZydisDecodedInstruction *in,
		    char *out, size_t len)
{
	if (in->mnemonic != ZYDIS_MNEMONIC_NOP || in->opcode != 0x90 ||
	    in->operand_width != 16)
		return false;
	snprintf(out, len, "xchg   %s", d->syntax == DISASM_ATT ? "%ax,%ax" : "ax,ax");
	return true;
}

void disasm_format(const struct disasm *d, const uint8_t *raw, size_t size,
		   uint64_t ip, struct bts_symbolizer *sym, char *out, size_t len)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	char text[256], pre[64], name[64], head[128], note[600], *p, *args;

	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&d->dec, raw, size, &in, ops)))
		goto bad;
	if (xchg_ax(d, &in, out, len))
		return;
	if (ZYAN_FAILED(ZydisFormatterFormatInstruction(&d->fmt, &in, ops,
			in.operand_count_visible, text, sizeof(text), ip, NULL)))
		goto bad;
	/* "[prefixes ]mnemonic[ operands]" */
	for (p = text; ; p += strcspn(p, " ") + 1) {
		size_t n = strcspn(p, " ");

		if (!p[n] || !is_prefix(p, n))
			break;
	}
	snprintf(pre, sizeof(pre), "%.*s", (int)(p - text), text);
	args = p + strcspn(p, " ");
	snprintf(name, sizeof(name), "%.*s", (int)(args - p), p);
	if (*args)
		args++;
	mnemonic(d, &in, ops, name, sizeof(name), pre, sizeof(pre));
	squeeze(args);
	if (in.mnemonic == ZYDIS_MNEMONIC_NOP && in.operand_count_visible)
		long_nop_operand(d, args);
	zero_disp(d, memory_operand(&in, ops), args, sizeof(text) - (args - text));
	shift_by_one(d, &in, args);
	if (d->syntax == DISASM_INTEL)
		intel_operands(memory_operand(&in, ops), args);
	annotate(&in, ops, ip, sym, note, sizeof(note));
	snprintf(head, sizeof(head), "%s%s", pre, name);
	if (*args)
		snprintf(out, len, "%-*s %s%s%s", MNEMONIC_WIDTH, head,
			 d->syntax == DISASM_ATT && is_indirect_branch(&in, ops) ?
			 "*" : "", args, note);
	else
		snprintf(out, len, "%s%s", head, note);
	return;
bad:
	snprintf(out, len, "(bad)");
}
