// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The steps every oracle test takes, as assertions: qemu's branches of a
 * program, btrace's records of it, and the comparison of the two.  The
 * 64-bit and the i386 oracles differ only in @img->is32.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

char *oracle_qemu_trace(const char *prog, const struct oracle_image *img,
			struct harness_cmd *cmd)
{
	char *log = harness_path(harness_tmpdir(), "qemu.log");
	int (*runner)(const char *, const char *, struct harness_cmd *) =
		img->is32 ? qemu_run32 : qemu_run;

	ASSERT_EQ(runner(prog, log, cmd), 0);
	if (harness_exit_code(cmd) != 0)
		FAIL("%s under qemu exited with %d: %s", prog,
		     harness_exit_code(cmd), cmd->err);
	return log;
}

void oracle_qemu_branches(char *log, const struct oracle_image *img,
			  uint64_t bias, struct oracle_pairs *out,
			  struct qemu_log_stats *st)
{
	char err[ORACLE_ERR];

	if (qemu_log_branches(log, img, bias, out, st, err, sizeof(err)))
		FAIL("qemu log: %s", err);
	remove(log);
	free(log);
}

/* QEMU's own threads (qemu-user) run no guest code: no records, no markers. */
static void drop_empty_threads(struct oracle_raw *raw)
{
	size_t i, n = 0;

	for (i = 0; i < raw->n; i++) {
		if (raw->t[i].pairs.n || raw->t[i].markers)
			raw->t[n++] = raw->t[i];
		else
			oracle_pairs_free(&raw->t[i].pairs);
	}
	raw->n = n;
}

void oracle_btrace_branches(const char *prog, const char *trace_name,
			    const char *source, struct oracle_raw *raw,
			    struct harness_cmd *rec)
{
	char *btrace = BTRACE_PATH();
	char *trace = harness_path(harness_tmpdir(), trace_name);
	char *rargv[12] = { btrace, "record", "--mode", "block", "-o", trace };
	char *dargv[] = { btrace, "dump", "--raw", trace, NULL };
	struct harness_cmd dump;
	char err[ORACLE_ERR];
	size_t n = 6;

	if (source) {
		rargv[n++] = "--source";
		rargv[n++] = (char *)source;
	}
	rargv[n++] = "--";
	rargv[n++] = (char *)prog;
	rargv[n] = NULL;
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
	if (source && !strcmp(source, "qemu-user"))
		drop_empty_threads(raw);
	harness_cmd_free(&dump);
	free(trace);
	free(btrace);
}

void oracle_expect_same(const struct oracle_pairs *want,
			const struct oracle_pairs *got,
			const struct oracle_image *img, const char *who)
{
	long idx = oracle_first_diff(want, got);
	char *report;

	if (idx < 0)
		return;
	report = oracle_report(want, got, idx, img, 0);
	harness_fail(__FILE__, __LINE__, "btrace differs from %s: %s", who,
		     report);
	free(report);
	harness_abort();
}

uint64_t oracle_load_bias(const char *out, const struct oracle_image *img)
{
	uint64_t bias;

	if (oracle_libc_bias(out, img, &bias))
		FAIL("no load address in the output: %s", out);
	return bias;
}

void oracle_expect_static_whole(const char *name, const char *source)
{
	char *prog = PROG_PATH(name), ok[128];
	struct oracle_pairs want = { 0 };
	struct oracle_raw raw;
	struct oracle_image img;
	struct qemu_log_stats st;
	struct harness_cmd q, rec;
	char err[ORACLE_ERR];

	snprintf(ok, sizeof(ok), "%s ok\n", name);
	if (oracle_image_open(prog, &img, err, sizeof(err)))
		FAIL("%s", err);
	oracle_qemu_branches(oracle_qemu_trace(prog, &img, &q), &img, 0, &want,
			     &st);
	EXPECT_STREQ(q.out, ok);
	EXPECT_EQ(st.outside, (uint64_t)0);
	EXPECT_GT(want.n, (size_t)3000);

	oracle_btrace_branches(prog, "static.btr", source, &raw, &rec);
	EXPECT_STREQ(rec.out, ok);
	ASSERT_EQ(raw.n, (size_t)1);
	EXPECT_EQ(raw.t[0].markers, (size_t)0);
	oracle_expect_same(&want, &raw.t[0].pairs, &img,
			   img.is32 ? "qemu-i386" : "qemu");

	oracle_raw_free(&raw);
	harness_cmd_free(&q);
	harness_cmd_free(&rec);
	oracle_pairs_free(&want);
	oracle_image_close(&img);
	free(prog);
}

void oracle_expect_libc_program(const char *name, const char *trace_name,
				const char *source, const char *who,
				oracle_bias_check check)
{
	char *prog = PROG_PATH(name);
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
	/* libc and ld.so ran too, outside the image. */
	EXPECT_GT(st.outside, (uint64_t)10000);
	EXPECT_GT(want.n, (size_t)500);

	oracle_btrace_branches(prog, trace_name, source, &raw, &rec);
	/* The same output, but for the address line. */
	EXPECT_STREQ(strchr(rec.out, '\n'), strchr(q.out, '\n'));
	ASSERT_EQ(raw.n, (size_t)1);
	bias = oracle_load_bias(rec.out, &img);
	check(prog, &img, bias);
	oracle_filter_funcs(&raw.t[0].pairs, &img, bias, &got);
	oracle_expect_same(&want, &got, &img, who);

	oracle_raw_free(&raw);
	harness_cmd_free(&q);
	harness_cmd_free(&rec);
	oracle_pairs_free(&all);
	oracle_pairs_free(&want);
	oracle_pairs_free(&got);
	oracle_image_close(&img);
	free(prog);
}
