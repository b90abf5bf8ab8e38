// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle for 32-bit programs (issue 9, item 5): qemu-i386's instruction
 * log, decoded with Zydis in legacy 32-bit mode, against `btrace dump
 * --raw` of a ptrace-step recording of the same i386 program on the 64-bit
 * kernel, by branch stops (the default; tests/e2e/test_i386_fast.c checks
 * them against the single-step reference).  i386-oracle (static, no libc)
 * is compared whole; i386-libc (oracle-libc built -m32) inside its own
 * functions, as offsets from its load address.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

TEST(oracle32, static_program_every_record)
{
	oracle_expect_static_whole("i386-oracle");
}

/*
 * The same trace's calls name the 32-bit PIE's functions and their source
 * lines (DWARF of an ELF32 file, at its load address).
 */
static void expect_source_lines(void)
{
	char *btrace = BTRACE_PATH();
	char *trace = harness_path(harness_tmpdir(), "oracle32.btr");
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

TEST(oracle32, libc_program_own_functions)
{
	char *prog = PROG_PATH("i386-libc");
	struct oracle_pairs all = { 0 }, want = { 0 }, got = { 0 };
	struct oracle_raw raw;
	struct oracle_image img;
	struct qemu_log_stats st;
	struct harness_cmd q, rec;
	char err[ORACLE_ERR];
	uint64_t bias;
	char *log;

	if (oracle_image_open(prog, &img, err, sizeof(err)))
		FAIL("%s", err);
	log = oracle_qemu_trace(prog, &img, &q);
	bias = oracle_load_bias(q.out, &img);
	oracle_qemu_branches(log, &img, bias, &all, &st);
	oracle_filter_funcs(&all, &img, bias, &want);
	/* The i386 libc and ld.so ran too, outside the image. */
	EXPECT_GT(st.outside, (uint64_t)10000);
	EXPECT_GT(want.n, (size_t)500);

	oracle_btrace_branches(prog, "oracle32.btr", &raw, &rec);
	EXPECT_STREQ(strchr(rec.out, '\n'), strchr(q.out, '\n'));
	ASSERT_EQ(raw.n, (size_t)1);
	bias = oracle_load_bias(rec.out, &img);
	/* A 32-bit PIE loads below 4 GiB. */
	EXPECT_LT(bias, (uint64_t)1 << 32);
	oracle_filter_funcs(&raw.t[0].pairs, &img, bias, &got);
	oracle_expect_same(&want, &got, &img, "qemu-i386");
	expect_source_lines();

	oracle_raw_free(&raw);
	harness_cmd_free(&q);
	harness_cmd_free(&rec);
	oracle_pairs_free(&all);
	oracle_pairs_free(&want);
	oracle_pairs_free(&got);
	oracle_image_close(&img);
	free(prog);
}
