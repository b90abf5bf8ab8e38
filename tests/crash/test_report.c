// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace report: on crash-deep (SIGSEGV three calls deep) it names the
 * signal, the fault address, the faulting function and line, the
 * backtrace, the last branches and the last calls in order; --last and
 * --json; a trace with no crash; bad command lines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_replay.h"

static void report(const char *btr, const char *opt1, const char *opt2,
		   struct harness_cmd *cmd)
{
	const char *args[] = { "report", btr, opt1, opt2, NULL };

	rp_btrace(args, 0, cmd);
}

/* The lines of @out after the line starting with @head, up to a blank or a heading. */
static char *section(const char *out, const char *head)
{
	const char *p = strstr(out, head), *end;

	if (!p)
		FAIL("no '%s' in:\n%s", head, out);
	p = strchr(p, '\n') + 1;
	for (end = p; *end && *end != '\n' && strncmp(end, "Last ", 5) &&
	     strncmp(end, "thread ", 7); end = strchr(end, '\n') + 1)
		;
	return strndup(p, end - p);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

TEST(report_crash, deep)
{
	struct harness_cmd rec, cmd;
	char line[512], fn[64], want[128];
	char *btr = rp_record("crash-deep", 1, &rec);
	int fault = rp_source_line("crash-deep.c", "*p = 42;");
	int l3 = rp_source_line("crash-deep.c", "level3(p);");
	int l2 = rp_source_line("crash-deep.c", "level2(p);");
	int l1 = rp_source_line("crash-deep.c", "level1((volatile");
	const int lines[] = { fault, l3, l2, l1 };
	static const char *const funcs[] = { "level3", "level2", "level1", "main" };
	char *bt, *calls, *branches;

	report(btr, NULL, NULL, &cmd);
	EXPECT_EQ(cmd.err_len, (size_t)0);
	/* what died and why */
	rp_line(cmd.out, "Process ", 0, line, sizeof(line));
	EXPECT_TRUE(strstr(line, "crash-deep) was killed by signal SIGSEGV "
			   "(Segmentation fault), SEGV_MAPERR, fault address 0x10.") != NULL);
	/* where: the faulting instruction in level3, with its source line */
	snprintf(want, sizeof(want), "crash-deep.c:%d\t", fault);
	rp_line(cmd.out, "Thread ", 0, line, sizeof(line));
	EXPECT_TRUE(strstr(line, " crashed here:") != NULL);
	EXPECT_TRUE(strstr(cmd.out, want) != NULL);
	EXPECT_TRUE(strstr(cmd.out, " <level3+0>:\tmovl ") != NULL);
	/* the backtrace, with symbols and lines */
	bt = section(cmd.out, "Backtrace:");
	for (size_t i = 0; i < 4; i++) {
		rp_line(bt, "#", i, line, sizeof(line));
		EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), funcs[i]);
		snprintf(want, sizeof(want), "crash-deep.c:%d", lines[i]);
		EXPECT_TRUE(strstr(line, want) != NULL);
	}
	/* the last branches: main -> level1 -> level2 -> level3 */
	branches = section(cmd.out, "Last 50 branches:");
	EXPECT_EQ(count_lines(branches), (size_t)50);
	{
		const char *last3 = branches;

		for (size_t k = 0; k < 47; k++)
			last3 = strchr(last3, '\n') + 1;
		EXPECT_TRUE(strstr(last3, "<main+") && strstr(last3, "->  0x") &&
			    strstr(last3, "<level1>"));
		EXPECT_TRUE(strstr(strstr(last3, "<level1>"), "<level2>") != NULL);
		EXPECT_TRUE(strstr(strstr(last3, "<level2>"), "<level3>") != NULL);
	}
	/* the last calls, in order, each a level deeper */
	calls = section(cmd.out, "function calls:");
	{
		const char *p = calls;
		size_t n = count_lines(calls);

		ASSERT_GE(n, (size_t)4);
		for (size_t k = 0; k < n - 4; k++)
			p = strchr(p, '\n') + 1;
		/* main's indentation: each call two spaces deeper */
		int base = (int)strspn(strchr(p, '\t') + 1, " ");

		for (size_t i = 0; i < 4; i++) {
			char seg[160];

			snprintf(want, sizeof(want), "\t%*s%s\tinst ",
				 base + (int)(2 * i), "", funcs[3 - i]);
			snprintf(seg, sizeof(seg), "%.*s", (int)strcspn(p, "\n"), p);
			if (!strstr(seg, want))
				FAIL("call %zu: '%s', expected '%s'", i, seg, want);
			p = strchr(p, '\n') + 1;
		}
	}
	free(bt);
	free(calls);
	free(branches);
	harness_cmd_free(&cmd);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(report_crash, last_and_json)
{
	struct harness_cmd rec, cmd;
	char *btr = rp_record("crash-deep", 1, &rec);
	char *branches;
	const char *p;

	report(btr, "--last", "3", &cmd);
	branches = section(cmd.out, "Last 3 branches:");
	EXPECT_EQ(count_lines(branches), (size_t)3);
	EXPECT_TRUE(strstr(cmd.out, "Last 3 function calls:") != NULL);
	free(branches);
	harness_cmd_free(&cmd);

	report(btr, "--json", NULL, &cmd);
	EXPECT_EQ(cmd.out[0], '{');
	EXPECT_STREQ(cmd.out + cmd.out_len - 3, "]}\n");
	EXPECT_TRUE(strstr(cmd.out, "\"signal\":\"SIGSEGV\",\"code\":1,"
			   "\"code_name\":\"SEGV_MAPERR\",\"addr\":\"0x10\"") != NULL);
	EXPECT_TRUE(strstr(cmd.out, "\"crashed\":true") != NULL);
	/* frames in order */
	p = strstr(cmd.out, "\"frames\":[");
	ASSERT_TRUE(p != NULL);
	p = strstr(p, "\"func\":\"level3\"");
	ASSERT_TRUE(p != NULL);
	p = strstr(p, "\"func\":\"level2\"");
	ASSERT_TRUE(p != NULL);
	p = strstr(p, "\"func\":\"level1\"");
	ASSERT_TRUE(p != NULL);
	p = strstr(p, "\"func\":\"main\"");
	ASSERT_TRUE(p != NULL);
	EXPECT_TRUE(strstr(cmd.out, "\"branches\":[") != NULL);
	EXPECT_TRUE(strstr(cmd.out, "\"calls\":[") != NULL);
	harness_cmd_free(&cmd);
	harness_cmd_free(&rec);
	free(btr);
}

/* A trace without a crash: how it ended, and the stack at its end. */
TEST(report_crash, no_crash)
{
	struct harness_cmd rec, cmd;
	char *btr = rp_record("seq-calls", 0, &rec);
	char line[256], fn[64];

	report(btr, "--last", "5", &cmd);
	rp_line(cmd.out, "No crash", 0, line, sizeof(line));
	EXPECT_TRUE(strstr(line, " exited with status 0.") != NULL);
	EXPECT_TRUE(strstr(cmd.out, "Backtrace (from the history):\n") != NULL);
	rp_line(cmd.out, "#0", 0, line, sizeof(line));
	EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), "_exit");
	harness_cmd_free(&cmd);
	report(btr, "--json", NULL, &cmd);
	EXPECT_TRUE(strstr(cmd.out, "\"crash\":null,\"threads\":[") != NULL);
	harness_cmd_free(&cmd);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(report_crash, bad_command_line)
{
	const char *const none[] = { "report", NULL };
	const char *const zero[] = { "report", "--last", "0", "x.btr", NULL };
	const char *const missing[] = { "report", "/nonexistent/x.btr", NULL };
	struct harness_cmd cmd;

	rp_btrace(none, 2, &cmd);
	harness_cmd_free(&cmd);
	rp_btrace(zero, 2, &cmd);
	harness_cmd_free(&cmd);
	rp_btrace(missing, 1, &cmd);
	EXPECT_EQ((size_t)(strchr(cmd.err, '\n') - cmd.err) + 1, cmd.err_len);
	EXPECT_TRUE(strstr(cmd.err, "/nonexistent/x.btr") != NULL);
	harness_cmd_free(&cmd);
}
