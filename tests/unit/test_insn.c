// SPDX-License-Identifier: GPL-2.0-or-later
/* The control-transfer classifier and its cache. */
#include "decode/insn.h"
#include "harness.h"

struct pattern {
	const char *what;
	unsigned char bytes[16];
	size_t n;
	int kind;
	unsigned int len;
	int flags;
};

static const struct pattern patterns[] = {
	{ "je short", { 0x74, 0x05 }, 2, BTS_INSN_COND, 2, 0 },
	{ "jne near", { 0x0f, 0x85, 0x10, 0, 0, 0 }, 6, BTS_INSN_COND, 6, 0 },
	{ "jmp short", { 0xeb, 0xfe }, 2, BTS_INSN_JUMP, 2, 0 },
	{ "jmp near", { 0xe9, 1, 2, 3, 4 }, 5, BTS_INSN_JUMP, 5, 0 },
	{ "call rel32", { 0xe8, 0, 0, 0, 0 }, 5, BTS_INSN_CALL, 5, 0 },
	{ "call [rip+0x10]", { 0xff, 0x15, 0x10, 0, 0, 0 }, 6, BTS_INSN_CALL_IND, 6, 0 },
	{ "call rax", { 0xff, 0xd0 }, 2, BTS_INSN_CALL_IND, 2, 0 },
	{ "call r11", { 0x41, 0xff, 0xd3 }, 3, BTS_INSN_CALL_IND, 3, 0 },
	{ "jmp [rax*8+0x401000]", { 0xff, 0x24, 0xc5, 0x00, 0x10, 0x40, 0x00 }, 7,
	  BTS_INSN_JUMP_IND, 7, 0 },
	{ "jmp [rbx+rax*8]", { 0xff, 0x24, 0xc3 }, 3, BTS_INSN_JUMP_IND, 3, 0 },
	{ "jmp [rip+0x2fe2] (plt)", { 0xff, 0x25, 0xe2, 0x2f, 0, 0 }, 6,
	  BTS_INSN_JUMP_IND, 6, 0 },
	{ "bnd jmp [rip+x]", { 0xf2, 0xff, 0x25, 0xe2, 0x2f, 0, 0 }, 7,
	  BTS_INSN_JUMP_IND, 7, 0 },
	{ "ret", { 0xc3 }, 1, BTS_INSN_RET, 1, 0 },
	{ "ret 8", { 0xc2, 0x08, 0x00 }, 3, BTS_INSN_RET, 3, 0 },
	{ "rep ret", { 0xf3, 0xc3 }, 2, BTS_INSN_RET, 2, 0 },
	{ "loop", { 0xe2, 0xfe }, 2, BTS_INSN_COND, 2, 0 },
	{ "loopne", { 0xe0, 0xfe }, 2, BTS_INSN_COND, 2, 0 },
	{ "jrcxz", { 0xe3, 0xfe }, 2, BTS_INSN_COND, 2, 0 },
	{ "jecxz", { 0x67, 0xe3, 0xfe }, 3, BTS_INSN_COND, 3, 0 },
	{ "syscall", { 0x0f, 0x05 }, 2, BTS_INSN_SYSCALL, 2, 0 },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, BTS_INSN_OTHER, 2, BTS_INSN_F_REP },
	{ "repne scasb", { 0xf2, 0xae }, 2, BTS_INSN_OTHER, 2, BTS_INSN_F_REP },
	{ "movsb", { 0xa4 }, 1, BTS_INSN_OTHER, 1, 0 },
	{ "nop", { 0x90 }, 1, BTS_INSN_OTHER, 1, 0 },
	{ "nopw 0(rax,rax)", { 0x66, 0x0f, 0x1f, 0x44, 0, 0 }, 6, BTS_INSN_OTHER, 6, 0 },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, BTS_INSN_OTHER, 4, 0 },
	{ "mov rax, imm64", { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10,
	  BTS_INSN_OTHER, 10, 0 },
	{ "int3", { 0xcc }, 1, BTS_INSN_INT, 1, 0 },
	{ "int 0x80", { 0xcd, 0x80 }, 2, BTS_INSN_INT, 2, 0 },
	{ "ud2", { 0x0f, 0x0b }, 2, BTS_INSN_OTHER, 2, 0 },
	{ "lret", { 0xcb }, 1, BTS_INSN_FAR, 1, 0 },
	{ "iretq", { 0x48, 0xcf }, 2, BTS_INSN_FAR, 2, 0 },
	{ "xbegin", { 0xc7, 0xf8, 0, 0, 0, 0 }, 6, BTS_INSN_COND, 6, 0 },
};

TEST(insn, classifies_patterns)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(patterns); i++) {
		const struct pattern *p = &patterns[i];
		struct bts_insn insn;
		unsigned char buf[32];

		/* trailing bytes must not change the answer */
		memset(buf, 0x90, sizeof(buf));
		memcpy(buf, p->bytes, p->n);
		if (bts_insn_classify(buf, sizeof(buf), &insn))
			FAIL("%s: does not decode", p->what);
		if (insn.kind != p->kind || insn.len != p->len ||
		    insn.flags != p->flags)
			harness_fail(__FILE__, __LINE__,
				     "%s: kind %s len %u flags %u, expected %s %u %u",
				     p->what, bts_insn_kind_name(insn.kind), insn.len,
				     insn.flags, bts_insn_kind_name(p->kind), p->len,
				     p->flags);
		/* exactly its own bytes are enough */
		EXPECT_EQ(bts_insn_classify(p->bytes, p->n, &insn), 0);
	}
}

TEST(insn, truncated_and_invalid)
{
	static const unsigned char call_cut[] = { 0xe8, 0, 0 };
	static const unsigned char push_es[] = { 0x06 };
	struct bts_insn insn;

	EXPECT_EQ(bts_insn_classify(call_cut, sizeof(call_cut), &insn),
		  -BTS_E_TRUNCATED);
	EXPECT_EQ(bts_insn_classify(push_es, sizeof(push_es), &insn),
		  -BTS_E_DECODE);
	EXPECT_EQ(bts_insn_classify(push_es, 0, &insn), -BTS_E_TRUNCATED);
}

TEST(insn, taken)
{
	struct bts_insn jcc = { 2, BTS_INSN_COND, 0 };
	struct bts_insn jmp = { 2, BTS_INSN_JUMP, 0 };
	struct bts_insn ret = { 1, BTS_INSN_RET, 0 };
	struct bts_insn call = { 5, BTS_INSN_CALL, 0 };
	struct bts_insn sys = { 2, BTS_INSN_SYSCALL, 0 };
	struct bts_insn rep = { 2, BTS_INSN_OTHER, BTS_INSN_F_REP };
	struct bts_insn nop = { 1, BTS_INSN_OTHER, 0 };

	EXPECT_FALSE(bts_insn_taken(&jcc, 0x1000, 0x1002));
	EXPECT_TRUE(bts_insn_taken(&jcc, 0x1000, 0x1040));
	EXPECT_TRUE(bts_insn_taken(&jcc, 0x1000, 0x1000));	/* jcc to itself */
	/* unconditional: always, even to the next instruction */
	EXPECT_TRUE(bts_insn_taken(&jmp, 0x1000, 0x1002));
	EXPECT_TRUE(bts_insn_taken(&call, 0x1000, 0x1005));
	EXPECT_TRUE(bts_insn_taken(&ret, 0x1000, 0x2000));
	EXPECT_FALSE(bts_insn_taken(&sys, 0x1000, 0x1002));
	EXPECT_FALSE(bts_insn_taken(&rep, 0x1000, 0x1000));
	EXPECT_FALSE(bts_insn_taken(&nop, 0x1000, 0x1001));
}

TEST(insn, cache_put_get_flush)
{
	struct bts_insn_cache *c = bts_insn_cache_new();
	struct bts_insn a = { 5, BTS_INSN_CALL, 0 };
	const struct bts_insn *got;
	uint64_t addr;

	ASSERT_TRUE(c != NULL);
	EXPECT_TRUE(bts_insn_cache_get(c, 0x401000) == NULL);
	EXPECT_EQ(bts_insn_cache_put(c, 0, &a), -BTS_E_INVAL);
	/* many more than the initial size: the table grows */
	for (addr = 0x400000; addr < 0x400000 + 20000 * 3; addr += 3) {
		a.len = (uint8_t)(addr % 15 + 1);
		ASSERT_EQ(bts_insn_cache_put(c, addr, &a), 0);
	}
	for (addr = 0x400000; addr < 0x400000 + 20000 * 3; addr += 3) {
		got = bts_insn_cache_get(c, addr);
		ASSERT_TRUE(got != NULL);
		ASSERT_EQ(got->len, addr % 15 + 1);
		EXPECT_TRUE(bts_insn_cache_get(c, addr + 1) == NULL);
	}
	bts_insn_cache_flush(c);
	EXPECT_TRUE(bts_insn_cache_get(c, 0x400000) == NULL);
	bts_insn_cache_free(c);
}

TEST(insn, cache_fill_walks_whole_instructions)
{
	/* push rbp; mov rbp,rsp; call rel32; leave; ret; then a cut call */
	static const unsigned char code[] = {
		0x55, 0x48, 0x89, 0xe5, 0xe8, 1, 2, 3, 4, 0xc9, 0xc3, 0xe8, 0,
	};
	struct bts_insn_cache *c = bts_insn_cache_new();
	const struct bts_insn *i;

	ASSERT_TRUE(c != NULL);
	EXPECT_EQ(bts_insn_cache_fill(c, 0x1000, code, sizeof(code)), 5);
	i = bts_insn_cache_get(c, 0x1004);
	ASSERT_TRUE(i != NULL);
	EXPECT_EQ(i->kind, BTS_INSN_CALL);
	EXPECT_EQ(i->len, 5);
	i = bts_insn_cache_get(c, 0x100a);
	ASSERT_TRUE(i != NULL);
	EXPECT_EQ(i->kind, BTS_INSN_RET);
	/* the cut one is not cached as anything */
	EXPECT_TRUE(bts_insn_cache_get(c, 0x100b) == NULL);
	EXPECT_TRUE(bts_insn_cache_get(c, 0x1001) != NULL);
	EXPECT_TRUE(bts_insn_cache_get(c, 0x1002) == NULL);
	bts_insn_cache_free(c);
}
