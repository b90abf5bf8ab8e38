// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptrace-step's breakpoint table (session/breakpoints.c): the
 * int3s it plants, the bytes under them, and the table that finds them.
 * The "code" is a buffer of this process: the table writes it through
 * /proc/self/mem as it writes a tracee's through /proc/PID/mem.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bts_internal.h"
#include "harness.h"

#define CODE_SIZE 8192

static uint8_t *code;

static struct bts_bptab *setup(struct bts_bptab *t)
{
	free(code);
	code = malloc(CODE_SIZE);
	if (!code)
		FAIL("out of memory");
	for (size_t i = 0; i < CODE_SIZE; i++)
		code[i] = (uint8_t)(0x10 + i % 0xb0);	/* never 0xcc */
	bts_bp_init(t);
	bts_bp_set_pid(t, getpid());
	return t;
}

static void teardown(struct bts_bptab *t)
{
	bts_bp_free(t);
	free(code);
	code = NULL;
}

static uint64_t at(size_t i)
{
	return (uint64_t)(uintptr_t)(code + i);
}

static uint8_t orig_of(size_t i)
{
	return (uint8_t)(0x10 + i % 0xb0);
}

TEST(breakpoints, plant_writes_int3_and_keeps_the_byte)
{
	struct bts_bptab t;
	uint8_t orig = 0;

	setup(&t);
	EXPECT_FALSE(bts_bp_lookup(&t, at(10), &orig));
	ASSERT_EQ(bts_bp_plant(&t, at(10)), 0);
	EXPECT_EQ(code[10], BTS_INT3);
	EXPECT_EQ(code[9], orig_of(9));
	EXPECT_EQ(code[11], orig_of(11));
	EXPECT_TRUE(bts_bp_lookup(&t, at(10), &orig));
	EXPECT_EQ(orig, orig_of(10));
	EXPECT_TRUE(bts_bp_lookup(&t, at(10), NULL));
	EXPECT_FALSE(bts_bp_lookup(&t, at(11), NULL));
	EXPECT_EQ(bts_bp_count(&t), 1u);
	/* ours, still there: nothing to do */
	EXPECT_EQ(bts_bp_plant(&t, at(10)), 0);
	EXPECT_EQ(bts_bp_count(&t), 1u);
	teardown(&t);
}

TEST(breakpoints, refuses_address_zero_and_the_programs_own_int3)
{
	struct bts_bptab t;

	setup(&t);
	EXPECT_EQ(bts_bp_plant(&t, 0), -1);
	EXPECT_FALSE(bts_bp_lookup(&t, 0, NULL));
	code[20] = BTS_INT3;
	EXPECT_EQ(bts_bp_plant(&t, at(20)), -1);
	EXPECT_FALSE(bts_bp_lookup(&t, at(20), NULL));
	EXPECT_EQ(bts_bp_count(&t), 0u);
	teardown(&t);
}

TEST(breakpoints, no_memory_no_plant)
{
	struct bts_bptab t;

	setup(&t);
	bts_bp_set_pid(&t, 0);
	EXPECT_EQ(bts_bp_plant(&t, at(1)), -1);
	EXPECT_EQ(code[1], orig_of(1));
	EXPECT_EQ(bts_bp_count(&t), 0u);
	teardown(&t);
}

TEST(breakpoints, rewritten_code_is_forgotten_and_reported)
{
	struct bts_bptab t;

	setup(&t);
	ASSERT_EQ(bts_bp_plant(&t, at(30)), 0);
	code[30] = 0x90;	/* the program wrote new code over our int3 */
	EXPECT_EQ(bts_bp_plant(&t, at(30)), -2);
	EXPECT_FALSE(bts_bp_lookup(&t, at(30), NULL));
	EXPECT_EQ(bts_bp_count(&t), 0u);
	EXPECT_EQ(code[30], 0x90);
	/* and planted anew over the new byte */
	ASSERT_EQ(bts_bp_plant(&t, at(30)), 0);
	bts_bp_remove(&t, at(30));
	EXPECT_EQ(code[30], 0x90);
	teardown(&t);
}

TEST(breakpoints, remove_restores_only_where_our_int3_is)
{
	struct bts_bptab t;

	setup(&t);
	ASSERT_EQ(bts_bp_plant(&t, at(40)), 0);
	ASSERT_EQ(bts_bp_plant(&t, at(41)), 0);
	bts_bp_remove(&t, at(40));
	EXPECT_EQ(code[40], orig_of(40));
	EXPECT_FALSE(bts_bp_lookup(&t, at(40), NULL));
	EXPECT_EQ(bts_bp_count(&t), 1u);
	code[41] = 0x55;	/* replaced: the new byte stays */
	bts_bp_remove(&t, at(41));
	EXPECT_EQ(code[41], 0x55);
	EXPECT_EQ(bts_bp_count(&t), 0u);
	bts_bp_remove(&t, at(42));	/* never planted: nothing happens */
	EXPECT_EQ(code[42], orig_of(42));
	teardown(&t);
}

/* Offsets into the code whose addresses share their home slot in @slots. */
static size_t colliding(size_t *offs, size_t n, size_t slots, size_t *home)
{
	size_t found = 0, want = bts_addr_table_home(at(0), slots - 1);

	for (size_t i = 0; i < CODE_SIZE && found < n; i++)
		if (bts_addr_table_home(at(i), slots - 1) == want)
			offs[found++] = i;
	*home = want;
	return found;
}

TEST(breakpoints, delete_shifts_colliding_entries_back)
{
	struct bts_bptab t;
	size_t offs[4], home;
	uint8_t orig;

	setup(&t);
	if (colliding(offs, 4, 1024, &home) < 4)
		FAIL("no four addresses of one home slot in %d bytes", CODE_SIZE);
	for (size_t i = 0; i < 4; i++)
		ASSERT_EQ(bts_bp_plant(&t, at(offs[i])), 0);
	EXPECT_EQ(bts_addr_table_nslots(&t.bps), 1024u);
	for (size_t i = 0; i < 4; i++)
		EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t.bps, (home + i) & 1023)),
			  at(offs[i]));
	bts_bp_remove(&t, at(offs[0]));
	EXPECT_EQ(code[offs[0]], orig_of(offs[0]));
	/* the chain moved up one slot: every other one is still found */
	for (size_t i = 1; i < 4; i++) {
		EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t.bps, (home + i - 1) & 1023)),
			  at(offs[i]));
		EXPECT_TRUE(bts_bp_lookup(&t, at(offs[i]), &orig));
		EXPECT_EQ(orig, orig_of(offs[i]));
	}
	EXPECT_TRUE(bts_addr_table_at(&t.bps, (home + 3) & 1023) == NULL);
	teardown(&t);
}

TEST(breakpoints, grows_past_half_of_1024_and_keeps_every_byte)
{
	struct bts_bptab t;
	uint8_t orig;
	size_t i;

	setup(&t);
	for (i = 0; i < 512; i++)
		ASSERT_EQ(bts_bp_plant(&t, at(i * 3)), 0);
	EXPECT_EQ(bts_addr_table_nslots(&t.bps), 1024u);
	for (; i < 2000; i++)
		ASSERT_EQ(bts_bp_plant(&t, at(i * 3)), 0);
	EXPECT_EQ(bts_addr_table_nslots(&t.bps), 4096u);
	EXPECT_EQ(bts_bp_count(&t), 2000u);
	for (i = 0; i < 2000; i++) {
		ASSERT_TRUE(bts_bp_lookup(&t, at(i * 3), &orig));
		ASSERT_EQ(orig, orig_of(i * 3));
		ASSERT_EQ(code[i * 3], BTS_INT3);
		ASSERT_FALSE(bts_bp_lookup(&t, at(i * 3 + 1), NULL));
	}
	teardown(&t);
}

TEST(breakpoints, remove_range_is_half_open)
{
	struct bts_bptab t;
	size_t i;

	setup(&t);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(bts_bp_plant(&t, at(i * 8)), 0);
	bts_bp_remove_range(&t, at(80), at(400));	/* offsets 80..392 */
	for (i = 0; i < 100; i++) {
		bool in = i * 8 >= 80 && i * 8 < 400;

		EXPECT_EQ(bts_bp_lookup(&t, at(i * 8), NULL), !in);
		EXPECT_EQ(code[i * 8], in ? orig_of(i * 8) : BTS_INT3);
	}
	EXPECT_EQ(bts_bp_count(&t), (size_t)(100 - 40));
	teardown(&t);
}

TEST(breakpoints, remove_all_restores_and_forget_all_does_not)
{
	struct bts_bptab t;

	setup(&t);
	ASSERT_EQ(bts_bp_plant(&t, at(1)), 0);
	ASSERT_EQ(bts_bp_plant(&t, at(2)), 0);
	bts_bp_remove_all(&t);
	EXPECT_EQ(bts_bp_count(&t), 0u);
	EXPECT_EQ(code[1], orig_of(1));
	EXPECT_EQ(code[2], orig_of(2));
	ASSERT_EQ(bts_bp_plant(&t, at(3)), 0);
	bts_bp_forget_all(&t);	/* after an exec: that memory is gone */
	EXPECT_EQ(bts_bp_count(&t), 0u);
	EXPECT_FALSE(bts_bp_lookup(&t, at(3), NULL));
	EXPECT_EQ(code[3], BTS_INT3);
	teardown(&t);
}

TEST(breakpoints, unplant_shows_the_original_bytes)
{
	struct bts_bptab t;
	uint8_t buf[64];
	size_t i;

	setup(&t);
	ASSERT_EQ(bts_bp_plant(&t, at(100)), 0);
	ASSERT_EQ(bts_bp_plant(&t, at(130)), 0);
	code[110] = BTS_INT3;	/* the program's own stays */
	/* few breakpoints, many bytes: the table is walked */
	memcpy(buf, code + 96, sizeof(buf));
	bts_bp_unplant(&t, at(96), buf, sizeof(buf));
	for (i = 0; i < sizeof(buf); i++)
		EXPECT_EQ(buf[i], 96 + i == 110 ? BTS_INT3 : orig_of(96 + i));
	/* few bytes: each int3 is looked up */
	memcpy(buf, code + 99, 4);
	bts_bp_unplant(&t, at(99), buf, 4);
	EXPECT_EQ(buf[1], orig_of(100));
	EXPECT_EQ(buf[0], orig_of(99));
	teardown(&t);
}

TEST(breakpoints, clean_copy_puts_the_bytes_back_in_a_fork_child)
{
	struct bts_bptab t;
	int go[2], status;
	pid_t pid;
	char c;

	setup(&t);
	ASSERT_EQ(bts_bp_plant(&t, at(7)), 0);
	ASSERT_EQ(bts_bp_plant(&t, at(700)), 0);
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(code[7] == orig_of(7) && code[700] == orig_of(700) ? 0 : 1);
	}
	close(go[0]);
	EXPECT_EQ(bts_bp_clean_copy(&t, pid), 0);
	EXPECT_EQ(write(go[1], "g", 1), 1);
	close(go[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	/* ours untouched */
	EXPECT_EQ(code[7], BTS_INT3);
	EXPECT_EQ(code[700], BTS_INT3);
	teardown(&t);
}
