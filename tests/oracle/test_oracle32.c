// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle for 32-bit programs: qemu-i386's instruction
 * log, decoded with Zydis in legacy 32-bit mode, against `btrace dump
 * --raw` of a ptrace-step recording of the same i386 program on the 64-bit
 * kernel, by branch stops (the default; tests/e2e/test_i386_fast.c checks
 * them against the single-step reference).  i386-oracle (static, no libc)
 * is compared whole; i386-libc (oracle-libc built -m32) inside its own
 * functions, as offsets from its load address.  The qemu-user source's
 * recordings of both (under qemu-i386) are compared the same way.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

TEST(oracle32, static_program_every_record)
{
	REQUIRE_I386();
	oracle_expect_static_whole("i386-oracle", NULL);
}

/*
 * The same trace's calls name the 32-bit PIE's functions and their source
 * lines (DWARF of an ELF32 file, at its load address).
 */
static void expect_source_lines(const char *name)
{
	char *btrace = BTRACE_PATH();
	char *trace = harness_path(harness_tmpdir(), name);
	char *argv[] = { btrace, "dump", "--calls", "--line-range", trace, NULL };
	struct harness_cmd dump;
	char want[512];

	ASSERT_EQ(harness_run(argv, 40, &dump), 0);
	EXPECT_EQ(harness_exit_code(&dump), 0);
	snprintf(want, sizeof(want), "\tcheck_sorted\tat %s/tests/progs/oracle-libc.c:54,59\n",
		 BTS_SRC_DIR);
	if (!strstr(dump.out, want))
		FAIL("dump --calls --line-range has no \"%s\"", want);
	EXPECT_TRUE(strstr(dump.out, "decode error") == NULL);
	harness_cmd_free(&dump);
	free(trace);
	free(btrace);
}

/* A 32-bit PIE loads below 4 GiB. */
static void bias_below_4g(const char *prog, const struct oracle_image *img,
			  uint64_t bias)
{
	(void)prog;
	(void)img;
	EXPECT_LT(bias, (uint64_t)1 << 32);
}

TEST(oracle32, libc_program_own_functions)
{
	REQUIRE_I386();
	oracle_expect_libc_program("i386-libc", "oracle32.btr", NULL,
				   "qemu-i386", bias_below_4g);
	expect_source_lines("oracle32.btr");
}

/*
 * The qemu-user source runs the same programs under qemu-i386, on a kernel
 * with IA32 emulation or without: its records are the log's all the same.
 */
TEST(oracle32, qemu_user_static_program_every_record)
{
	oracle_expect_static_whole("i386-oracle", "qemu-user");
}

TEST(oracle32, qemu_user_libc_program_own_functions)
{
	oracle_expect_libc_program("i386-libc", "oracle32-qemu.btr", "qemu-user",
				   "qemu-i386", bias_below_4g);
	expect_source_lines("oracle32-qemu.btr");
}
