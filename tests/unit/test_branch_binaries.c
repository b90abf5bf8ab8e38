// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The classifier of arch/x86/branch against Zydis: the same length, kind,
 * displacement and rep flag on every instruction of the executable
 * sections of system binaries (64- and 32-bit), and on random bytes.
 *
 * Where the two are allowed to differ, on purpose (documented in
 * branch.c):
 *  - Zydis decodes Xeon Phi (KNC) encodings, MVEX and VEX Jcc, even with
 *    its KNC mode off; no CPU that runs this kernel has them, and the
 *    classifier rejects MVEX: such instructions are left out.
 *  - The classifier accepts some encodings Zydis rejects (undefined 0F38
 *    opcodes, LOCK where it #UDs): only what Zydis decodes is compared.
 */
#include <stdio.h>

#include "branch/branch.h"
#include "branch_corpus.h"
#include "harness.h"

/* Zydis's view of an instruction in the classifier's terms. */
static int zydis_kind(const ZydisDecodedInstruction *z)
{
	bool far = z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
	bool rel = z->raw.imm[0].is_relative;

	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		return far ? PTBTS_BR_FAR : rel ? PTBTS_BR_JMP : PTBTS_BR_JMP_IND;
	case ZYDIS_MNEMONIC_CALL:
		return far ? PTBTS_BR_FAR : rel ? PTBTS_BR_CALL : PTBTS_BR_CALL_IND;
	case ZYDIS_MNEMONIC_RET:
		return far ? PTBTS_BR_FAR : PTBTS_BR_RET;
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_RSM:
	case ZYDIS_MNEMONIC_UIRET:
		return PTBTS_BR_FAR;
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
		return PTBTS_BR_LOOP;
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return PTBTS_BR_SYSCALL;
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_XBEGIN:	/* Zydis: COND_BR */
	case ZYDIS_MNEMONIC_XEND:	/* Zydis: COND_BR */
	case ZYDIS_MNEMONIC_XABORT:
	case ZYDIS_MNEMONIC_ENCLU:
		return PTBTS_BR_OTHER;
	default:
		break;
	}
	if (z->meta.category == ZYDIS_CATEGORY_COND_BR)
		return PTBTS_BR_JCC;
	return PTBTS_BR_NONE;
}

static bool zydis_rep(const ZydisDecodedInstruction *z)
{
	const ZyanU64 rep = ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			    ZYDIS_ATTRIB_HAS_REPNE;

	return (z->attributes & rep) &&
	       (z->meta.category == ZYDIS_CATEGORY_STRINGOP ||
		z->meta.category == ZYDIS_CATEGORY_IOSTRINGOP);
}

struct tally {
	const char *what;
	unsigned long compared;
	unsigned long mismatched;
};

static void report(struct tally *t, const unsigned char *p, unsigned int n,
		   unsigned long off, const char *zmn, const char *msg)
{
	char hex[3 * 16 + 1];

	if (++t->mismatched > 10)
		return;
	branch_hex(hex, p, n);
	harness_fail(__FILE__, __LINE__, "%s +0x%lx %s:%s: %s", t->what, off,
		     zmn, hex, msg);
}

/*
 * Compares one instruction at @p (@n bytes left).  Returns Zydis's length,
 * or 0 where Zydis decodes nothing (then nothing is compared).
 */
static unsigned int compare_one(const ZydisDecoder *zd, const unsigned char *p,
				size_t n, bool m64, unsigned long off,
				void *tally)
{
	struct tally *t = tally;
	ZydisDecodedInstruction z;
	struct ptbts_insn in;
	int kind, rel, ret;
	char msg[160];

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(zd, NULL, p, n, &z)))
		return 0;
	if (branch_zydis_knc(&z))
		return z.length;
	t->compared++;
	kind = zydis_kind(&z);
	rel = kind >= PTBTS_BR_JCC && kind <= PTBTS_BR_CALL ?
	      (int)z.raw.imm[0].value.s : 0;
	memset(&in, 0, sizeof(in));
	ret = ptbts_branch_classify(p, n < 15 ? n : 15, m64, &in);
	if (ret || in.len != z.length || in.kind != kind || in.rel != rel ||
	    in.rep != zydis_rep(&z)) {
		snprintf(msg, sizeof(msg),
			 "ret %d len %u kind %u rel %d rep %u; Zydis: len %u kind %d rel %d rep %d",
			 ret, in.len, in.kind, in.rel, in.rep, z.length, kind,
			 rel, zydis_rep(&z));
		report(t, p, z.length, off, ZydisMnemonicGetString(z.mnemonic), msg);
	}
	return z.length;
}

static void sweep_elf(const char *path)
{
	struct tally t = { path, 0, 0 };
	const char *err;
	bool m64;

	err = branch_elf_sweep(path, &m64, compare_one, &t);
	if (err)
		FAIL("%s", err);
	printf("[ branch ] %s (%s): %lu instructions compared, %lu mismatches\n",
	       path, m64 ? "64-bit" : "32-bit", t.compared, t.mismatched);
	EXPECT_GT(t.compared, 5000UL);
	EXPECT_EQ(t.mismatched, 0UL);
}

TEST(branch_zydis, ls)
{
	sweep_elf("/usr/bin/ls");
}

TEST(branch_zydis, libc)
{
	sweep_elf("/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(branch_zydis, ld_so)
{
	sweep_elf("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
}

TEST(branch_zydis, libstdcxx)
{
	sweep_elf("/lib/x86_64-linux-gnu/libstdc++.so.6");
}

/* gcc-multilib (scripts/deps test) brings the i386 libc. */
TEST(branch_zydis, libc_32bit)
{
	sweep_elf("/usr/lib32/libc.so.6");
}

TEST(branch_zydis, ld_so_32bit)
{
	sweep_elf("/usr/lib32/ld-linux.so.2");
}

static void random_mode(bool m64)
{
	struct tally t = { m64 ? "random 64-bit" : "random 32-bit", 0, 0 };
	uint32_t seed = 0x9e3779b9;
	unsigned char b[16];
	ZydisDecoder zd;
	unsigned long i;

	ASSERT_TRUE(branch_zydis_init(&zd, m64));
	for (i = 0; i < 1000000; i++) {
		branch_random_insn(b, &seed);
		compare_one(&zd, b, sizeof(b), m64, i, &t);
	}
	printf("[ branch ] %s: %lu instructions compared, %lu mismatches\n",
	       t.what, t.compared, t.mismatched);
	EXPECT_GT(t.compared, 100000UL);
	EXPECT_EQ(t.mismatched, 0UL);
}

TEST(branch_zydis, random_64bit)
{
	random_mode(true);
}

TEST(branch_zydis, random_32bit)
{
	random_mode(false);
}
