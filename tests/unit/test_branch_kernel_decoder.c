// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The classifier of arch/x86/branch against the Linux 6.1 kernel's own
 * instruction decoder, insn_decode(), built in user space from Debian's
 * linux-source-6.1 (tests/kinsn/, scripts/kernel-insn).  The module
 * cannot call insn_decode() (6.1 does not export it), so it carries the
 * classifier it shares with libbts; this test holds the classifier to the
 * kernel's decoder on every instruction of system binaries' executable
 * sections and on a pseudo-random byte corpus: the same length and the
 * same control-transfer kind wherever both decode the bytes, and the same
 * displacement for relative branches.
 *
 * insn_decode() returns 0 for bytes that are no instruction (an opcode
 * its map lacks, a group member the CPU does not define), with a length
 * that means nothing; it serves code a compiler wrote.  So only what Zydis
 * decodes too, and not as Xeon Phi's (KNC) encodings, is compared (the
 * rest is counted as "undefined"), and the forms where the kernel decoder
 * itself is wrong by the SDM are counted, not compared: kernel_knows()
 * and kernel_misses_part() list them.
 */
#include <stdio.h>

#include "branch/branch.h"
#include "branch_corpus.h"
#include "harness.h"
#include "kernel_insn.h"

/* The kind of a one-byte-map opcode; @k the decoded instruction. */
static int kind_1byte(const struct kernel_insn *k, bool m64)
{
	unsigned int op = k->op[0], reg = (k->modrm >> 3) & 7;

	if (op >= 0x70 && op <= 0x7f)
		return PTBTS_BR_JCC;
	switch (op) {
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:	/* loop*, jcxz */
		return PTBTS_BR_LOOP;
	case 0xe8:
		return PTBTS_BR_CALL;
	case 0xe9: case 0xeb:
		return PTBTS_BR_JMP;
	case 0xc2: case 0xc3:
		return PTBTS_BR_RET;
	case 0x9a: case 0xea:				/* far call/jmp ptr */
	case 0xca: case 0xcb: case 0xcf:		/* retf, iret */
		return PTBTS_BR_FAR;
	case 0xcc: case 0xcd: case 0xf1:		/* int3, int, int1 */
		return PTBTS_BR_SYSCALL;
	case 0xce:					/* into */
		return m64 ? -1 : PTBTS_BR_SYSCALL;
	case 0xc6: case 0xc7:				/* xabort, xbegin */
		return k->modrm == 0xf8 ? PTBTS_BR_OTHER : PTBTS_BR_NONE;
	case 0xff:
		if (reg == 2)
			return PTBTS_BR_CALL_IND;
		if (reg == 4)
			return PTBTS_BR_JMP_IND;
		if (reg == 3 || reg == 5)
			return PTBTS_BR_FAR;
		return PTBTS_BR_NONE;
	}
	return PTBTS_BR_NONE;
}

/* The kind of a 0F-map opcode. */
static int kind_0f(const struct kernel_insn *k)
{
	unsigned int op = k->op[1];

	if (op >= 0x80 && op <= 0x8f)
		return PTBTS_BR_JCC;
	switch (op) {
	case 0x05: case 0x34:				/* syscall, sysenter */
		return PTBTS_BR_SYSCALL;
	case 0x07: case 0x35: case 0xaa:		/* sysret, sysexit, rsm */
		return PTBTS_BR_FAR;
	case 0x0b: case 0xb9: case 0xff:		/* ud2, ud1, ud0 */
		return PTBTS_BR_OTHER;
	case 0x01:
		if (k->modrm == 0xec && k->f3)		/* uiret */
			return PTBTS_BR_FAR;
		if ((k->modrm == 0xd5 || k->modrm == 0xd7) && !k->f3)
			return PTBTS_BR_OTHER;		/* xend, enclu */
		return PTBTS_BR_NONE;
	}
	return PTBTS_BR_NONE;
}

/*
 * The kernel decoder's opcode bytes in the classifier's kinds; -1 where
 * the opcode's kind depends on what the kernel decoder does not say.
 */
static int kernel_kind(const struct kernel_insn *k, bool m64)
{
	if (k->vex)
		return PTBTS_BR_NONE;
	if (k->nop == 1)
		return kind_1byte(k, m64);
	if (k->nop == 2)
		return kind_0f(k);
	return PTBTS_BR_NONE;
}

static bool is_prefix(unsigned int b, bool m64)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	}
	return m64 && (b & 0xf0) == 0x40;
}

/*
 * Forms insn_decode() takes apart otherwise than the CPU (the classifier
 * follows the SDM):
 *  - MOV to or from a control or debug register (0F 20..23) with ModRM.mod
 *    other than 3: the kernel decoder reads a memory operand, where the
 *    CPU ignores the mod bits and takes a register (SDM vol. 2B, "MOV--Move
 *    to/from Control Registers", "MOV--Move to/from Debug Registers");
 *  - a REX prefix followed by another prefix: the kernel decoder takes the
 *    second prefix for the opcode (a 2-byte instruction), where the CPU
 *    ignores the misplaced REX and goes on with the prefixes (SDM vol. 2A,
 *    2.2.1: a REX prefix not immediately before the opcode is ignored).
 */
static bool kernel_knows(const struct kernel_insn *k, bool m64)
{
	if (!k->vex && k->nop == 2 && k->op[1] >= 0x20 && k->op[1] <= 0x23 &&
	    (k->modrm >> 6) != 3)
		return false;
	return k->vex || k->nop != 1 || !is_prefix(k->op[0], m64);
}

/*
 * Where the kernel decoder's opcode map lacks the ModRM byte or the
 * immediates of an instruction the CPU defines (Zydis decodes it): it
 * looks an 0F opcode up in the table of the last prefix byte, where the
 * CPU's mandatory prefix is the last 66/F2/F3 and other prefixes do not
 * count ("66 2E 0F 73 /7 ib", pslldq); a prefix the opcode ignores sends
 * it to an empty table ("F3 0F 98", sets); the map has no reserved NOPs
 * (0F 1D /r) nor SSE4a's insertq (F2 0F 78 /r ib ib).  Nor has it AMD's
 * XOP (8F with a map field of 8 or more: AMD APM vol. 3, "XOP"), which it
 * takes for pop Ev.  Compilers emit none of these forms for CPUs the
 * kernel decoder serves.
 */
static bool kernel_misses_part(const struct kernel_insn *k,
			       const ZydisDecodedInstruction *z)
{
	unsigned int zimm = (z->raw.imm[0].size + z->raw.imm[1].size) / 8;

	if (z->encoding == ZYDIS_INSTRUCTION_ENCODING_XOP)
		return true;
	if (!k->has_modrm && (z->attributes & ZYDIS_ATTRIB_HAS_MODRM))
		return true;
	return k->imm_bytes < zimm;
}

struct tally {
	const char *what;
	unsigned long compared;
	unsigned long undefined;	/* no instruction at all (Zydis) */
	unsigned long unknown;		/* the kernel decoder is wrong */
	unsigned long mismatched;
};

static void report(struct tally *t, const unsigned char *p, unsigned int n,
		   unsigned long off, const char *msg)
{
	char hex[3 * 16 + 1];

	if (++t->mismatched > 10)
		return;
	branch_hex(hex, p, n);
	harness_fail(__FILE__, __LINE__, "%s +0x%lx:%s: %s", t->what, off, hex,
		     msg);
}

/*
 * Compares one instruction at @p (@n bytes left).  Returns the kernel
 * decoder's length, or 0 where it decodes nothing.
 */
static unsigned int compare_one(const ZydisDecoder *zd, const unsigned char *p,
				size_t n, bool m64, unsigned long off,
				void *tally)
{
	unsigned int avail = n < 15 ? (unsigned int)n : 15;
	struct tally *t = tally;
	ZydisDecodedInstruction z;
	struct kernel_insn k;
	struct ptbts_insn in;
	int kind, rel, ret;
	char msg[160];

	if (kernel_insn_decode(p, avail, m64, &k))
		return 0;
	if (k.emulate)
		return k.len;
	/* Xeon Phi's MVEX: Zydis decodes it, the classifier refuses it. */
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(zd, NULL, p, avail, &z)) ||
	    branch_zydis_knc(&z)) {
		t->undefined++;
		return k.len;
	}
	if (!kernel_knows(&k, m64) || kernel_misses_part(&k, &z)) {
		t->unknown++;
		return k.len;
	}
	memset(&in, 0, sizeof(in));
	ret = ptbts_branch_classify(p, avail, m64, &in);
	t->compared++;
	kind = kernel_kind(&k, m64);
	rel = kind >= PTBTS_BR_JCC && kind <= PTBTS_BR_CALL ? k.imm : 0;
	if (ret || in.len != k.len || (kind >= 0 && in.kind != kind) ||
	    in.rel != rel) {
		snprintf(msg, sizeof(msg),
			 "classifier: ret %d len %u kind %u rel %d; kernel: len %u kind %d rel %d",
			 ret, in.len, in.kind, in.rel, k.len, kind, rel);
		report(t, p, k.len > in.len ? k.len : in.len, off, msg);
	}
	return k.len;
}

static void print_tally(const struct tally *t, const char *mode)
{
	printf("[ branch ] %s (%s): %lu instructions compared with insn_decode(), %lu undefined, %lu where the kernel decoder errs, %lu mismatches\n",
	       t->what, mode, t->compared, t->undefined, t->unknown,
	       t->mismatched);
}

static void sweep_elf(const char *path)
{
	struct tally t = { path, 0, 0, 0, 0 };
	const char *err;
	bool m64;

	err = branch_elf_sweep(path, &m64, compare_one, &t);
	if (err)
		FAIL("%s", err);
	print_tally(&t, m64 ? "64-bit" : "32-bit");
	EXPECT_GT(t.compared, 5000UL);
	EXPECT_EQ(t.mismatched, 0UL);
}

TEST(branch_kernel_decoder, libc)
{
	sweep_elf("/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(branch_kernel_decoder, ld_so)
{
	sweep_elf("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
}

TEST(branch_kernel_decoder, ls)
{
	sweep_elf("/usr/bin/ls");
}

TEST(branch_kernel_decoder, libc_32bit)
{
	sweep_elf("/usr/lib32/libc.so.6");
}

static void random_mode(bool m64)
{
	struct tally t = { "random", 0, 0, 0, 0 };
	uint32_t seed = 0x2545f491;	/* not branch_zydis's: other bytes */
	unsigned char b[16];
	ZydisDecoder zd;
	unsigned long i;

	ASSERT_TRUE(branch_zydis_init(&zd, m64));
	for (i = 0; i < 1000000; i++) {
		branch_random_insn(b, &seed);
		compare_one(&zd, b, sizeof(b), m64, i, &t);
	}
	print_tally(&t, m64 ? "64-bit" : "32-bit");
	EXPECT_GT(t.compared, 100000UL);
	EXPECT_EQ(t.mismatched, 0UL);
}

TEST(branch_kernel_decoder, random_64bit)
{
	random_mode(true);
}

TEST(branch_kernel_decoder, random_32bit)
{
	random_mode(false);
}
