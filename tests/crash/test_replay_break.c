// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace replay's gdb commands for moving by places: break FUNC,
 * FILE:LINE and *ADDR, continue and reverse-continue to them, step and
 * reverse-step into calls, bt N, info breakpoints and sharedlibrary, on
 * replay-steps (main -> outer -> inner twice, then strlen).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_replay.h"

#define SRC "replay-steps.c"

static int mark(const char *what)
{
	char text[64];

	snprintf(text, sizeof(text), "/* MARK:%s */", what);
	return rp_source_line(SRC, text);
}

/* The first instruction of each call of @func, from dump --calls. */
static size_t calls_of(const char *btr, const char *func, uint64_t *first,
		       size_t max)
{
	const char *args[] = { "dump", "--calls", "--insn-range", "--function",
			       func, btr, NULL };
	struct harness_cmd cmd;
	size_t n = 0;

	rp_btrace(args, 0, &cmd);
	for (const char *p = strstr(cmd.out, "\tinst "); p && n < max;
	     p = strstr(p + 1, "\tinst "))
		first[n++] = strtoull(p + 6, NULL, 10);
	harness_cmd_free(&cmd);
	return n;
}

/* The source line numbers where each motion stopped ("FILE:N\t" lines). */
static size_t stop_lines(const char *out, int *v, size_t max)
{
	size_t n = 0;

	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *c = strstr(l, SRC ":");

		if (l[0] == '/' && c && c < strchr(l, '\n') && n < max)
			v[n++] = atoi(c + strlen(SRC) + 1);
	}
	return n;
}

TEST(replay_break, continue_and_reverse_continue_stop_at_breakpoints)
{
	struct harness_cmd rec, rp;
	char *btr = rp_record("replay-steps", 0, &rec);
	uint64_t inner[4], pos[16];
	char script[512], want[256];

	ASSERT_EQ(calls_of(btr, "inner", inner, 4), (size_t)2);
	snprintf(script, sizeof(script),
		 "goto begin\n"
		 "break inner\n"
		 "break " SRC ":%d\n"
		 "continue\n"		/* inner, first call */
		 "c\n"			/* inner, second call */
		 "continue\n"		/* main-2 */
		 "continue\n"		/* the end */
		 "reverse-continue\n"	/* main-2 */
		 "rc\n"			/* inner, second call */
		 "info breakpoints\n",
		 mark("main-2"));
	rp_replay(btr, script, 0, &rp);
	EXPECT_STREQ(rp.err, "");
	/* pos[0]: where the replay starts, the end of the history */
	ASSERT_EQ(rp_positions(rp.out, pos, 16), (size_t)8);
	EXPECT_EQ(pos[1], 1u);
	EXPECT_EQ(pos[2], inner[0]);
	EXPECT_EQ(pos[3], inner[1]);
	EXPECT_TRUE(pos[4] > inner[1]);
	EXPECT_EQ(pos[5], pos[0]);
	EXPECT_EQ(pos[6], pos[4]);
	EXPECT_EQ(pos[7], inner[1]);
	EXPECT_TRUE(strstr(rp.out, "\nNo more reverse-execution history.\n") != NULL);
	snprintf(want, sizeof(want), "\nBreakpoint 1, inner () at %s/tests/progs/"
		 SRC ":%d\n", BTS_SRC_DIR, mark("inner"));
	EXPECT_TRUE(strstr(rp.out, want) != NULL);
	snprintf(want, sizeof(want), ": file %s/tests/progs/" SRC ", line %d.\n",
		 BTS_SRC_DIR, mark("main-2"));
	EXPECT_TRUE(strstr(rp.out, want) != NULL);
	EXPECT_TRUE(strstr(rp.out, "\nNum     Address            What\n1       0x") != NULL);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/* *ADDR stops where FUNC does; delete forgets a breakpoint. */
TEST(replay_break, address_breakpoints_and_delete)
{
	struct harness_cmd rec, rp;
	char *btr = rp_record("replay-steps", 0, &rec);
	char script[512], *line;
	uint64_t inner[4], pos[16];
	const char *p;
	unsigned long long addr;

	ASSERT_EQ(calls_of(btr, "inner", inner, 4), (size_t)2);
	rp_replay(btr, "break inner\n", 0, &rp);
	p = strstr(rp.out, "Breakpoint 1 at 0x");
	ASSERT_TRUE(p != NULL);
	addr = strtoull(p + 16, NULL, 16);
	harness_cmd_free(&rp);
	snprintf(script, sizeof(script),
		 "goto begin\nbreak *0x%llx\ncontinue\ndelete 1\ncontinue\n"
		 "info breakpoints\n", addr);
	rp_replay(btr, script, 0, &rp);
	ASSERT_EQ(rp_positions(rp.out, pos, 16), (size_t)4);
	EXPECT_EQ(pos[2], inner[0]);
	EXPECT_EQ(pos[3], pos[0]);	/* nothing stops it: the end */
	line = rp_grep(rp.out, "No breakpoints.");
	EXPECT_STREQ(line, "No breakpoints.\n");
	free(line);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(replay_break, step_and_reverse_step_enter_calls)
{
	struct harness_cmd rec, rp;
	char *btr = rp_record("replay-steps", 0, &rec);
	int lines[32], want[] = {
		mark("outer-start"),	/* the breakpoint */
		mark("outer-1"), mark("inner"), mark("inner-end"),
		mark("outer-2"), mark("inner"), mark("inner-end"),
		mark("outer-3"),	/* the return lands on a line of its own */
		mark("inner-end"), mark("inner"),	/* reverse-step: into inner */
		mark("outer-2"), mark("inner-end"), mark("inner"),
		mark("outer-1"),
	};
	size_t n;

	rp_replay(btr, "goto begin\nbreak outer\ncontinue\n"
		  "step\ns\nstep\nstep\nstep\nstep\nstep\n"
		  "reverse-step\nrs\nreverse-step\nreverse-step\nreverse-step\n"
		  "reverse-step\n", 0, &rp);
	EXPECT_STREQ(rp.err, "");
	n = stop_lines(rp.out, lines, 32);
	ASSERT_EQ(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		if (lines[i] != want[i])
			FAIL("stop %zu: line %d, expected %d", i, lines[i], want[i]);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(replay_break, bt_honours_its_limit)
{
	struct harness_cmd rec, rp;
	char *btr = rp_record("replay-steps", 0, &rec);
	char *all, *two, *last, *more;

	rp_replay(btr, "goto begin\nbreak inner\ncontinue\nbt\n", 0, &rp);
	all = rp_grep(rp.out, "#");
	harness_cmd_free(&rp);
	rp_replay(btr, "goto begin\nbreak inner\ncontinue\nbt 2\n", 0, &rp);
	two = rp_grep(rp.out, "#");
	more = rp_grep(rp.out, "(More stack frames follow...)");
	harness_cmd_free(&rp);
	rp_replay(btr, "goto begin\nbreak inner\ncontinue\nbt -1\n", 0, &rp);
	last = rp_grep(rp.out, "#");
	harness_cmd_free(&rp);

	/* #0 inner, #1 outer, #2 main, then libc's frames down to _start. */
	ASSERT_TRUE(strstr(all, " in inner () at ") && strstr(all, "\n#1  ") &&
		    strstr(all, " in outer () at ") && strstr(all, " in main () at "));
	EXPECT_EQ(strncmp(all, two, strlen(two)), 0);
	EXPECT_TRUE(strstr(two, "\n#1  ") && !strstr(two, "\n#2  "));
	EXPECT_STREQ(more, "(More stack frames follow...)\n");
	EXPECT_TRUE(strchr(last, '\n') == last + strlen(last) - 1 &&
		    strstr(last, " in _start ()\n"));
	EXPECT_TRUE(strlen(all) > strlen(last) &&
		    !strcmp(all + strlen(all) - strlen(last), last));
	free(all);
	free(two);
	free(last);
	free(more);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(replay_break, info_sharedlibrary_lists_the_libraries)
{
	struct harness_cmd rec, rp;
	char *btr = rp_record("replay-steps", 0, &rec);
	char *head, *libc, *ld, *prog;

	rp_replay(btr, "info sharedlibrary\n", 0, &rp);
	head = rp_grep(rp.out, "From ");
	libc = rp_grep(rp.out, "0x");
	EXPECT_STREQ(head, "From                To                  Syms Read   "
			   "Shared Object Library\n");
	/* ld.so and libc, once each, read from their files; not the program. */
	ld = strstr(libc, "  Yes         /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n");
	EXPECT_TRUE(ld != NULL);
	EXPECT_TRUE(strstr(libc, "  Yes         /usr/lib/x86_64-linux-gnu/libc.so.6\n"));
	prog = strstr(libc, "replay-steps");
	EXPECT_TRUE(prog == NULL);
	EXPECT_TRUE(strchr(libc, '\n') && strchr(strchr(libc, '\n') + 1, '\n') &&
		    !strchr(strchr(strchr(libc, '\n') + 1, '\n') + 1, '\n'));
	free(head);
	free(libc);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(replay_break, bad_breakpoints)
{
	static const struct {
		const char *script, *err;
	} bad[] = {
		{ "break\n", "btrace: break: FUNC, FILE:LINE or *ADDR\n" },
		{ "break nosuch\n", "btrace: break: \"nosuch\" is not in the history of thread " },
		{ "break " SRC ":999\n", "btrace: break: \"" SRC ":999\" is not in the history of thread " },
		{ "delete 7\n", "btrace: delete: no breakpoint number 7\n" },
		{ "bt two\n", "btrace: bt: N or -N (frames from the innermost or the "
			      "outermost), not 'two'\n" },
		{ "continue 2\n", "btrace: continue takes no argument\n" },
	};
	struct harness_cmd rec, rp;
	char *btr = rp_record("replay-steps", 0, &rec);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rp_replay(btr, bad[i].script, 1, &rp);
		if (strncmp(rp.err, bad[i].err, strlen(bad[i].err)))
			FAIL("%s: got \"%s\", expected \"%s\"", bad[i].script,
			     rp.err, bad[i].err);
		harness_cmd_free(&rp);
	}
	harness_cmd_free(&rec);
	free(btr);
}

/* @text holds @word where a word starts (after a space), followed by @end. */
static bool has_word(const char *text, const char *word, const char *end)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		if (p > text && p[-1] == ' ' && strchr(end, p[n]))
			return true;
	return false;
}

/*
 * replay --help names every command of the prompt's own list ("help"),
 * with the arguments it takes.
 */
TEST(replay_break, help_names_every_prompt_command)
{
	struct harness_cmd rec, rp, help;
	char *btr = rp_record("replay-steps", 0, &rec);
	const char *args[] = { "replay", "--help", NULL };
	size_t n = 0;

	rp_replay(btr, "help\n", 0, &rp);
	rp_btrace(args, 0, &help);
	for (const char *l = strstr(rp.out, "\n  "); l; l = strstr(l + 1, "\n  ")) {
		char name[32], arg[64], head[100];
		int got = sscanf(l + 3, "%31s %63s", name, arg);

		/* Not a command: a continued text, the closing sentence. */
		if (got < 1 || l[3] == ' ' || !islower((unsigned char)name[0]))
			continue;
		/* ARGS: "[N]", "N|begin|end", "FUNC|...": not the text's first word. */
		if (got == 2 && (arg[0] == '[' || isupper((unsigned char)arg[0]) ||
				 strchr(arg, '|')))
			snprintf(head, sizeof(head), "%s %s", name, arg);
		else
			snprintf(head, sizeof(head), "%s", name);
		if (!has_word(help.out, head, " ,\n"))
			FAIL("replay --help does not name \"%s\":\n%s", head, help.out);
		n++;
	}
	EXPECT_GT(n, (size_t)20);
	harness_cmd_free(&help);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}
