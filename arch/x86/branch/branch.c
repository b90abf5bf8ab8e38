// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The control-transfer classifier: an x86 instruction length decoder that
 * also says what the instruction does to the flow of control.
 *
 * Written from the opcode maps of the Intel SDM, vol. 2, appendix A
 * ("Opcode Map"), its chapter 2 (instruction format, VEX and EVEX), and
 * AMD's APM vol. 3, chapter 1 (XOP).  The tables below say, per opcode,
 * only what the length and the kind of transfer depend on; operands are
 * never decoded.  It accepts a few encodings a full decoder rejects (an
 * undefined 0F38 opcode, LOCK on an ALU operation with a register): the
 * kernel classifies instructions that have just executed, which the CPU
 * therefore accepted, and what a longer decode would add is not needed.
 *
 * Near branches in 64-bit mode follow Intel: their operand size is fixed
 * at 64 bits (SDM vol. 2, the CALL, JMP and Jcc pages), so a 66 prefix
 * does not shorten the displacement: 66 E8 is still rel32.  AMD honours
 * the 66 there (rel16, and RIP truncated), so on AMD such an instruction
 * would be two bytes shorter than said here; no compiler emits it.  Zydis
 * decodes Intel's way too.  xbegin is no near branch: its 66 counts.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <linux/types.h>
typedef __u16 u16;
#endif

#include "branch.h"

/*
 * SDM vol. 2, chapter 2: no instruction is longer than 15 bytes; the CPU
 * faults on a longer one, however valid its parts.
 */
#define MAX_INSN_LEN	15

/*
 * What one opcode needs.  The low nibble is the immediate's size class,
 * the high nibble the &enum ptbts_br_kind, the bits between are flags.
 */
enum imm_class {
	I_NONE,
	I_B,		/* imm8, rel8 */
	I_W,		/* imm16: ret/retf imm16 */
	I_Z,		/* imm16 with a 16-bit operand size, else imm32 */
	I_V,		/* mov r, imm: 16, 32 or 64 bits (REX.W) */
	I_WB,		/* enter imm16, imm8 */
	I_MOFFS,	/* mov al/ax, [moffs]: address-sized */
	I_PTR,		/* far pointer ptr16:16 / ptr16:32 */
	I_BB,		/* extrq/insertq imm8, imm8 (AMD SSE4a) */
	I_D,		/* imm32 whatever the operand size (XOP map 0Ah) */
};

#define F_IMM		0x000f
#define F_MODRM		0x0010	/* a ModRM byte follows the opcode */
#define F_INV64		0x0020	/* "i64": #UD in 64-bit mode */
#define F_INV		0x0040	/* no instruction has this opcode */
#define F_STR		0x0080	/* string instruction: REP/REPNE repeat it */
#define F_GRP		0x0100	/* ModRM or a prefix matters: refine_*() */
#define F_MREG		0x0200	/* ModRM.mod is ignored, always a register */
#define F_REL		0x0400	/* the immediate is a branch displacement */
#define F_KIND_SHIFT	12
#define KIND(k)		((u16)(PTBTS_BR_##k << F_KIND_SHIFT))

/* Short names to keep the tables 16 entries to a line. */
#define NO	0			/* opcode only */
#define XX	F_INV			/* no instruction */
#define N64	F_INV64
#define MM	F_MODRM
#define MB	(F_MODRM | I_B)
#define MZ	(F_MODRM | I_Z)
#define M64	(F_MODRM | F_INV64)
#define MB64	(F_MODRM | I_B | F_INV64)
#define MCR	(F_MODRM | F_MREG)
#define GR	(F_MODRM | F_GRP)
#define IB	I_B
#define IB64	(I_B | F_INV64)
#define IZ	I_Z
#define IV	I_V
#define IWB	I_WB
#define OF	I_MOFFS
#define ST	F_STR
#define PF	0			/* a prefix, consumed before the lookup */
#define ES	0			/* an escape byte, handled before the lookup */
#define JCC8	(I_B | F_REL | KIND(JCC))
#define JCCZ	(I_Z | F_REL | KIND(JCC))
#define LOOP8	(I_B | F_REL | KIND(LOOP))
#define JMP8	(I_B | F_REL | KIND(JMP))
#define JMPZ	(I_Z | F_REL | KIND(JMP))
#define CALLZ	(I_Z | F_REL | KIND(CALL))
#define RET	KIND(RET)
#define RETW	(I_W | KIND(RET))
#define FAR	KIND(FAR)
#define FARW	(I_W | KIND(FAR))
#define FPTR	(I_PTR | KIND(FAR) | F_INV64)	/* ptr16:16 or ptr16:32 */
#define SYS	KIND(SYSCALL)
#define SYSB	(I_B | KIND(SYSCALL))
#define SYS64	(KIND(SYSCALL) | F_INV64)
#define UD	KIND(OTHER)
#define MUD	(F_MODRM | KIND(OTHER))

/* SDM vol. 2, table A-2: one-byte opcodes, 8 to a line. */
static const u16 map1[256] = {
	/* 00-3F: alu ops; 0F escape; segment push/pop, BCD adjusts (i64) */
	MM,    MM,    MM,    MM,    IB,    IZ,    N64,   N64,
	MM,    MM,    MM,    MM,    IB,    IZ,    N64,   ES,
	MM,    MM,    MM,    MM,    IB,    IZ,    N64,   N64,
	MM,    MM,    MM,    MM,    IB,    IZ,    N64,   N64,
	MM,    MM,    MM,    MM,    IB,    IZ,    PF,    N64,
	MM,    MM,    MM,    MM,    IB,    IZ,    PF,    N64,
	MM,    MM,    MM,    MM,    IB,    IZ,    PF,    N64,
	MM,    MM,    MM,    MM,    IB,    IZ,    PF,    N64,
	/* 4: inc/dec, REX in 64-bit mode */
	NO,    NO,    NO,    NO,    NO,    NO,    NO,    NO,
	NO,    NO,    NO,    NO,    NO,    NO,    NO,    NO,
	/* 5: push/pop */
	NO,    NO,    NO,    NO,    NO,    NO,    NO,    NO,
	NO,    NO,    NO,    NO,    NO,    NO,    NO,    NO,
	/* 6: pusha/popa, 62 bound (EVEX), 63 arpl/movsxd, 6C-6F ins/outs */
	N64,   N64,   M64,   MM,    PF,    PF,    PF,    PF,
	IZ,    MZ,    IB,    MB,    ST,    ST,    ST,    ST,
	/* 7: jcc rel8 */
	JCC8,  JCC8,  JCC8,  JCC8,  JCC8,  JCC8,  JCC8,  JCC8,
	JCC8,  JCC8,  JCC8,  JCC8,  JCC8,  JCC8,  JCC8,  JCC8,
	/* 8: 82 (i64), 8F pop Ev or XOP */
	MB,    MZ,    MB64,  MB,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    GR,
	/* 9: 9A call far ptr */
	NO,    NO,    NO,    NO,    NO,    NO,    NO,    NO,
	NO,    NO,    FPTR,  NO,    NO,    NO,    NO,    NO,
	/* A: A0-A3 mov moffs, strings */
	OF,    OF,    OF,    OF,    ST,    ST,    ST,    ST,
	IB,    IZ,    ST,    ST,    ST,    ST,    ST,    ST,
	/* B: mov imm */
	IB,    IB,    IB,    IB,    IB,    IB,    IB,    IB,
	IV,    IV,    IV,    IV,    IV,    IV,    IV,    IV,
	/* C: C4/C5 les/lds (VEX), C6/C7 mov or xabort/xbegin, C8 enter, CA-CF
	 * retf, int3, int, into, iret
	 */
	MB,    MB,    RETW,  RET,   M64,   M64,   GR,    GR,
	IWB,   NO,    FARW,  FAR,   SYS,   SYSB,  SYS64, FAR,
	/* D: D4 aam, D5 aad, D6 salc; D8-DF x87 */
	MM,    MM,    MM,    MM,    IB64,  IB64,  N64,   NO,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	/* E: loop/jrcxz, in/out, E8 call, E9 jmp, EA jmp far ptr, EB jmp rel8 */
	LOOP8, LOOP8, LOOP8, LOOP8, IB,    IB,    IB,    IB,
	CALLZ, JMPZ,  FPTR,  JMP8,  NO,    NO,    NO,    NO,
	/* F: F1 int1, F6/F7 group 3, FE/FF groups 4 and 5 */
	PF,    SYS,   PF,    PF,    NO,    NO,    GR,    GR,
	NO,    NO,    NO,    NO,    NO,    NO,    GR,    GR,
};

/* SDM vol. 2, table A-3: two-byte opcodes, 0F xx, 8 to a line. */
static const u16 map0f[256] = {
	/* 0: 01 group 7, 05 syscall, 07 sysret, 0B ud2, 0D prefetch, 0F 3DNow!
	 * (its opcode is a trailing imm8)
	 */
	MM,    GR,    MM,    MM,    XX,    SYS,   NO,    FAR,
	NO,    NO,    XX,    UD,    XX,    MM,    NO,    MB,
	/* 1: sse moves; 18-1F prefetch and hint nops (1E FA endbr64) */
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	/* 2: 20-23 mov cr/dr, whose mod bits are ignored; 24-27 mov tr is gone */
	MCR,   MCR,   MCR,   MCR,   XX,    XX,    XX,    XX,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	/* 3: 30-33 wrmsr..rdpmc, 34 sysenter, 35 sysexit, 37 getsec, 38/3A escapes */
	NO,    NO,    NO,    NO,    SYS,   FAR,   XX,    NO,
	ES,    XX,    ES,    XX,    XX,    XX,    XX,    XX,
	/* 4: cmovcc */
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	/* 5-7: sse/mmx; 70-73 with imm8; 77 emms; 78 vmread or extrq/insertq */
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MB,    MB,    MB,    MB,    MM,    MM,    MM,    NO,
	GR,    MM,    XX,    XX,    MM,    MM,    MM,    MM,
	/* 8: jcc rel32 */
	JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,
	JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,  JCCZ,
	/* 9: setcc */
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	/* A: push/pop fs/gs, cpuid, bt, shld/shrd, A6/A7 VIA PadLock, AA rsm, AE
	 * group 15
	 */
	NO,    NO,    NO,    MM,    MB,    MM,    MM,    MM,
	NO,    NO,    FAR,   MM,    MB,    MM,    MM,    MM,
	/* B: cmpxchg..movsx, B8 popcnt, B9 ud1, BA group 8 */
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MUD,   MB,    MM,    MM,    MM,    MM,    MM,
	/* C: xadd, C2/C4-C6 with imm8, C7 group 9, C8-CF bswap */
	MM,    MM,    MB,    MM,    MB,    MB,    MB,    MM,
	NO,    NO,    NO,    NO,    NO,    NO,    NO,    NO,
	/* D-F: sse/mmx; FF ud0 (with ModRM, as Intel defines it) */
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MM,
	MM,    MM,    MM,    MM,    MM,    MM,    MM,    MUD,
};

#undef NO
#undef XX
#undef N64
#undef MM
#undef MB
#undef MZ
#undef M64
#undef MB64
#undef MCR
#undef GR
#undef IB
#undef IB64
#undef IZ
#undef IV
#undef IWB
#undef OF
#undef ST
#undef PF
#undef ES
#undef JCC8
#undef JCCZ
#undef LOOP8
#undef JMP8
#undef JMPZ
#undef CALLZ
#undef RET
#undef RETW
#undef FAR
#undef FARW
#undef FPTR
#undef SYS
#undef SYSB
#undef SYS64
#undef UD
#undef MUD

/* Opcode maps, numbered as VEX.mmmmm, EVEX.mmm and XOP.mmmmm number them. */
enum map {
	MAP_1BYTE, MAP_0F, MAP_0F38, MAP_0F3A,
	MAP_EVEX5 = 5, MAP_EVEX6 = 6,		/* AVX512-FP16 */
	MAP_XOP8 = 8, MAP_XOP9 = 9, MAP_XOPA = 10,
};

struct dec {
	const u8 *code;
	unsigned int avail;
	unsigned int pos;
	bool mode64;
	bool p66;		/* operand-size override */
	bool p67;		/* address-size override */
	bool lock;
	u8 rep_pfx;		/* the last of F2/F3, or 0 */
	bool rep;		/* a string instruction that repeats */
	u8 rex;			/* the REX right before the opcode, or 0 */
	u8 kind;
	s32 rel;
};

/* Makes sure @n more bytes are there: not past 15, not past @avail. */
static int need(const struct dec *d, unsigned int n)
{
	if (d->pos + n > MAX_INSN_LEN)
		return -EINVAL;
	if (d->pos + n > d->avail)
		return -ENODATA;
	return 0;
}

static int fetch(struct dec *d, u8 *b)
{
	int err = need(d, 1);

	if (!err)
		*b = d->code[d->pos++];
	return err;
}

static int skip(struct dec *d, unsigned int n)
{
	int err = need(d, n);

	if (!err)
		d->pos += n;
	return err;
}

/* The next byte without consuming it (VEX/EVEX/XOP tell-tales). */
static int peek(const struct dec *d, u8 *b)
{
	int err = need(d, 1);

	if (!err)
		*b = d->code[d->pos];
	return err;
}

/* Little-endian, sign-extended: rel8, rel16, rel32. */
static s32 sext(const u8 *p, unsigned int n)
{
	if (n == 1)
		return (signed char)p[0];
	if (n == 2)
		return (short)(p[0] | p[1] << 8);
	return (s32)((unsigned int)p[0] | (unsigned int)p[1] << 8 |
		     (unsigned int)p[2] << 16 | (unsigned int)p[3] << 24);
}

/* REX.W wins over 66 (SDM vol. 2, "REX Prefixes"). */
static bool opsize16(const struct dec *d)
{
	return d->p66 && !(d->rex & 0x08);
}

static unsigned int imm_size(const struct dec *d, u16 f)
{
	switch (f & F_IMM) {
	case I_B:
		return 1;
	case I_W:
		return 2;
	case I_WB:
		return 3;
	case I_Z:
		/* Near branches ignore 66 in 64-bit mode (Intel). */
		if ((f & F_REL) && d->mode64)
			return 4;
		return opsize16(d) ? 2 : 4;
	case I_V:
		if (d->rex & 0x08)
			return 8;
		return opsize16(d) ? 2 : 4;
	case I_MOFFS:
		if (d->mode64)
			return d->p67 ? 4 : 8;
		return d->p67 ? 2 : 4;
	case I_PTR:
		return opsize16(d) ? 4 : 6;
	case I_BB:
		return 2;
	case I_D:
		return 4;
	}
	return 0;
}

/* Skips SIB and displacement: SDM vol. 2, tables 2-1 to 2-3. */
static int skip_mem(struct dec *d, u8 modrm)
{
	unsigned int mod = modrm >> 6, rm = modrm & 7;
	u8 sib = 0;
	int err;

	if (mod == 3)
		return 0;
	if (!d->mode64 && d->p67) {
		/* 16-bit addressing: no SIB; [disp16] replaces [bp]. */
		if (mod == 0)
			return skip(d, rm == 6 ? 2 : 0);
		return skip(d, mod == 1 ? 1 : 2);
	}
	if (rm == 4) {
		err = fetch(d, &sib);
		if (err)
			return err;
	}
	if (mod == 1)
		return skip(d, 1);
	if (mod == 2)
		return skip(d, 4);
	/* mod 0: [disp32] (RIP-relative in 64-bit mode), or SIB without base. */
	if (rm == 5 || (rm == 4 && (sib & 7) == 5))
		return skip(d, 4);
	return 0;
}

/* One-byte groups whose ModRM.reg changes the length or the kind. */
static u16 refine_1byte(u8 op, u8 modrm, u16 f)
{
	unsigned int reg = (modrm >> 3) & 7;
	bool mem = (modrm >> 6) != 3;

	switch (op) {
	case 0x8f:			/* group 1A: only pop Ev */
		return reg ? F_INV : f;
	case 0xc6:			/* group 11: mov Eb, Ib; xabort Ib */
		if (reg == 0)
			return f | I_B;
		return modrm == 0xf8 ? f | I_B | KIND(OTHER) : F_INV;
	case 0xc7:			/* mov Ev, Iz; xbegin rel16/32 (66) */
		if (reg == 0)
			return f | I_Z;
		return modrm == 0xf8 ? f | I_Z | KIND(OTHER) : F_INV;
	case 0xf6:			/* group 3: test Eb, Ib (/0, alias /1) */
		return reg < 2 ? f | I_B : f;
	case 0xf7:
		return reg < 2 ? f | I_Z : f;
	case 0xfe:			/* group 4: inc/dec Eb only */
		return reg < 2 ? f : F_INV;
	}
	/* 0xff, group 5: SDM table A-6. Far forms need a memory operand. */
	switch (reg) {
	case 2:
		return f | KIND(CALL_IND);
	case 3:
	case 5:
		return mem ? f | KIND(FAR) : F_INV;
	case 4:
		return f | KIND(JMP_IND);
	case 7:
		return F_INV;
	}
	return f;
}

/* The mandatory prefix of an SSE-style opcode: F2/F3 win over 66. */
static u8 mandatory_prefix(const struct dec *d)
{
	return d->rep_pfx ? d->rep_pfx : d->p66 ? 0x66 : 0;
}

static u16 refine_0f(const struct dec *d, u8 op, u8 modrm, u16 f)
{
	if (op == 0x78) {
		u8 mp = mandatory_prefix(d);

		/* 66: extrq xmm, imm8, imm8; F2: insertq (AMD SSE4a). */
		if (mp == 0x66 || mp == 0xf2)
			return f | I_BB;
		return mp ? F_INV : f;	/* vmread */
	}
	/*
	 * 0F 01, group 7.  enclu enters or leaves an enclave; xend may abort
	 * the transaction to xbegin's fallback; uiret returns from a user
	 * interrupt handler like iret.
	 */
	if ((modrm == 0xd7 || modrm == 0xd5) && !d->rep_pfx)
		return f | KIND(OTHER);
	if (modrm == 0xec && mandatory_prefix(d) == 0xf3)
		return f | KIND(FAR);
	return f;
}

/*
 * The common tail: ModRM, SIB, displacement, immediate, and the result.
 * @f is the opcode's table entry; @map and @op name it for refine_*().
 */
static int finish(struct dec *d, unsigned int map, u8 op, u16 f)
{
	unsigned int at, n;
	u8 modrm = 0;
	int err;

	if ((f & F_INV) || ((f & F_INV64) && d->mode64))
		return -EINVAL;
	if (f & F_MODRM) {
		err = fetch(d, &modrm);
		if (err)
			return err;
		if (f & F_GRP)
			f = map == MAP_1BYTE ? refine_1byte(op, modrm, f) :
					       refine_0f(d, op, modrm, f);
		if (f & F_INV)
			return -EINVAL;
		if (!(f & F_MREG)) {
			err = skip_mem(d, modrm);
			if (err)
				return err;
		}
	}
	at = d->pos;
	n = imm_size(d, f);
	err = skip(d, n);
	if (err)
		return err;
	d->kind = (u8)(f >> F_KIND_SHIFT);
	if (f & F_REL)
		d->rel = sext(d->code + at, n);
	return 0;
}

/*
 * VEX (C4/C5), EVEX (62) and XOP (8F) stand for the prefixes: a 66, F2,
 * F3, LOCK or REX before one is #UD (SDM vol. 2, "The VEX Prefix").
 */
static bool bad_before_vex(const struct dec *d)
{
	return d->p66 || d->rep_pfx || d->lock || d->rex;
}

/*
 * The flags of an opcode in the maps that the 0F38 and 0F3A escapes, VEX,
 * EVEX and XOP reach: every opcode has a ModRM byte, and the immediate
 * depends on the map alone, but for a few VEX/EVEX 0F opcodes (SDM vol. 2,
 * tables; APM vol. 3, appendix A).
 */
static u16 map_flags(unsigned int map, u8 op)
{
	switch (map) {
	case MAP_0F:
		if (op == 0x77)		/* vzeroupper/vzeroall: no ModRM */
			return 0;
		if ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
		    (op >= 0xc4 && op <= 0xc6))
			return F_MODRM | I_B;
		return F_MODRM;
	case MAP_0F38:
	case MAP_EVEX5:
	case MAP_EVEX6:
	case MAP_XOP9:
		return F_MODRM;
	case MAP_0F3A:
	case MAP_XOP8:		/* an imm8, or the is4 register */
		return F_MODRM | I_B;
	case MAP_XOPA:		/* bextr, lwpins, lwpval */
		return F_MODRM | I_D;
	}
	return F_INV;
}

/* Fetches @n bytes: the payload of a VEX/EVEX/XOP prefix and the opcode. */
static int fetch_n(struct dec *d, u8 *b, unsigned int n)
{
	int err = need(d, n);
	unsigned int i;

	if (err)
		return err;
	for (i = 0; i < n; i++)
		b[i] = d->code[d->pos++];
	return 0;
}

/*
 * C5 [R vvvv L pp] or C4 [RXB mmmmm] [W vvvv L pp], then the opcode.
 * VEX.mmmmm reaches 0F, 0F38 and 0F3A only; the rest is reserved, #UD.
 */
static int vex(struct dec *d, u8 esc)
{
	unsigned int map = MAP_0F;
	u8 b[3];
	int err;

	if (bad_before_vex(d))
		return -EINVAL;
	/* C5's one byte is C4's second, with the map implied: 0F. */
	if (esc == 0xc5)
		err = fetch_n(d, b + 1, 2);
	else
		err = fetch_n(d, b, 3);
	if (err)
		return err;
	if (esc == 0xc4)
		map = b[0] & 0x1f;
	if (map < MAP_0F || map > MAP_0F3A)
		return -EINVAL;
	return finish(d, map, b[2], map_flags(map, b[2]));
}

/*
 * 62 [RXBR' 0 mmm] [W vvvv 1 pp] [z L'L b V' aaa], then the opcode.  P0
 * bit 3 is 0 and P1 bit 2 is 1, or #UD (SDM vol. 2, "EVEX Encoding"); a
 * clear P1 bit 2 is Xeon Phi's MVEX, which no other CPU has.  Disp8*N
 * scales a disp8 but does not change its size.
 */
static int evex(struct dec *d)
{
	unsigned int map;
	u8 b[4];
	int err;

	if (bad_before_vex(d))
		return -EINVAL;
	err = fetch_n(d, b, 4);
	if (err)
		return err;
	if ((b[0] & 0x08) || !(b[1] & 0x04))
		return -EINVAL;
	map = b[0] & 0x07;
	if (map != MAP_0F && map != MAP_0F38 && map != MAP_0F3A &&
	    map != MAP_EVEX5 && map != MAP_EVEX6)
		return -EINVAL;
	return finish(d, map, b[3], map_flags(map, b[3]));
}

/* 8F [RXB mmmmm] [W vvvv L pp], then the opcode (AMD APM vol. 3, "XOP"). */
static int xop(struct dec *d)
{
	unsigned int map;
	u8 b[3];
	int err;

	if (bad_before_vex(d))
		return -EINVAL;
	err = fetch_n(d, b, 3);
	if (err)
		return err;
	map = b[0] & 0x1f;
	if (map < MAP_XOP8 || map > MAP_XOPA)
		return -EINVAL;
	return finish(d, map, b[2], map_flags(map, b[2]));
}

/*
 * Do 62, C4, C5 or 8F start an EVEX, VEX or XOP prefix?  In 32-bit mode
 * the first three are bound, les and lds unless the next byte has
 * ModRM.mod == 11b, which those memory-only instructions cannot have (the
 * inverted R and X bits of VEX/EVEX are 1 there, as 32-bit code has no
 * REX to invert); in 64-bit mode they are always prefixes.  XOP's map
 * field is 8 or more where pop Ev's ModRM.reg is 0 (AMD APM vol. 3).
 */
static int is_escape(const struct dec *d, u8 op, bool *yes)
{
	u8 next;
	int err;

	*yes = false;
	if (op != 0x62 && op != 0xc4 && op != 0xc5 && op != 0x8f)
		return 0;
	err = peek(d, &next);
	if (err)
		return err;
	if (op == 0x8f)
		*yes = (next & 0x1f) >= MAP_XOP8;
	else
		*yes = d->mode64 || (next >> 6) == 3;
	return 0;
}

static int map_0f(struct dec *d)
{
	unsigned int map;
	u8 op;
	int err = fetch(d, &op);

	if (err)
		return err;
	if (op != 0x38 && op != 0x3a)
		return finish(d, MAP_0F, op, map0f[op]);
	map = op == 0x38 ? MAP_0F38 : MAP_0F3A;
	err = fetch(d, &op);
	return err ? err : finish(d, map, op, map_flags(map, op));
}

static int one_byte(struct dec *d, u8 op)
{
	bool esc;
	int err;

	if (op == 0x0f)
		return map_0f(d);
	err = is_escape(d, op, &esc);
	if (err)
		return err;
	if (esc)
		return op == 0x62 ? evex(d) : op == 0x8f ? xop(d) : vex(d, op);
	/* REPNE repeats movs/stos/lods/ins/outs like REP (SDM, "REP"). */
	d->rep = (map1[op] & F_STR) && d->rep_pfx;
	return finish(d, MAP_1BYTE, op, map1[op]);
}

/*
 * Legacy prefixes in any order and number (SDM vol. 2, 2.1.1), then in
 * 64-bit mode a REX, which counts only right before the opcode (2.2.1).
 * Leaves the first byte that is neither in @op, consumed.
 */
static int prefixes(struct dec *d, u8 *op)
{
	for (;;) {
		int err = fetch(d, op);

		if (err)
			return err;
		switch (*op) {
		case 0x66:
			d->p66 = true;
			break;
		case 0x67:
			d->p67 = true;
			break;
		case 0xf0:
			d->lock = true;
			break;
		case 0xf2:
		case 0xf3:
			d->rep_pfx = *op;
			break;
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
			break;
		default:
			if (!d->mode64 || (*op & 0xf0) != 0x40)
				return 0;
			d->rex = *op;
			continue;
		}
		d->rex = 0;	/* a REX followed by a prefix is void */
	}
}

int ptbts_branch_classify(const u8 *code, unsigned int avail, bool mode64,
			  struct ptbts_insn *out)
{
	struct dec d = { .code = code, .avail = avail, .mode64 = mode64 };
	u8 op;
	int err;

	err = prefixes(&d, &op);
	if (!err)
		err = one_byte(&d, op);
	if (err)
		return err;
	out->len = (u8)d.pos;		/* at most 15 */
	out->kind = d.kind;
	out->rep = d.rep;
	out->rel = d.rel;
	return 0;
}
