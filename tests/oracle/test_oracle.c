// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The independent oracle (issue 2, item 7): the branches qemu-user's
 * instruction log shows must be exactly the records `btrace dump --raw`
 * prints, pair for pair.  static-oracle (no libc) is compared whole;
 * oracle-libc only inside its own functions, as offsets from its load
 * address, because libc picks CPU-specific routines and qemu-user has no
 * vDSO.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

#include "oracle.h"

/* Runs @prog under qemu; returns its log (malloc'ed); asserts a clean run. */
static char *qemu_trace(const char *prog, struct harness_cmd *cmd)
{
	char *log = harness_path(harness_tmpdir(), "qemu.log");

	ASSERT_EQ(qemu_run(prog, log, cmd), 0);
	if (harness_exit_code(cmd) != 0)
		FAIL("%s under qemu exited with %d: %s", prog,
		     harness_exit_code(cmd), cmd->err);
	return log;
}

/* The branches of the log, with @img loaded at @bias. */
static void qemu_branches(char *log, const struct oracle_image *img,
			  uint64_t bias, struct oracle_pairs *out,
			  struct qemu_log_stats *st)
{
	char err[ORACLE_ERR];

	if (qemu_log_branches(log, img, bias, out, st, err, sizeof(err)))
		FAIL("qemu log: %s", err);
	remove(log);
	free(log);
}

/* Records @prog with btrace (BLOCK: lossless) and reads dump --raw. */
static void btrace_branches(const char *prog, struct oracle_raw *raw,
			    struct harness_cmd *rec)
{
	char *btrace = BTRACE_PATH();
	char *trace = harness_path(harness_tmpdir(), "oracle.btr");
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

static void expect_same(const struct oracle_pairs *want,
			const struct oracle_pairs *got,
			const struct oracle_image *img)
{
	long idx = oracle_first_diff(want, got);
	char *report;

	if (idx < 0)
		return;
	report = oracle_report(want, got, idx, img, 0);
	harness_fail(__FILE__, __LINE__, "btrace differs from qemu: %s",
		     report);
	free(report);
	harness_abort();
}

TEST(oracle, static_program_every_record)
{
	char *prog = PROG_PATH("static-oracle");
	struct oracle_pairs want = { 0 };
	struct oracle_raw raw;
	struct oracle_image img;
	struct qemu_log_stats st;
	struct harness_cmd q, rec;
	char err[ORACLE_ERR];

	if (oracle_image_open(prog, &img, err, sizeof(err)))
		FAIL("%s", err);
	qemu_branches(qemu_trace(prog, &q), &img, 0, &want, &st);
	EXPECT_STREQ(q.out, "static-oracle ok\n");
	EXPECT_EQ(st.outside, (uint64_t)0);
	EXPECT_GT(want.n, (size_t)3000);

	btrace_branches(prog, &raw, &rec);
	EXPECT_STREQ(rec.out, "static-oracle ok\n");
	ASSERT_EQ(raw.n, (size_t)1);
	expect_same(&want, &raw.t[0].pairs, &img);

	oracle_raw_free(&raw);
	harness_cmd_free(&q);
	harness_cmd_free(&rec);
	oracle_pairs_free(&want);
	oracle_image_close(&img);
	free(prog);
}

static uint64_t load_bias(const char *out, const struct oracle_image *img)
{
	uint64_t bias;

	if (oracle_libc_bias(out, img, &bias))
		FAIL("no load address in the output: %s", out);
	return bias;
}

/*
 * The load bias of @prog as the trace's maps give it: its executable
 * mapping, whose file offset lies in one of @img's code segments.
 */
static uint64_t trace_bias(const char *prog, const struct oracle_image *img)
{
	char *trace = harness_path(harness_tmpdir(), "oracle.btr");
	char *real = realpath(prog, NULL);
	const struct bts_map *maps;
	struct bts_trace *t;
	uint64_t bias = 0;
	size_t n;

	ASSERT_TRUE(real);
	if (bts_trace_open(trace, &t))
		FAIL("%s: %s", trace, bts_errdetail());
	ASSERT_GE(bts_trace_nprocesses(t), (size_t)1);
	n = bts_trace_maps(t, bts_trace_process(t, 0)->pid, &maps);
	for (size_t i = 0; i < n && !bias; i++) {
		for (size_t j = 0; j < img->nsegs && !bias; j++) {
			const struct oracle_seg *s = &img->segs[j];

			if (strcmp(maps[i].path, real) ||
			    maps[i].offset < s->offset ||
			    maps[i].offset >= s->offset + s->size)
				continue;
			bias = maps[i].start - maps[i].offset -
			       (s->vaddr - s->offset);
		}
	}
	bts_trace_close(t);
	if (!bias)
		FAIL("the trace has no executable map of %s", real);
	free(real);
	free(trace);
	return bias;
}

TEST(oracle, libc_program_own_functions)
{
	char *prog = PROG_PATH("oracle-libc");
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
	log = qemu_trace(prog, &q);
	bias = load_bias(q.out, &img);
	qemu_branches(log, &img, bias, &all, &st);
	oracle_filter_funcs(&all, &img, bias, &want);
	/* libc and ld.so ran too, outside the image. */
	EXPECT_GT(st.outside, (uint64_t)10000);
	EXPECT_GT(want.n, (size_t)500);

	btrace_branches(prog, &raw, &rec);
	/* The same output, but for the address line. */
	EXPECT_STREQ(strchr(rec.out, '\n'), strchr(q.out, '\n'));
	ASSERT_EQ(raw.n, (size_t)1);
	bias = load_bias(rec.out, &img);
	/* The trace's own maps agree with the program on where it lives. */
	EXPECT_EQ(trace_bias(prog, &img), bias);
	oracle_filter_funcs(&raw.t[0].pairs, &img, bias, &got);
	expect_same(&want, &got, &img);

	oracle_raw_free(&raw);
	harness_cmd_free(&q);
	harness_cmd_free(&rec);
	oracle_pairs_free(&all);
	oracle_pairs_free(&want);
	oracle_pairs_free(&got);
	oracle_image_close(&img);
	free(prog);
}
