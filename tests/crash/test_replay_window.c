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
