// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle for 32-bit programs (issue 9, item 5): qemu-i386's instruction
 * log, decoded with Zydis in legacy 32-bit mode, against `btrace dump
 * --raw` of a ptrace-step recording of the same i386 program on the 64-bit
 * kernel.  i386-oracle (static, no libc) is compared whole; i386-libc
 * (oracle-libc built -m32) inside its own functions, as offsets from its
 * load address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "oracle.h"

#define QEMU32	"/usr/bin/qemu-i386"

/* oracle_classify() for 32-bit code. */
static int classify32(const void *bytes, size_t len, unsigned int *insn_len)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction insn;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, bytes, len,
							&insn)))
		return -1;
	*insn_len = insn.length;
	switch (insn.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:	/* jcc, loop*, jecxz */
		return ORACLE_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return ORACLE_UNCOND;
	default:			/* int $0x80, rep movs: no branch */
		return ORACLE_PLAIN;
	}
}

/* Runs @prog under qemu-i386; returns its log (malloc'ed). */
static char *qemu32_trace(const char *prog, struct harness_cmd *cmd)
{
	char *log = harness_path(harness_tmpdir(), "qemu32.log");
	char *argv[] = {
		QEMU32, "-singlestep", "-d", "exec,nochain", "-D", log,
		(char *)prog, NULL
	};

	ASSERT_EQ(access(QEMU32, X_OK), 0);
	ASSERT_EQ(harness_run(argv, 60, cmd), 0);
	if (harness_exit_code(cmd) != 0)
		FAIL("%s under qemu-i386 exited with %d: %s", prog,
		     harness_exit_code(cmd), cmd->err);
	return log;
}

/* qemu_log_branches() with the 32-bit decoder; frees @log. */
static void qemu32_branches(char *log, const struct oracle_image *img,
			    uint64_t bias, struct oracle_pairs *out,
			    struct qemu_log_stats *st)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0;
	uint64_t prev = 0, pc;

	memset(st, 0, sizeof(*st));
	if (!f)
		FAIL("%s: %s", log, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		unsigned char code[16];
		unsigned int len;
		size_t n;
		int r = qemu_log_pc(line, &pc), cls;

		if (r < 0)
			FAIL("%s: not a one-cpu Trace line: %s", log, line);
		if (r == 0)
			continue;
		if (st->insns++) {
			n = oracle_image_read(img, prev - bias, code, sizeof(code));
			if (!n) {
				st->outside++;
			} else {
				cls = classify32(code, n, &len);
				if (cls < 0)
					FAIL("undecodable code at 0x%" PRIx64, prev);
				if (cls == ORACLE_UNCOND ||
				    (cls == ORACLE_COND && pc != prev + len))
					oracle_pairs_add(out, prev, pc);
			}
		}
		prev = pc;
	}
	free(line);
	fclose(f);
	remove(log);
	free(log);
}

/* Records @prog with btrace (ptrace-step, BLOCK) and reads dump --raw. */
static void btrace32_branches(const char *prog, struct oracle_raw *raw,
			      struct harness_cmd *rec)
{
	char *btrace = BTRACE_PATH();
	char *trace = harness_path(harness_tmpdir(), "oracle32.btr");
	char *rargv[] = { btrace, "record", "--mode", "block", "-o", trace,
			  "--", (char *)prog, NULL };
	char *dargv[] = { btrace, "dump", "--raw", trace, NULL };
	struct harness_cmd dump;
	char err[ORACLE_ERR];

	ASSERT_EQ(harness_run(rargv, 40, rec), 0);
	if (harness_exit_code(rec) != 0)
		FAIL("btrace record exited with %d: %s",
		     harness_exit_code(rec), rec->err);
	ASSERT_EQ(harness_run(dargv, 40, &dump), 0);
	if (harness_exit_code(&dump) != 0)
		FAIL("btrace dump --raw exited with %d: %s",
		     harness_exit_code(&dump), dump.err);
	if (oracle_raw_parse(dump.out, raw, err, sizeof(err)))
		FAIL("btrace dump --raw: %s", err);
	harness_cmd_free(&dump);
	free(trace);
	free(btrace);
}

static void expect_same32(const struct oracle_pairs *want,
			  const struct oracle_pairs *got,
			  const struct oracle_image *img)
{
	long idx = oracle_first_diff(want, got);
	char *report;

	if (idx < 0)
		return;
	/* The report disassembles as 64-bit code: its addresses are what count. */
	report = oracle_report(want, got, idx, img, 0);
	harness_fail(__FILE__, __LINE__, "btrace differs from qemu-i386: %s",
		     report);
	free(report);
	harness_abort();
}

TEST(oracle32, static_program_every_record)
{
	char *prog = PROG_PATH("i386-oracle");
	struct oracle_pairs want = { 0 };
	struct oracle_raw raw;
	struct oracle_image img;
	struct qemu_log_stats st;
	struct harness_cmd q, rec;
	char err[ORACLE_ERR];

	if (oracle_image_open(prog, &img, err, sizeof(err)))
		FAIL("%s", err);
	qemu32_branches(qemu32_trace(prog, &q), &img, 0, &want, &st);
	EXPECT_STREQ(q.out, "i386-oracle ok\n");
	EXPECT_EQ(st.outside, (uint64_t)0);
	EXPECT_GT(want.n, (size_t)3000);

	btrace32_branches(prog, &raw, &rec);
	EXPECT_STREQ(rec.out, "i386-oracle ok\n");
	ASSERT_EQ(raw.n, (size_t)1);
	EXPECT_EQ(raw.t[0].markers, (size_t)0);
	expect_same32(&want, &raw.t[0].pairs, &img);

	oracle_raw_free(&raw);
	harness_cmd_free(&q);
	harness_cmd_free(&rec);
	oracle_pairs_free(&want);
	oracle_image_close(&img);
	free(prog);
}

static uint64_t load_bias32(const char *out, const struct oracle_image *img)
{
	uint64_t bias;

	if (oracle_libc_bias(out, img, &bias))
		FAIL("no load address in the output: %s", out);
	return bias;
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
	log = qemu32_trace(prog, &q);
	bias = load_bias32(q.out, &img);
	qemu32_branches(log, &img, bias, &all, &st);
	oracle_filter_funcs(&all, &img, bias, &want);
	/* The i386 libc and ld.so ran too, outside the image. */
	EXPECT_GT(st.outside, (uint64_t)10000);
	EXPECT_GT(want.n, (size_t)500);

	btrace32_branches(prog, &raw, &rec);
	EXPECT_STREQ(strchr(rec.out, '\n'), strchr(q.out, '\n'));
	ASSERT_EQ(raw.n, (size_t)1);
	bias = load_bias32(rec.out, &img);
	/* A 32-bit PIE loads below 4 GiB. */
	EXPECT_LT(bias, (uint64_t)1 << 32);
	oracle_filter_funcs(&raw.t[0].pairs, &img, bias, &got);
	expect_same32(&want, &got, &img);
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
