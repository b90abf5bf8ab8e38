// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The qemu-user oracle for both ways ptrace-step can run: branch stops
 * (the default, which test_oracle.c checks) and the single-step reference
 * (BTS_STEP_MODE=single), on the static program, record for record.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

static void single_step_branches(const char *prog, struct oracle_raw *raw)
{
	char *btrace = BTRACE_PATH();
	char *trace = harness_path(harness_tmpdir(), "modes.btr");
	char *rargv[] = { btrace, "record", "--mode", "block", "-o", trace,
			  "--", (char *)prog, NULL };
	char *dargv[] = { btrace, "dump", "--raw", trace, NULL };
	struct harness_cmd rec, dump;
	char err[ORACLE_ERR];

	ASSERT_EQ(setenv("BTS_STEP_MODE", "single", 1), 0);
	ASSERT_EQ(harness_run(rargv, 60, &rec), 0);
	unsetenv("BTS_STEP_MODE");
	if (harness_exit_code(&rec) != 0)
		FAIL("btrace record exited with %d: %s", harness_exit_code(&rec),
		     rec.err);
	EXPECT_STREQ(rec.out, "static-oracle ok\n");
	ASSERT_EQ(harness_run(dargv, 60, &dump), 0);
	ASSERT_EQ(harness_exit_code(&dump), 0);
	if (oracle_raw_parse(dump.out, raw, err, sizeof(err)))
		FAIL("btrace dump --raw: %s", err);
	harness_cmd_free(&rec);
	harness_cmd_free(&dump);
	free(trace);
	free(btrace);
}

TEST(oracle, static_program_single_stepped)
{
	char *prog = PROG_PATH("static-oracle");
	char *log = harness_path(harness_tmpdir(), "modes-qemu.log");
	struct oracle_pairs want = { 0 };
	struct qemu_log_stats st;
	struct oracle_image img;
	struct oracle_raw raw;
	struct harness_cmd q;
	char err[ORACLE_ERR];
	long idx;

	if (oracle_image_open(prog, &img, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_EQ(qemu_run(prog, log, &q), 0);
	ASSERT_EQ(harness_exit_code(&q), 0);
	if (qemu_log_branches(log, &img, 0, &want, &st, err, sizeof(err)))
		FAIL("qemu log: %s", err);
	remove(log);
	EXPECT_GT(want.n, (size_t)3000);

	single_step_branches(prog, &raw);
	ASSERT_EQ(raw.n, (size_t)1);
	idx = oracle_first_diff(&want, &raw.t[0].pairs);
	if (idx >= 0) {
		char *report = oracle_report(&want, &raw.t[0].pairs, idx, &img, 0);

		harness_fail(__FILE__, __LINE__, "single steps differ from qemu: %s",
			     report);
		free(report);
	}
	oracle_raw_free(&raw);
	oracle_pairs_free(&want);
	oracle_image_close(&img);
	harness_cmd_free(&q);
	free(log);
	free(prog);
}
