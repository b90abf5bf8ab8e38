// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle's own side, checked without btrace: log lines, instruction
 * classes, the --raw reader, and the branches qemu shows for static-oracle
 * against the counts its source fixes by hand.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

TEST(oracle_qemu, log_line)
{
	uint64_t pc = 0;

	EXPECT_EQ(qemu_log_pc("Trace 0: 0x7f1164000100 [0000000000000000/"
			      "0000000000401025/1040c0b3/00000201] \n", &pc), 1);
	EXPECT_EQ(pc, (uint64_t)0x401025);
	EXPECT_EQ(qemu_log_pc("Trace 0: 0x7f11640009c0 [0000000000000000/"
			      "0000004000001139/1040c0b3/00000201] main\n", &pc), 1);
	EXPECT_EQ(pc, (uint64_t)0x4000001139);
	EXPECT_EQ(qemu_log_pc("start_code  0x0000000000401000\n", &pc), 0);
	EXPECT_EQ(qemu_log_pc("0000000000400000-0000000000401000 r--\n", &pc), 0);
	EXPECT_EQ(qemu_log_pc("Trace 0: 0x7f11 [garbage\n", &pc), -1);
	EXPECT_EQ(qemu_log_pc("Trace 0: 0x7f11 [0/401000/1040c0b3\n", &pc), -1);
	/* A second cpu is a second thread: its pcs would interleave. */
	EXPECT_EQ(qemu_log_pc("Trace 1: 0x7f1164000100 [0000000000000000/"
			      "0000000000401025/1040c0b3/00000201] \n", &pc), -1);
}

static int cls(const char *bytes, size_t n, unsigned int *len)
{
	return oracle_classify(false, bytes, n, len);
}

TEST(oracle_qemu, classify)
{
	unsigned int len = 0;

	EXPECT_EQ(cls("\x74\x05", 2, &len), ORACLE_COND);	/* je */
	EXPECT_EQ(len, 2u);
	EXPECT_EQ(cls("\x0f\x85\x10\x00\x00\x00", 6, &len), ORACLE_COND);
	EXPECT_EQ(len, 6u);
	EXPECT_EQ(cls("\xe2\xf9", 2, &len), ORACLE_COND);	/* loop */
	EXPECT_EQ(cls("\xe3\x02", 2, &len), ORACLE_COND);	/* jrcxz */
	EXPECT_EQ(cls("\xe8\x1b\x00\x00\x00", 5, &len), ORACLE_UNCOND);
	EXPECT_EQ(len, 5u);
	EXPECT_EQ(cls("\xc3", 1, &len), ORACLE_UNCOND);	/* ret */
	EXPECT_EQ(cls("\xc2\x08\x00", 3, &len), ORACLE_UNCOND);	/* ret $8 */
	EXPECT_EQ(cls("\xeb\x00", 2, &len), ORACLE_UNCOND);	/* jmp .+2 */
	/* jmp *0x402000(,%rdx,8) and call *%rax */
	EXPECT_EQ(cls("\xff\x24\xd5\x00\x20\x40\x00", 7, &len), ORACLE_UNCOND);
	EXPECT_EQ(len, 7u);
	EXPECT_EQ(cls("\xff\xd0", 2, &len), ORACLE_UNCOND);
	EXPECT_EQ(cls("\x0f\x05", 2, &len), ORACLE_PLAIN);	/* syscall */
	EXPECT_EQ(cls("\xf3\xa4", 2, &len), ORACLE_PLAIN);	/* rep movsb */
	EXPECT_EQ(cls("\xf3\xaa", 2, &len), ORACLE_PLAIN);	/* rep stosb */
	EXPECT_EQ(cls("\xcc", 1, &len), ORACLE_PLAIN);		/* int3 */
	EXPECT_EQ(cls("\x90", 1, &len), ORACLE_PLAIN);
	EXPECT_EQ(cls("\x06", 1, &len), -1);	/* push %es: not in 64-bit */
	EXPECT_EQ(cls("\x0f\x85\x10", 3, &len), -1);	/* cut short */
}

TEST(oracle_qemu, raw_dump_reader)
{
	struct oracle_raw d;
	char err[ORACLE_ERR];

	ASSERT_EQ(oracle_raw_parse("# thread 41\n# exec 0x401000\n"
				 "0x401005 0x401025\n0x401025 0x40100a\n"
				 "# thread 42\n# lost 3\n0xffffffffff600000 0x1\n",
				 &d, err, sizeof(err)), 0);
	ASSERT_EQ(d.n, (size_t)2);
	EXPECT_EQ(d.t[0].tid, 41);
	EXPECT_EQ(d.t[0].markers, (size_t)1);
	ASSERT_EQ(d.t[0].pairs.n, (size_t)2);
	EXPECT_EQ(d.t[0].pairs.v[1].from, (uint64_t)0x401025);
	EXPECT_EQ(d.t[0].pairs.v[1].to, (uint64_t)0x40100a);
	EXPECT_EQ(d.t[1].tid, 42);
	EXPECT_EQ(d.t[1].pairs.v[0].from, (uint64_t)0xffffffffff600000);
	oracle_raw_free(&d);
	ASSERT_EQ(oracle_raw_parse("", &d, err, sizeof(err)), 0);
	EXPECT_EQ(d.n, (size_t)0);

	static const char *const bad[] = {
		"0x1 0x2\n",				/* before a thread */
		"# thread 1\n0x1A 0x2\n",		/* upper case */
		"# thread 1\n1 0x2\n",			/* no 0x */
		"# thread 1\n0x1 0x2",			/* no newline */
		"# thread 1\n0x1  0x2\n",
		"# thread 1\n0x1 0x2 \n",
		"# thread 1\n0x 0x2\n",
		"# thread 1\n0x11112222333344445 0x2\n",	/* 17 digits */
		"# thread x\n",
		"# thread 1\n\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(oracle_raw_parse(bad[i], &d, err, sizeof(err)), -1);
		EXPECT_EQ(d.n, (size_t)0);
	}
}

TEST(oracle_qemu, first_diff)
{
	struct oracle_pairs a = { 0 }, b = { 0 };

	EXPECT_EQ(oracle_first_diff(&a, &b), -1);
	oracle_pairs_add(&a, 1, 2);
	oracle_pairs_add(&a, 3, 4);
	oracle_pairs_add(&b, 1, 2);
	EXPECT_EQ(oracle_first_diff(&a, &b), 1);	/* b is a prefix */
	oracle_pairs_add(&b, 3, 5);
	EXPECT_EQ(oracle_first_diff(&a, &b), 1);
	b.v[1].to = 4;
	EXPECT_EQ(oracle_first_diff(&a, &b), -1);
	oracle_pairs_free(&a);
	oracle_pairs_free(&b);
}

/* static-oracle's constants: see tests/progs/static-oracle.S. */
#define ROUNDS		200
#define FIB_CALLS	1973
#define FIB_LEAVES	987
#define LOOPS		10
#define TOTAL		6192

static uint64_t sym(const struct oracle_image *img, const char *name)
{
	uint64_t a = oracle_image_symbol(img, name);

	if (!a)
		FAIL("static-oracle has no symbol %s", name);
	return a;
}

static size_t count_to(const struct oracle_pairs *p, uint64_t to)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->v[i].to == to;
	return n;
}

static void check_static_counts(const struct oracle_pairs *p,
				const struct oracle_image *img)
{
	uint64_t start = sym(img, "_start"), main_ = sym(img, "main");

	ASSERT_EQ(p->n, (size_t)TOTAL);
	EXPECT_EQ(p->v[0].from, start);
	EXPECT_EQ(p->v[0].to, main_);
	EXPECT_EQ(p->v[p->n - 1].from, sym(img, "main_ret"));
	EXPECT_EQ(p->v[p->n - 1].to, start + 5);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "round_jb")),
		  (size_t)ROUNDS - 1);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "switch_jmp")),
		  (size_t)ROUNDS);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "indirect_call")),
		  (size_t)ROUNDS / 5);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "tail_jmp")),
		  (size_t)ROUNDS / 5);
	/* Rounds i % 5 == 3 with i even, and i % 5 == 4 with i / 5 even. */
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "odd_jz")),
		  (size_t)ROUNDS / 10);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "test_jrcxz")),
		  (size_t)ROUNDS / 10);
	EXPECT_EQ(count_to(p, sym(img, "fib")), (size_t)FIB_CALLS);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "fib_jb")),
		  (size_t)FIB_LEAVES);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "loop_insn")),
		  (size_t)LOOPS - 1);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "pc_thunk")), (size_t)1);
	EXPECT_EQ(count_to(p, sym(img, "pc_thunk_next")), (size_t)1);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "rep_movsb")), (size_t)0);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "rep_stosb")), (size_t)0);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "rep_stosb0")), (size_t)0);
	EXPECT_EQ(oracle_pairs_count_from(p, sym(img, "exit_syscall")), (size_t)0);
}

TEST(oracle_qemu, static_program_by_hand)
{
	char *prog = PROG_PATH("static-oracle");
	char *log = harness_path(harness_tmpdir(), "qemu.log");
	char err[ORACLE_ERR];
	struct oracle_image img;
	struct oracle_pairs p = { 0 };
	struct qemu_log_stats st;
	struct harness_cmd cmd;

	ASSERT_EQ(oracle_image_open(prog, &img, err, sizeof(err)), 0);
	ASSERT_EQ(qemu_run(prog, log, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	EXPECT_STREQ(cmd.out, "static-oracle ok\n");
	harness_cmd_free(&cmd);
	if (qemu_log_branches(log, &img, 0, &p, &st, err, sizeof(err)))
		FAIL("%s", err);
	EXPECT_EQ(st.outside, (uint64_t)0);
	EXPECT_GT(st.insns, (uint64_t)TOTAL);
	check_static_counts(&p, &img);
	oracle_pairs_free(&p);
	oracle_image_close(&img);
	free(log);
	free(prog);
}

TEST(oracle_qemu, mismatch_report)
{
	char *prog = PROG_PATH("static-oracle");
	char err[ORACLE_ERR];
	struct oracle_image img;
	struct oracle_pairs a = { 0 }, b = { 0 };
	uint64_t start, main_;
	char *text;

	ASSERT_EQ(oracle_image_open(prog, &img, err, sizeof(err)), 0);
	start = sym(&img, "_start");
	main_ = sym(&img, "main");
	oracle_pairs_add(&a, start, main_);
	oracle_pairs_add(&b, start, main_);
	oracle_pairs_add(&a, sym(&img, "main_ret"), start + 5);
	oracle_pairs_add(&b, sym(&img, "rep_movsb"), start + 5);
	ASSERT_EQ(oracle_first_diff(&a, &b), 1);
	text = oracle_report(&a, &b, 1, &img, 0);
	EXPECT_TRUE(strstr(text, "first difference at record 1 "
			   "(qemu has 2 records, btrace 2)"));
	EXPECT_TRUE(strstr(text, "  [1]  <<<\n"));
	EXPECT_TRUE(strstr(text, "qemu   0x401000 _start+0x0  [call "));
	EXPECT_TRUE(strstr(text, "main_ret+0x0  [ret] -> 0x401005 _start+0x5\n"));
	EXPECT_TRUE(strstr(text, "rep_movsb+0x0  [rep movsb] -> "
			   "0x401005 _start+0x5\n"));
	free(text);
	oracle_pairs_free(&a);
	oracle_pairs_free(&b);
	oracle_image_close(&img);
	free(prog);
}

/* fib(16) in oracle-libc: 2 * fib(17) - 1 calls. */
#define LIBC_FIB_CALLS	3193

TEST(oracle_qemu, libc_program_by_hand)
{
	char *prog = PROG_PATH("oracle-libc");
	char *log = harness_path(harness_tmpdir(), "qemu.log");
	char err[ORACLE_ERR];
	struct oracle_image img;
	struct oracle_pairs all = { 0 }, own = { 0 };
	struct qemu_log_stats st;
	struct harness_cmd cmd;
	uint64_t bias;

	ASSERT_EQ(oracle_image_open(prog, &img, err, sizeof(err)), 0);
	ASSERT_EQ(qemu_run(prog, log, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	ASSERT_EQ(oracle_libc_bias(cmd.out, &img, &bias), 0);
	EXPECT_EQ(bias % 4096, (uint64_t)0);
	EXPECT_TRUE(strstr(cmd.out, "\nsum 10414 fib 987 ack 9 vm 4103\n"));
	harness_cmd_free(&cmd);
	if (qemu_log_branches(log, &img, bias, &all, &st, err, sizeof(err)))
		FAIL("%s", err);
	oracle_filter_funcs(&all, &img, bias, &own);
	EXPECT_GT(own.n, (size_t)500);
	EXPECT_EQ(count_to(&own, oracle_image_symbol(&img, "fib")),
		  (size_t)LIBC_FIB_CALLS);
	/* main's first branch is its call of printf's PLT entry: filtered. */
	for (size_t i = 0; i < own.n; i++) {
		EXPECT_TRUE(oracle_image_in_func(&img, own.v[i].from));
		EXPECT_TRUE(oracle_image_in_func(&img, own.v[i].to));
	}
	oracle_pairs_free(&all);
	oracle_pairs_free(&own);
	oracle_image_close(&img);
	free(log);
	free(prog);
}
