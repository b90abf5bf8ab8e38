// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386 branches for branch stops (libbts/decode/insn.c decoding them in
 * 32-bit mode, libbts/sources/ptrace-step/step_emulate.c carrying them out): which forms the
 * tracer may carry out, where their targets come from, and what the
 * register-only ones leave in the registers (4-byte words, %ecx counts,
 * wrapping at 4 GiB).  A form that is not emulable is single-stepped.
 */
#include <string.h>
#include <unistd.h>

#include "sources/ptrace-step/step.h"
#include "harness.h"

static struct bts_branch decode32(const uint8_t *b, size_t n, uint64_t pc)
{
	struct bts_branch br;

	ASSERT_EQ(bts_branch_decode_mode(true, b, n, pc, &br), 0);
	EXPECT_TRUE(br.mode32);
	EXPECT_EQ(br.len, (uint8_t)n);
	return br;
}

TEST(branch32, emulable_forms_and_their_operands)
{
	static const uint8_t loop[] = { 0xe2, 0xfe };		/* loop . */
	static const uint8_t ret4[] = { 0xc2, 0x04, 0x00 };	/* ret $4 */
	static const uint8_t call_gs[] = { 0x65, 0xff, 0x15, 0x10, 0, 0, 0 };
	static const uint8_t call_edi[] = { 0xff, 0xd7 };
	/* jmp *0x804a000(,%edx,4) */
	static const uint8_t jmp_tab[] = { 0xff, 0x24, 0x95, 0x00, 0xa0, 0x04, 0x08 };
	struct bts_branch br;

	br = decode32(loop, sizeof(loop), 0x8049000);
	EXPECT_TRUE(br.emulable);
	EXPECT_EQ(br.kind, BTS_INSN_COND);
	EXPECT_EQ(br.cond, BTS_COND_LOOP);
	EXPECT_EQ(br.target, (uint64_t)0x8049000);
	br = decode32(ret4, sizeof(ret4), 0x8049000);
	EXPECT_TRUE(br.emulable);
	EXPECT_EQ(br.kind, BTS_INSN_RET);
	EXPECT_EQ(br.imm, 4);
	br = decode32(call_gs, sizeof(call_gs), 0x8049000);
	EXPECT_TRUE(br.emulable);
	EXPECT_EQ(br.kind, BTS_INSN_CALL_IND);
	EXPECT_EQ(br.opnd, BTS_OPND_MEM);
	EXPECT_EQ(br.seg, 2);
	EXPECT_EQ(br.base, BTS_REG_NONE);
	EXPECT_EQ(br.disp, 0x10);
	br = decode32(call_edi, sizeof(call_edi), 0x8049000);
	EXPECT_TRUE(br.emulable);
	EXPECT_EQ(br.opnd, BTS_OPND_REG);
	EXPECT_EQ(br.base, 7);
	br = decode32(jmp_tab, sizeof(jmp_tab), 0x8049000);
	EXPECT_TRUE(br.emulable);
	EXPECT_EQ(br.kind, BTS_INSN_JUMP_IND);
	EXPECT_EQ(br.index, 2);
	EXPECT_EQ(br.scale, 4);
	EXPECT_EQ(br.disp, 0x804a000);
}

/* 16-bit operands or addresses: left to the CPU. */
TEST(branch32, sixteen_bit_forms_are_stepped)
{
	static const uint8_t jcxz[] = { 0x67, 0xe3, 0x01 };	/* %cx, not %ecx */
	static const uint8_t retw[] = { 0x66, 0xc3 };
	static const uint8_t loopw[] = { 0x67, 0xe2, 0xfd };
	static const uint8_t call_w[] = { 0x66, 0xe8, 0x10, 0x00 };

	EXPECT_FALSE(decode32(jcxz, sizeof(jcxz), 0x8049000).emulable);
	EXPECT_FALSE(decode32(retw, sizeof(retw), 0x8049000).emulable);
	EXPECT_FALSE(decode32(loopw, sizeof(loopw), 0x8049000).emulable);
	EXPECT_FALSE(decode32(call_w, sizeof(call_w), 0x8049000).emulable);
}

/* The same bytes in long mode: a 64-bit loop, as before. */
TEST(branch32, long_mode_is_unchanged)
{
	static const uint8_t loop[] = { 0xe2, 0xfe };
	static const uint8_t loop67[] = { 0x67, 0xe2, 0xfd };
	struct bts_branch br;

	ASSERT_EQ(bts_branch_decode(loop, sizeof(loop), 0x401000, &br), 0);
	EXPECT_FALSE(br.mode32);
	EXPECT_TRUE(br.emulable);
	ASSERT_EQ(bts_branch_decode(loop67, sizeof(loop67), 0x401000, &br), 0);
	EXPECT_FALSE(br.emulable);
}

/* A call near the top of the 4 GiB: its target wraps, as the CPU's does. */
TEST(branch32, direct_targets_wrap_at_4gib)
{
	static const uint8_t call[] = { 0xe8, 0x20, 0x00, 0x00, 0x00 };
	struct bts_branch br = decode32(call, sizeof(call), 0xfffffff0);

	EXPECT_TRUE(br.emulable);
	EXPECT_EQ(br.target, (uint64_t)0x15);
}

static struct user_regs_struct regs32(void)
{
	struct user_regs_struct r;

	memset(&r, 0, sizeof(r));
	r.cs = 0x23;	/* the flat 32-bit user code segment */
	r.eflags = 0x202;
	return r;
}

/* Register-only branches: no memory of the tracee is touched. */
TEST(branch32, loop_counts_ecx_and_wraps)
{
	static const uint8_t loop[] = { 0xe2, 0xfe };
	static const uint8_t jecxz[] = { 0xe3, 0x10 };
	struct bts_branch br = decode32(loop, sizeof(loop), 0x8049000);
	struct user_regs_struct r = regs32();
	bool taken;

	r.rcx = 1;
	ASSERT_EQ(bts_branch_emulate(getpid(), 0x8049000, &br, &r, &taken), 0);
	EXPECT_FALSE(taken);
	EXPECT_EQ(r.rcx, 0u);
	EXPECT_EQ(r.rip, 0x8049002u);
	/* 0 - 1 is 0xffffffff in %ecx, nothing above it */
	ASSERT_EQ(bts_branch_emulate(getpid(), 0x8049000, &br, &r, &taken), 0);
	EXPECT_TRUE(taken);
	EXPECT_EQ(r.rcx, 0xffffffffu);
	EXPECT_EQ(r.rip, 0x8049000u);
	/* jecxz sees %ecx only */
	br = decode32(jecxz, sizeof(jecxz), 0x8049000);
	r.rcx = 0x100000000ull;
	ASSERT_EQ(bts_branch_emulate(getpid(), 0x8049000, &br, &r, &taken), 0);
	EXPECT_TRUE(taken);
	EXPECT_EQ(r.rip, 0x8049012u);
}

/* Outside the flat 32-bit segment, or with a null %gs: the CPU's to run. */
TEST(branch32, other_segments_are_refused)
{
	static const uint8_t call_edi[] = { 0xff, 0xd7 };
	static const uint8_t call_gs[] = { 0x65, 0xff, 0x15, 0x10, 0, 0, 0 };
	struct bts_branch br = decode32(call_edi, sizeof(call_edi), 0x8049000);
	struct user_regs_struct r = regs32();
	bool taken;

	r.cs = 0x33;
	EXPECT_EQ(bts_branch_emulate(getpid(), 0x8049000, &br, &r, &taken), -1);
	br = decode32(call_gs, sizeof(call_gs), 0x8049000);
	r = regs32();
	r.gs = 0;
	r.gs_base = 0x1000;
	EXPECT_EQ(bts_branch_emulate(getpid(), 0x8049000, &br, &r, &taken), -1);
	EXPECT_EQ(r.rip, 0u);
}
