// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --max-size and --duration (libbts/session/limits.c): a bounded
 * recording ends like a stopped one (the spawned program is killed: exit
 * 137), the file is complete, and the summary says why it was cut.  The
 * size bound is exact: SIZE / 24 records, not one more.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

static size_t total_records(const struct raw_dump *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->threads[i].n + d->threads[i].nmarkers;
	return n;
}

static void expect_cut(const char *opt, const char *val, const char *spin,
		       const char *why, size_t *records)
{
	const char *opts[] = { opt, val, NULL };
	struct harness_cmd cmd;
	struct raw_summary sum;
	struct raw_dump d;
	char *btr;

	ASSERT_EQ(setenv("SPEED_SPIN", spin, 1), 0);
	btr = raw_record("speed-spin", opts, 137, &cmd);
	unsetenv("SPEED_SPIN");
	if (!strstr(cmd.err, why))
		FAIL("no \"%s\" in the summary:\n%s", why, cmd.err);
	raw_summary_parse(cmd.err, &sum);
	raw_dump_load(btr, &d);
	ASSERT_EQ(d.n, (size_t)1);
	*records = total_records(&d);
	EXPECT_EQ(sum.records, (uint64_t)*records);
	raw_dump_free(&d);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}

TEST(limits, max_size_keeps_exactly_size_over_24_records)
{
	size_t n;

	expect_cut("--max-size", "2400", "spin", "; cut at --max-size", &n);
	EXPECT_EQ(n, (size_t)100);
	/* Not a multiple of 24: the records that fit whole. */
	expect_cut("--max-size=1K", NULL, "spin", "; cut at --max-size", &n);
	EXPECT_EQ(n, (size_t)(1024 / 24));
}

TEST(limits, duration_cuts_an_idle_program)
{
	size_t n;

	/* It sleeps: only btrace's timer can end this recording. */
	expect_cut("--duration", "0.2", "sleep", "; cut at --duration", &n);
	EXPECT_GT(n, (size_t)0);
}

TEST(limits, duration_cuts_a_busy_program)
{
	size_t n;

	expect_cut("--duration", "0.3", "spin", "; cut at --duration", &n);
	EXPECT_GT(n, (size_t)0);
}

TEST(limits, a_program_that_ends_first_is_not_cut)
{
	const char *opts[] = { "--duration", "60", "--max-size", "1G", NULL };
	struct harness_cmd cmd;
	char *btr;

	ASSERT_EQ(setenv("SPEED_SPIN", "cpus", 1), 0);
	btr = raw_record("speed-spin", opts, 0, &cmd);
	unsetenv("SPEED_SPIN");
	EXPECT_TRUE(strstr(cmd.err, "cut at") == NULL);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}

/*
 * Thirty recordings of limits-write by SOURCE, cut by OPT VAL: each one
 * kills the program at the cut (137), and none lets it run on to create
 * its file.
 */
static void expect_killed_at_cut(const char *source, const char *opt,
				 const char *val, const char *loops)
{
	char *file = harness_path(harness_tmpdir(), "limits-write.out");
	const char *opts[] = { "--source", source, opt, val, NULL };
	int survived = 0;

	ASSERT_EQ(setenv("LIMITS_FILE", file, 1), 0);
	ASSERT_EQ(setenv("LIMITS_LOOPS", loops, 1), 0);
	for (int i = 0; i < 30; i++) {
		struct harness_cmd cmd;
		char *btr;

		unlink(file);
		btr = raw_record("limits-write", opts, 137, &cmd);
		if (access(file, F_OK) == 0)
			survived++;
		harness_cmd_free(&cmd);
		unlink(btr);
		free(btr);
	}
	unsetenv("LIMITS_FILE");
	unsetenv("LIMITS_LOOPS");
	EXPECT_EQ(survived, 0);
	unlink(file);
	free(file);
}

TEST(limits, max_size_kills_the_program_at_the_cut)
{
	expect_killed_at_cut("ptrace-step", "--max-size", "1K", "0");
}

TEST(limits, duration_kills_the_program_at_the_cut)
{
	expect_killed_at_cut("ptrace-step", "--duration", "0.05", "20000");
}

/*
 * Under QEMU the plugin writes the records while the program runs on:
 * it must stop at the record past the bound, in every mode, until btrace
 * has seen it and killed the program.
 */
TEST(limits, qemu_user_max_size_kills_the_program_at_the_cut)
{
	expect_killed_at_cut("qemu-user", "--max-size", "1K", "0");
}

/* In ring mode too, where btrace reads nothing before the end otherwise. */
TEST(limits, qemu_user_max_size_kills_in_ring_mode)
{
	const char *opts[] = { "--source", "qemu-user", "--mode", "ring",
			       "--max-size", "1K", NULL };
	char *file = harness_path(harness_tmpdir(), "limits-write.out");
	struct harness_cmd cmd;
	struct raw_dump d;
	char *btr;

	ASSERT_EQ(setenv("LIMITS_FILE", file, 1), 0);
	unlink(file);
	btr = raw_record("limits-write", opts, 137, &cmd);
	unsetenv("LIMITS_FILE");
	EXPECT_EQ(access(file, F_OK), -1);
	if (!strstr(cmd.err, "; cut at --max-size"))
		FAIL("not cut at --max-size:\n%s", cmd.err);
	raw_dump_load(btr, &d);
	EXPECT_EQ(total_records(&d), (size_t)(1024 / 24));
	raw_dump_free(&d);
	harness_cmd_free(&cmd);
	unlink(btr);
	unlink(file);
	free(btr);
	free(file);
}

/* Cut before QEMU even loaded the plugin: a cut, not a refusal. */
TEST(limits, qemu_user_duration_kills_the_program_at_the_cut)
{
	expect_killed_at_cut("qemu-user", "--duration", "0.05", "20000");
}

/* btrace record OPT VAL -- speed-spin: exit 125, one error line, no file. */
static void expect_refused(const char *opt, const char *val, const char *msg)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("speed-spin");
	char *out = harness_path(harness_tmpdir(), "refused.btr");
	char *argv[] = { btrace, "record", "-o", out, (char *)opt, (char *)val,
			 "--", prog, NULL };
	struct harness_cmd cmd;

	ASSERT_EQ(harness_run(argv, 30, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 125);
	if (!strstr(cmd.err, msg))
		FAIL("%s %s: no \"%s\" in:\n%s", opt, val, msg, cmd.err);
	EXPECT_EQ(strchr(cmd.err, '\n'), cmd.err + cmd.err_len - 1);
	EXPECT_EQ(access(out, F_OK), -1);
	harness_cmd_free(&cmd);
	free(btrace);
	free(prog);
	free(out);
}

TEST(limits, bad_bounds_are_refused)
{
	expect_refused("--max-size", "10", "holds no record");
	expect_refused("--max-size", "ten", "not a size");
	expect_refused("--duration", "0", "seconds greater than 0");
	expect_refused("--duration", "-1", "seconds greater than 0");
	expect_refused("--duration", "soon", "seconds greater than 0");
	expect_refused("--duration", "nan", "seconds greater than 0");
}
