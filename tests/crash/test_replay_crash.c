// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace replay on crash traces (btrace record --on-crash): it starts at
 * the crash point; reverse-stepping from the crash reaches the call site
 * of the faulting function; bt at the crash is the report's backtrace, and
 * elsewhere that backtrace adjusted by the calls and returns in between;
 * threads are selected by number; damaged files give one error line.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_replay.h"

/* The backtrace lines ("#...") of the crashing thread in `btrace report FILE`. */
static char *report_frames(const char *btr)
{
	const char *args[] = { "report", btr, NULL };
	struct harness_cmd cmd;
	char *section, *frames;
	const char *p, *end;

	rp_btrace(args, 0, &cmd);
	/* the crashing thread's section comes first; it ends at the next one */
	p = strstr(cmd.out, "\nthread ");
	ASSERT_TRUE(p != NULL);
	end = strstr(p + 1, "\nthread ");
	section = end ? strndup(p, end - p) : strdup(p);
	frames = rp_grep(section, "#");
	free(section);
	harness_cmd_free(&cmd);
	return frames;
}

TEST(replay_crash, starts_at_crash_and_reverse_steps_to_call_site)
{
	struct harness_cmd rec, rp;
	char line[256], want[64];
	uint64_t pos[8];
	char *btr = rp_record("crash-deep", 1, &rec);
	int fault = rp_source_line("crash-deep.c", "*p = 42;");
	int call = rp_source_line("crash-deep.c", "level3(p);");

	rp_replay(btr, "rsi\nsi\nreverse-finish\ninfo position\n", 0, &rp);
	EXPECT_TRUE(strstr(rp.out, "Program terminated with signal SIGSEGV, "
			   "Segmentation fault.") != NULL);
	EXPECT_TRUE(strstr(rp.out, ", the crash point.") != NULL);
	ASSERT_EQ(rp_positions(rp.out, pos, 8), (size_t)5);
	/* the crash point: level3's store, on its source line */
	rp_line(rp.out, "", 3, line, sizeof(line));
	snprintf(want, sizeof(want), "crash-deep.c:%d\t", fault);
	EXPECT_TRUE(strstr(line, want) != NULL);
	EXPECT_TRUE(strstr(rp.out, "=> ") && strstr(strstr(rp.out, "=> "), "<level3+"));
	/* one instruction back: the call of level3 in level2, on its line */
	EXPECT_EQ(pos[1], pos[0] - 1);
	snprintf(want, sizeof(want), "crash-deep.c:%d\t", call);
	EXPECT_TRUE(strstr(rp.out, want) != NULL);
	{
		char *insns = rp_grep(rp.out, "");
		const char *p = strstr(insns, "\t=> ");

		p = strstr(p + 1, "\t=> ");	/* the second position */
		ASSERT_TRUE(p != NULL);
		EXPECT_TRUE(!strncmp(strstr(p, "<"), "<level2+", 8));
		EXPECT_TRUE(strstr(p, ">:\tcall ") == strchr(strchr(p, '<'), '>'));
		free(insns);
	}
	/* forward again to the crash; reverse-finish reaches the same call */
	EXPECT_EQ(pos[2], pos[0]);
	EXPECT_EQ(pos[3], pos[0] - 1);
	EXPECT_EQ(pos[4], pos[0] - 1);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

static size_t count_frames(const char *s)
{
	size_t n = 0;

	for (const char *p = s; (p = strchr(p, '#')); p++)
		n += p == s || p[-1] == '\n';
	return n;
}

/* The source line of the @i-th position line ("FILE:LINE\t..." above it). */
static int position_line(const char *out, size_t i)
{
	const char *prev = NULL, *l;

	for (l = out; l && *l; prev = l, l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;

		strtoull(l, &end, 10);
		if (end == l || strncmp(end, "\t=> ", 4) || i--)
			continue;
		ASSERT_TRUE(prev != NULL && strchr(prev, ':') != NULL);
		return atoi(strchr(prev, ':') + 1);
	}
	FAIL("no position %zu", i);
}

/*
 * reverse-next from the crash leaves level3's start for the call site in
 * level2, goes back over level2's lines, then leaves for level1's call.
 */
TEST(replay_crash, reverse_next)
{
	struct harness_cmd rec, rp;
	uint64_t pos[8];
	char *btr = rp_record("crash-deep", 1, &rec);
	int l3 = rp_source_line("crash-deep.c", "level3(p);");
	int l2 = rp_source_line("crash-deep.c", "level2(p);");

	rp_replay(btr, "rn\nrn\nrn\n", 0, &rp);
	ASSERT_EQ(rp_positions(rp.out, pos, 8), (size_t)4);
	EXPECT_EQ(pos[1], pos[0] - 1);
	EXPECT_EQ(position_line(rp.out, 1), l3);
	EXPECT_LT(pos[2], pos[1]);
	EXPECT_LT(pos[3], pos[2]);
	EXPECT_EQ(position_line(rp.out, 3), l2);
	EXPECT_TRUE(strstr(strstr(rp.out, "\t=> "), "<level1+") != NULL);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/*
 * bt at the crash is the report's backtrace; one instruction back (in
 * level2, about to call level3) it loses level3 and starts at the call.
 */
TEST(replay_crash, bt_matches_report)
{
	struct harness_cmd rec, rp;
	char line[256], fn[64];
	char *btr = rp_record("crash-deep", 1, &rec);
	char *report = report_frames(btr), *at_crash, *back;
	static const char *const funcs[] = { "level3", "level2", "level1", "main" };

	for (size_t i = 0; i < 4; i++) {
		rp_line(report, "#", i, line, sizeof(line));
		EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), funcs[i]);
	}
	rp_replay(btr, "bt\nrsi\nbt\n", 0, &rp);
	/* the replay's "#" lines: the first bt, then the second */
	at_crash = rp_grep(rp.out, "#");
	back = strstr(at_crash + 1, "\n#0 ");
	ASSERT_TRUE(back != NULL);
	back[0] = 0;
	EXPECT_EQ(strncmp(at_crash, report, strlen(report) - 1), 0);
	EXPECT_EQ(strlen(at_crash), strlen(report) - 1);
	back++;
	/* after rsi: #0 level2 at the call, then the report's #2 onwards */
	rp_line(back, "#0", 0, line, sizeof(line));
	EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), "level2");
	/* the same frames (renumbered) from level1 on */
	EXPECT_EQ(count_frames(back) + 1, count_frames(report));
	for (size_t i = 1; i < count_frames(back); i++) {
		char other[256];

		rp_line(back, "#", i, line, sizeof(line));
		rp_line(report, "#", i + 1, other, sizeof(other));
		EXPECT_STREQ(line + 4, other + 4);
	}
	free(at_crash);
	free(report);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/* The crashing thread is current and named; the others can be selected. */
TEST(replay_crash, threads)
{
	struct harness_cmd rec, rp;
	char line[256];
	char *btr = rp_record("crash-threads", 1, &rec);
	size_t listed = 0, crashed = 0;

	rp_replay(btr, "info threads\nthread 1\nbt\nthread 3\ninfo position\n", 0, &rp);
	/* "* N    thread TID (process PID)[  [crashed]]": the main thread and
	 * three others, the crashing one current */
	for (const char *l = rp.out; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if ((l[0] != '*' && l[0] != ' ') || l[1] != ' ' || l[2] < '1' || l[2] > '9')
			continue;
		listed++;
		if (!strncmp(l + strcspn(l, "\n") - 9, "[crashed]", 9)) {
			crashed++;
			EXPECT_EQ(l[0], '*');
		}
	}
	EXPECT_EQ(listed, (size_t)4);
	EXPECT_EQ(crashed, (size_t)1);
	EXPECT_TRUE(strstr(rp.out, "[Switching to thread 1 (thread ") != NULL);
	EXPECT_TRUE(strstr(rp.out, "[Switching to thread 3 (thread ") != NULL);
	/* the crashing thread starts at its store in crasher; the main
	 * thread's stack holds main */
	rp_line(rp.out, "At instruction ", 0, line, sizeof(line));
	EXPECT_TRUE(strstr(line, ", the crash point.") != NULL);
	EXPECT_TRUE(strstr(rp.out, "<crasher+") != NULL);
	EXPECT_TRUE(strstr(rp.out, " in main () at ") != NULL);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/* @len bytes of @src into tmpdir/@name; with @flip, one byte of it changed. */
static char *damaged(const char *src, const char *name, off_t len, off_t flip)
{
	char *dst = harness_path(harness_tmpdir(), name);
	int in = open(src, O_RDONLY), out;
	char *buf = malloc(len);

	ASSERT_TRUE(in >= 0 && buf != NULL);
	ASSERT_EQ(pread(in, buf, len, 0), (ssize_t)len);
	close(in);
	if (flip >= 0)
		buf[flip] ^= 0xff;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_TRUE(out >= 0);
	ASSERT_EQ(write(out, buf, len), (ssize_t)len);
	close(out);
	free(buf);
	return dst;
}

/*
 * A truncated or corrupted crash file: report and replay each say so in
 * one line naming the file, print nothing else and exit 1.
 */
TEST(replay_crash, damaged_files)
{
	struct harness_cmd rec, cmd;
	struct stat st;
	char *btr = rp_record("crash-deep", 1, &rec);
	char *files[4];

	ASSERT_EQ(stat(btr, &st), 0);
	files[0] = damaged(btr, "half.btr", st.st_size / 2, -1);
	files[1] = damaged(btr, "short.btr", st.st_size - 1, -1);
	files[2] = damaged(btr, "magic.btr", st.st_size, 0);
	files[3] = damaged(btr, "tiny.btr", 5, -1);
	for (size_t i = 0; i < 4; i++) {
		const char *report[] = { "report", files[i], NULL };
		const char *replay[] = { "replay", files[i], NULL };

		rp_btrace(report, 1, &cmd);
		EXPECT_EQ(cmd.out_len, (size_t)0);
		EXPECT_EQ((size_t)(strchr(cmd.err, '\n') - cmd.err) + 1, cmd.err_len);
		EXPECT_TRUE(strstr(cmd.err, files[i]) != NULL);
		harness_cmd_free(&cmd);
		rp_btrace(replay, 1, &cmd);
		EXPECT_EQ(cmd.out_len, (size_t)0);
		EXPECT_EQ((size_t)(strchr(cmd.err, '\n') - cmd.err) + 1, cmd.err_len);
		EXPECT_TRUE(strstr(cmd.err, files[i]) != NULL);
		harness_cmd_free(&cmd);
		free(files[i]);
	}
	harness_cmd_free(&rec);
	free(btr);
}

/* list, history and calls around the crash point. */
TEST(replay_crash, views)
{
	struct harness_cmd rec, rp;
	char line[256], want[64];
	char *btr = rp_record("crash-deep", 1, &rec);
	int fault = rp_source_line("crash-deep.c", "*p = 42;");
	char *calls;

	rp_replay(btr, "list\nhistory 3\ncalls 3\n", 0, &rp);
	/* list: ten lines, the crash's line sixth (as gdb centres it) */
	snprintf(want, sizeof(want), "%d\t\t*p = 42;", fault);
	EXPECT_TRUE(strstr(rp.out, want) != NULL);
	snprintf(want, sizeof(want), "%d\t", fault - 5);
	rp_line(rp.out, want, 0, line, sizeof(line));
	snprintf(want, sizeof(want), "%d\t", fault + 4);
	rp_line(rp.out, want, 0, line, sizeof(line));
	/* history 3 at the last instruction: the two before it, then it */
	{
		uint64_t pos[4];

		ASSERT_EQ(rp_positions(rp.out, pos, 4), (size_t)2);
		snprintf(want, sizeof(want), "%" PRIu64 "\t   0x", pos[0] - 2);
		rp_line(rp.out, want, 0, line, sizeof(line));
		EXPECT_TRUE(strstr(line, "<level2+") != NULL);
		snprintf(want, sizeof(want), "%" PRIu64 "\t   0x", pos[0] - 1);
		rp_line(rp.out, want, 0, line, sizeof(line));
		EXPECT_TRUE(strstr(line, "<level2+") != NULL);
	}
	/* calls 3: level1, level2, and level3 marked current */
	calls = rp_grep(rp.out, "   ");
	EXPECT_TRUE(strstr(calls, "level1\tinst ") != NULL);
	EXPECT_TRUE(strstr(calls, "level2\tinst ") != NULL);
	rp_line(rp.out, "=> ", 0, line, sizeof(line));
	EXPECT_TRUE(strstr(line, "level3\tinst ") != NULL);
	free(calls);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/*
 * A flight recorder keeps only the newest records: the history starts
 * with a gap, where bt says so; from the crash back to level1's call the
 * stack is still whole.
 */
TEST(replay_crash, ring_history)
{
	struct harness_cmd rec, rp;
	char *btr = harness_path(harness_tmpdir(), "ring.btr");
	char *prog = PROG_PATH("crash-deep");
	const char *args[] = { "record", "-o", btr, "--on-crash", "--keep", "40",
			       "--", prog, NULL };
	char line[256], fn[64];

	rp_btrace(args, 128 + 11, &rec);
	rp_replay(btr, "goto begin\nbt\ngoto end\nreverse-finish\nreverse-finish\nbt\n",
		  0, &rp);
	EXPECT_TRUE(strstr(rp.out, "\n1\t[decode error (1): lost ") != NULL);
	EXPECT_TRUE(strstr(rp.out, "\n#0  <a gap in the history>\n") != NULL);
	/* after two reverse-finishes: in level1 at its call of level2 */
	rp_line(rp.out, "#0  0x", 0, line, sizeof(line));
	EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), "level1");
	rp_line(rp.out, "#1  0x", 0, line, sizeof(line));
	EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), "main");
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(prog);
	free(btr);
}
