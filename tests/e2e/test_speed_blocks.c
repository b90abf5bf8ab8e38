// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Blocks for branch stops (libbts/decode/insn_block.c): the decoder runs on
 * through direct jumps and calls (their targets are in the code, so the
 * thread needs no stop there), keeps each as a hop to record in order,
 * and stops at the first branch whose outcome is not known statically.
 * Code here is a byte buffer placed at a made-up address.
 */
#include <string.h>

#include "decode/insn.h"
#include "harness.h"

struct code {
	uint64_t base;
	uint8_t bytes[0x200];
};

static ssize_t read_code(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct code *c = arg;

	if (addr < c->base || addr >= c->base + sizeof(c->bytes))
		return -1;
	if (len > c->base + sizeof(c->bytes) - addr)
		len = c->base + sizeof(c->bytes) - addr;
	memcpy(buf, c->bytes + (addr - c->base), len);
	return (ssize_t)len;
}

static void put(struct code *c, uint64_t addr, const uint8_t *b, size_t n)
{
	memcpy(c->bytes + (addr - c->base), b, n);
}

static bool no_follow(void *arg, uint64_t to)
{
	(void)arg;
	(void)to;
	return false;
}

/* nop; call 0x1010 | nop; jmp 0x1020 | syscall; je . */
static void chain_code(struct code *c)
{
	static const uint8_t a[] = { 0x90, 0xe8, 0x0a, 0x00, 0x00, 0x00 };
	static const uint8_t b[] = { 0x90, 0xeb, 0x0d };
	static const uint8_t d[] = { 0x0f, 0x05, 0x74, 0xfe };

	memset(c->bytes, 0xcc, sizeof(c->bytes));
	c->base = 0x1000;
	put(c, 0x1000, a, sizeof(a));
	put(c, 0x1010, b, sizeof(b));
	put(c, 0x1020, d, sizeof(d));
}

TEST(speed_blocks, direct_jumps_and_calls_are_run_through)
{
	struct code c;
	struct bts_block b;

	chain_code(&c);
	bts_block_decode(read_code, &c, 0x1000, NULL, &b);
	EXPECT_EQ(b.start, (uint64_t)0x1000);
	EXPECT_EQ(b.site, (uint64_t)0x1022);
	EXPECT_EQ(b.end, (uint64_t)0x1024);
	EXPECT_EQ(b.br.kind, BTS_INSN_COND);
	ASSERT_EQ(b.nhops, 2);
	EXPECT_EQ(b.hops[0].from, (uint64_t)0x1001);
	EXPECT_EQ(b.hops[0].end, (uint64_t)0x1006);
	EXPECT_EQ(b.hops[0].to, (uint64_t)0x1010);
	EXPECT_EQ(b.hops[1].from, (uint64_t)0x1011);
	EXPECT_EQ(b.hops[1].end, (uint64_t)0x1013);
	EXPECT_EQ(b.hops[1].to, (uint64_t)0x1020);
	/* A pc names its segment, and with it the hops already run. */
	EXPECT_EQ(bts_block_segment(&b, 0x1000), 0);
	EXPECT_EQ(bts_block_segment(&b, 0x1001), 0);
	EXPECT_EQ(bts_block_segment(&b, 0x1006), -1);
	EXPECT_EQ(bts_block_segment(&b, 0x1010), 1);
	EXPECT_EQ(bts_block_segment(&b, 0x1020), 2);
	EXPECT_EQ(bts_block_segment(&b, 0x1024), -1);
	/* The syscall is in the last segment: ahead of every pc before it. */
	EXPECT_EQ(b.last_sys, (uint64_t)0x1020);
	EXPECT_TRUE(bts_block_sys_ahead(&b, 0x1000));
	EXPECT_TRUE(bts_block_sys_ahead(&b, 0x1011));
	EXPECT_TRUE(bts_block_sys_ahead(&b, 0x1020));
	EXPECT_FALSE(bts_block_sys_ahead(&b, 0x1022));
}

TEST(speed_blocks, a_refused_target_keeps_the_transfer_as_the_site)
{
	struct code c;
	struct bts_block b;

	chain_code(&c);
	bts_block_decode(read_code, &c, 0x1000, no_follow, &b);
	EXPECT_EQ(b.nhops, 0);
	EXPECT_EQ(b.site, (uint64_t)0x1001);
	EXPECT_EQ(b.br.kind, BTS_INSN_CALL);
	EXPECT_EQ(b.br.target, (uint64_t)0x1010);
}

TEST(speed_blocks, a_jump_back_into_the_block_is_a_site)
{
	static const uint8_t loop[] = { 0x90, 0x90, 0xeb, 0xfc };	/* jmp 0x1000 */
	struct code c;
	struct bts_block b;

	memset(c.bytes, 0xcc, sizeof(c.bytes));
	c.base = 0x1000;
	put(&c, 0x1000, loop, sizeof(loop));
	bts_block_decode(read_code, &c, 0x1000, NULL, &b);
	EXPECT_EQ(b.nhops, 0);
	EXPECT_EQ(b.site, (uint64_t)0x1002);
	EXPECT_EQ(b.br.kind, BTS_INSN_JUMP);
}

TEST(speed_blocks, at_most_eight_hops)
{
	static const uint8_t jmp[] = { 0xeb, 0x0e };	/* jmp +16 */
	struct code c;
	struct bts_block b;
	int i;

	memset(c.bytes, 0xcc, sizeof(c.bytes));
	c.base = 0x1000;
	for (i = 0; i < 12; i++)
		put(&c, 0x1000 + 16 * i, jmp, sizeof(jmp));
	bts_block_decode(read_code, &c, 0x1000, NULL, &b);
	EXPECT_EQ(b.nhops, BTS_BLOCK_HOPS);
	EXPECT_EQ(b.site, (uint64_t)(0x1000 + 16 * BTS_BLOCK_HOPS));
	for (i = 0; i < BTS_BLOCK_HOPS; i++)
		EXPECT_EQ(b.hops[i].to, (uint64_t)(0x1000 + 16 * (i + 1)));
}
