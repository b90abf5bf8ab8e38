// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The site table of ptrace-step's branch stops (step_fast.c): blocks by
 * start address, each with the site its int3 goes on, decoded once
 * (decode/insn_block.c's cache).  step_fast.c looks a block up at every
 * stop, decodes it anew when the cached one is of the other machine mode
 * (a 64-bit and an i386 process in one session) and puts it back, and
 * flushes the table when code changes under it.
 */
#include <string.h>

#include "bts_internal.h"
#include "harness.h"

#define BASE 0x400000ULL
#define SIZE 0x10000

static uint8_t code[SIZE];

static ssize_t read_code(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < BASE || addr >= BASE + SIZE)
		return -1;
	if (len > BASE + SIZE - addr)
		len = BASE + SIZE - addr;
	memcpy(buf, code + (addr - BASE), len);
	return (ssize_t)len;
}

/* Blocks of 16 bytes: 14 nops then "jne ." at +14: its site. */
static void blocks(void)
{
	for (size_t i = 0; i < SIZE; i += 16) {
		memset(code + i, 0x90, 14);
		code[i + 14] = 0x75;
		code[i + 15] = 0xfe;
	}
}

static void decode(uint64_t start, bool is32, struct bts_block *b)
{
	bts_block_decode_mode(is32, read_code, NULL, start, NULL, b);
}

TEST(sites, a_block_is_found_by_its_start_with_its_site)
{
	struct bts_block_cache *c = bts_block_cache_new();
	const struct bts_block *got;
	struct bts_block b;

	ASSERT_TRUE(c != NULL);
	blocks();
	EXPECT_TRUE(bts_block_cache_get(c, BASE) == NULL);
	decode(BASE + 32, false, &b);
	EXPECT_EQ(b.site, BASE + 32 + 14);
	EXPECT_EQ(b.end, BASE + 32 + 16);
	EXPECT_EQ(b.br.kind, BTS_INSN_COND);
	got = bts_block_cache_put(c, &b);
	ASSERT_TRUE(got != NULL);
	EXPECT_TRUE(!memcmp(got, &b, sizeof(b)));	/* a copy, whole */
	got = bts_block_cache_get(c, BASE + 32);
	ASSERT_TRUE(got != NULL);
	EXPECT_EQ(got->site, BASE + 32 + 14);
	EXPECT_EQ(got->hash, b.hash);
	/* only starts are keys: the site or a pc inside finds nothing */
	EXPECT_TRUE(bts_block_cache_get(c, BASE + 32 + 14) == NULL);
	EXPECT_TRUE(bts_block_cache_get(c, BASE + 33) == NULL);
	bts_block_cache_free(c);
}

TEST(sites, a_block_of_the_other_mode_replaces_the_cached_one)
{
	struct bts_block_cache *c = bts_block_cache_new();
	const struct bts_block *got;
	struct bts_block b64, b32;

	ASSERT_TRUE(c != NULL);
	blocks();
	decode(BASE, false, &b64);
	decode(BASE, true, &b32);
	EXPECT_FALSE(b64.br.mode32);
	EXPECT_TRUE(b32.br.mode32);
	EXPECT_EQ(b32.site, b64.site);
	bts_block_cache_put(c, &b64);
	bts_block_cache_put(c, &b32);
	got = bts_block_cache_get(c, BASE);
	ASSERT_TRUE(got != NULL);
	EXPECT_TRUE(got->br.mode32);
	bts_block_cache_free(c);
}

TEST(sites, address_zero_is_never_cached)
{
	struct bts_block_cache *c = bts_block_cache_new();
	struct bts_block b = { 0 };

	ASSERT_TRUE(c != NULL);
	EXPECT_TRUE(bts_block_cache_put(c, &b) == NULL);
	EXPECT_TRUE(bts_block_cache_get(c, 0) == NULL);
	bts_block_cache_free(c);
}

TEST(sites, thousands_of_blocks_all_found_then_flushed)
{
	struct bts_block_cache *c = bts_block_cache_new();
	const struct bts_block *got;
	struct bts_block b;
	uint64_t a;

	ASSERT_TRUE(c != NULL);
	blocks();
	for (a = BASE; a < BASE + SIZE; a += 16) {
		decode(a, false, &b);
		ASSERT_TRUE(bts_block_cache_put(c, &b) != NULL);
	}
	for (a = BASE; a < BASE + SIZE; a += 16) {
		got = bts_block_cache_get(c, a);
		ASSERT_TRUE(got != NULL);
		ASSERT_EQ(got->start, a);
		ASSERT_EQ(got->site, a + 14);
	}
	bts_block_cache_flush(c);	/* code changed: every site decoded anew */
	for (a = BASE; a < BASE + SIZE; a += 16)
		ASSERT_TRUE(bts_block_cache_get(c, a) == NULL);
	bts_block_cache_free(c);
}

TEST(sites, undecodable_code_has_no_site)
{
	struct bts_block b;

	blocks();
	code[0] = 0x0f;		/* ud2 */
	code[1] = 0x0b;
	memset(code + 2, 0x06, 14);	/* push es: invalid in 64-bit mode */
	decode(BASE, false, &b);
	EXPECT_EQ(b.start, BASE);
	EXPECT_EQ(b.site, 0u);		/* single-stepped */
	/* beyond the readable code */
	decode(BASE + SIZE, false, &b);
	EXPECT_EQ(b.site, 0u);
}
