// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace replay holds a window of the history: the same script answers
 * the same, line for line, whether the window holds the whole history
 * (--window 10000000, decoded once as it loads) or 16 instructions (every
 * goto, step and backtrace past its edge decodes again from an index
 * point), with the index built in memory or read from the file (as
 * btrace record and btrace index write it), in one thread, across
 * threads, and at a crash, where bt joins the history's frames to the
 * unwound stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "btrace_run.h"
#include "test_replay.h"

/* Window edges (16, 17, 32, 33), far jumps both ways, bt at each. */
static const char one_thread[] =
	"bt\n"
	"reverse-stepi 40\n"
	"bt\n"
	"reverse-finish\n"
	"reverse-finish\n"
	"bt\n"
	"goto 100000\n"
	"bt\n"
	"stepi 17\n"
	"reverse-next\n"
	"reverse-step\n"
	"finish\n"
	"history 20\n"
	"goto 70000\n"
	"reverse-stepi\n"
	"bt\n"
	"goto 16\n"
	"stepi\n"
	"goto 33\n"
	"reverse-stepi\n"
	"bt\n"
	"next\n"
	"info position\n"
	"goto begin\n"
	"stepi 5\n"
	"goto end\n"
	"reverse-stepi 100\n"
	"calls 5\n"
	"bt\n";

static const char threads[] =
	"info threads\n"
	"thread 3\n"
	"goto 1000\n"
	"bt\n"
	"reverse-stepi 30\n"
	"bt\n"
	"thread 1\n"
	"goto 50000\n"
	"bt\n"
	"thread 5\n"
	"goto end\n"
	"reverse-finish\n"
	"bt\n"
	"history 10\n"
	"thread 2\n"
	"goto 2000\n"
	"reverse-stepi 5\n"
	"bt\n"
	"thread 1\n"
	"info position\n";

/* The output of @script over @btr with a window of @window instructions. */
static char *replay_out(const char *btr, const char *script, const char *window)
{
	char *sp = harness_path(harness_tmpdir(), "script"), *out;
	const char *args[] = { "replay", "--window", window, "-x", sp, btr, NULL };
	struct harness_cmd cmd;
	FILE *f = fopen(sp, "w");

	ASSERT_TRUE(f != NULL);
	fputs(script, f);
	fclose(f);
	rp_btrace(args, 0, &cmd);
	/* The first line names the file. */
	out = strdup(strchr(cmd.out, '\n'));
	ASSERT_TRUE(out != NULL);
	harness_cmd_free(&cmd);
	free(sp);
	return out;
}

/* A recording of @prog without the index btrace record writes. */
static char *record_unindexed(const char *prog, struct harness_cmd *cmd)
{
	char *btr = harness_path(harness_tmpdir(), "unindexed.btr");
	char *path = PROG_PATH(prog);
	const char *args[] = { "record", "--no-index", "-o", btr, "--", path, NULL };

	rp_btrace(args, 0, cmd);
	free(path);
	return btr;
}

static void same_answers(const char *prog, int crash, const char *script)
{
	struct bts_index_opts o = { .sz = sizeof(o), .interval = 64 };
	struct harness_cmd rec;
	char *btr = crash ? rp_record(prog, crash, &rec)
			  : record_unindexed(prog, &rec);
	char *whole = replay_out(btr, script, "10000000");
	char *small = replay_out(btr, script, "16");
	char *indexed;

	EXPECT_STREQ(small, whole);
	EXPECT_TRUE(strstr(whole, "#1  0x") != NULL);
	/* The index btrace record writes, then a denser one. */
	ASSERT_EQ(bts_trace_index_file(btr, NULL), 0);
	indexed = replay_out(btr, script, "16");
	EXPECT_STREQ(indexed, whole);
	free(indexed);
	ASSERT_EQ(bts_trace_index_file(btr, &o), 0);
	indexed = replay_out(btr, script, "16");
	EXPECT_STREQ(indexed, whole);
	free(indexed);
	free(small);
	free(whole);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(replay_window, a_small_window_answers_as_the_whole_history)
{
	same_answers("seq-calls", 0, one_thread);
}

TEST(replay_window, threads_keep_windows_of_their_own)
{
	same_answers("threads-count", 0, threads);
}

TEST(replay_window, at_a_crash_bt_joins_the_unwound_stack)
{
	same_answers("crash-deep", 1, one_thread);
}

TEST(replay_window, a_window_below_16_is_16)
{
	struct harness_cmd rec;
	char *btr = rp_record("seq-calls", 0, &rec);
	const char *script = "goto 20\nstepi 20\nreverse-stepi 3\nhistory 30\n";
	char *a = replay_out(btr, script, "1"), *b = replay_out(btr, script, "16");

	EXPECT_STREQ(a, b);
	EXPECT_TRUE(strstr(a, "\n40\t=> ") != NULL);
	free(a);
	free(b);
	harness_cmd_free(&rec);
	free(btr);
}

/* Into a handler and out, backtraces inside it and around it. */
static const char in_signal[] =
	"goto begin\n"
	"break on_usr2\n"
	"continue\n"
	"bt\n"
	"stepi 3\n"
	"bt\n"
	"break done\n"
	"continue\n"
	"bt\n"
	"reverse-stepi 30\n"
	"bt\n"
	"reverse-stepi 30\n"
	"bt\n"
	"reverse-stepi 30\n"
	"bt\n";

/*
 * A signal's frames from the index: with a point every 2 records, some
 * inside the handler, bt shows the handler, the signal frame and the
 * interrupted code as the whole history does.
 */
TEST(replay_window, signal_frames_come_from_the_points_inside_a_handler)
{
	struct bts_index_opts o = { .sz = sizeof(o), .interval = 2 };
	char *btr = harness_path(harness_tmpdir(), "signal.btr");
	char *prog = PROG_PATH("gdb-signal");
	const char *args[] = { "record", "--no-index", "-o", btr, "--", prog, NULL };
	struct harness_cmd rec;
	char *whole, *small;

	/* Its exit status is the program's: not what is tested here. */
	harness_btrace_argv(&rec, 120, args);
	ASSERT_TRUE(strstr(rec.err, "recorded 1 thread") != NULL);
	whole = replay_out(btr, in_signal, "10000000");
	ASSERT_EQ(bts_trace_index_file(btr, &o), 0);
	small = replay_out(btr, in_signal, "16");
	EXPECT_STREQ(small, whole);
	EXPECT_TRUE(strstr(whole, "#1  <signal handler called>\n#2  0x") != NULL);
	free(small);
	free(whole);
	harness_cmd_free(&rec);
	free(prog);
	free(btr);
}

/* The "decoded N" lines of @err (BTRACE_REPLAY_DECODED), in order. */
static size_t decoded_counts(const char *err, uint64_t *v, size_t max)
{
	size_t n = 0;
	unsigned long long x;

	for (const char *l = err; l && *l && n < max; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		if (sscanf(l, "decoded %llu", &x) == 1)
			v[n++] = x;
	}
	return n;
}

/* Instruction numbers that start lines of @out ("N\t=> "), in order. */
static size_t positions(const char *out, uint64_t *v, size_t max)
{
	size_t n = 0;
	unsigned long long x;
	int len;

	for (const char *l = out; l && *l && n < max; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		if (sscanf(l, "%llu\t=> %n", &x, &len) == 1 && len > 0)
			v[n++] = x;
	}
	return n;
}

/*
 * A recording of seq-calls (some 10^5 instructions) with an index of a
 * point every @interval records, the widest gap between its points in
 * instructions into *@widest.
 */
static char *indexed_seq_calls(uint64_t interval, uint64_t *widest)
{
	struct bts_index_opts o = { .sz = sizeof(o), .interval = interval };
	struct harness_cmd rec;
	char *btr = record_unindexed("seq-calls", &rec);
	struct bts_index_point a, b;
	struct bts_index *ix;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_index_file(btr, &o), 0);
	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_index_new(t, 0, NULL, &ix), 0);
	ASSERT_GT(bts_index_entries(ix), (uint64_t)100000);
	*widest = 0;
	for (size_t i = 1; i < bts_index_npoints(ix); i++) {
		ASSERT_EQ(bts_index_point(ix, i - 1, &a, sizeof(a)), 0);
		ASSERT_EQ(bts_index_point(ix, i, &b, sizeof(b)), 0);
		if (b.entry - a.entry > *widest)
			*widest = b.entry - a.entry;
	}
	bts_index_free(ix);
	bts_trace_free(t);
	harness_cmd_free(&rec);
	return btr;
}

/* replay --window @window -x @script @btr, counting what it decodes. */
static void replay_counted(const char *btr, const char *window,
			   const char *script, struct harness_cmd *cmd)
{
	char *sp = harness_path(harness_tmpdir(), "script");
	const char *args[] = { "replay", "--window", window, "-x", sp, btr, NULL };
	FILE *f = fopen(sp, "w");

	ASSERT_TRUE(f != NULL);
	fputs(script, f);
	fclose(f);
	ASSERT_EQ(setenv("BTRACE_REPLAY_DECODED", "1", 1), 0);
	rp_btrace(args, 0, cmd);
	unsetenv("BTRACE_REPLAY_DECODED");
	free(sp);
}

/*
 * bt away from a crash decodes from the index point before the position
 * (its return sites, then the calls and returns since), never the history
 * before it: with a 16-instruction window, at the end of a history of
 * some 10^5 instructions and in its middle, a backtrace decodes no more
 * than twice the widest gap between index points and a few windows.
 */
TEST(replay_window, a_backtrace_decodes_from_the_point_before_it)
{
	static const char script[] =
		"goto end\nreverse-stepi 40\nbt\ngoto 70000\nbt\n";
	struct harness_cmd cmd;
	uint64_t widest, d[8];
	char *btr = indexed_seq_calls(64, &widest);

	replay_counted(btr, "16", script, &cmd);
	ASSERT_EQ(decoded_counts(cmd.err, d, 8), (size_t)5);
	EXPECT_TRUE(strstr(cmd.out, "#1  0x") != NULL);
	EXPECT_LE(d[2] - d[1], 2 * widest + 4 * 16);
	EXPECT_LE(d[4] - d[3], 2 * widest + 4 * 16);
	EXPECT_LT((d[2] - d[1]) * 20, (uint64_t)100000);
	harness_cmd_free(&cmd);
	free(btr);
}

/*
 * Leaving a call passes over the stretches between index points that it
 * ran deeper than the frame left: reverse-finish out of
 * __libc_start_call_main (back over main and exit, some 10^4
 * instructions) and finish to the end decode only the stretches where
 * they start and stop, each refill at most the widest gap and a window;
 * a walk would decode every instruction between, and more.
 */
TEST(replay_window, leaving_a_long_call_decodes_only_its_ends)
{
	static const char script[] = "goto end\nreverse-finish\nreverse-finish\n"
		"reverse-finish\nreverse-finish\nfinish\n";
	struct harness_cmd cmd;
	uint64_t widest, d[8], at[8], bound;
	char *btr = indexed_seq_calls(16, &widest);

	replay_counted(btr, "256", script, &cmd);
	ASSERT_EQ(decoded_counts(cmd.err, d, 8), (size_t)6);
	/* The stop, then one line for each command. */
	ASSERT_EQ(positions(cmd.out, at, 8), (size_t)7);
	bound = 4 * (widest + 256);
	/* Back over main: a walk would have decoded more than the bound. */
	ASSERT_GT(at[4] - at[5], bound);
	EXPECT_LE(d[4] - d[3], bound);
	EXPECT_GT(at[6], at[5]);
	EXPECT_LE(d[5] - d[4], bound);
	harness_cmd_free(&cmd);
	free(btr);
}
