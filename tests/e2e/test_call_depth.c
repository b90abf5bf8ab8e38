// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Call depth in code without names (libbts/decode/segments.c): a return goes back
 * to the call whose return address it lands on, not to the innermost
 * caller without a name.  strip-depth is stripped: its recursion and the
 * trampoline it calls through are unnamed, and its depth is known
 * (strip-depth-asm.S): depth_target runs 34 levels below main, ten times,
 * and main goes on at its own level afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

/* The number after "\"KEY\":" in the JSON line at @line. */
static long json_long(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

static bool json_func(const char *line, const char *name)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "\"func\":\"%s\"", name);
	return strstr(line, pat) != NULL;
}

TEST(call_depth, returns_match_call_sites_in_stripped_code)
{
	struct harness_cmd cmd;
	long main_first = -1, main_last = -1, max = -1, targets = 0;
	long target_level = -1;
	char *btr = raw_record("strip-depth", NULL, 0, &cmd);
	char *line, *save;

	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "dump", "--calls", "--json", btr,
				 NULL), 0);
	for (line = strtok_r(cmd.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long level = json_long(line, "level");

		if (json_func(line, "main")) {
			if (main_first < 0)
				main_first = level;
			main_last = level;
		} else if (main_first >= 0 && level > max) {
			max = level;
		}
		if (json_func(line, "depth_target")) {
			targets++;
			if (target_level >= 0 && level != target_level)
				FAIL("depth_target at level %ld, then %ld",
				     target_level, level);
			target_level = level;
		}
	}
	ASSERT_GE(main_first, 0L);
	EXPECT_EQ(main_last, main_first);
	EXPECT_EQ(targets, 10L);
	EXPECT_EQ(target_level, main_first + 34);
	EXPECT_EQ(max, main_first + 34);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}

/* `btrace dump [OPT1 [OPT2]] BTR` prints @want (a format for the program's path). */
static void expect_in_dump(const char *btr, const char *opt1, const char *opt2,
			   const char *want, const char *prog)
{
	struct harness_cmd cmd;
	char line[4200];

	snprintf(line, sizeof(line), want, prog);
	if (!opt1)
		ASSERT_EQ(harness_btrace(&cmd, 60, "dump", btr, NULL), 0);
	else if (!opt2)
		ASSERT_EQ(harness_btrace(&cmd, 60, "dump", opt1, btr, NULL), 0);
	else
		ASSERT_EQ(harness_btrace(&cmd, 60, "dump", opt1, opt2, btr, NULL), 0);
	if (!strstr(cmd.out, line))
		FAIL("dump %s %s: no '%s'", opt1 ? opt1 : "", opt2 ? opt2 : "", line);
	harness_cmd_free(&cmd);
}

/* `btrace report --last 300 [OPT] BTR` prints @want (a format for the path). */
static void expect_in_report(const char *btr, const char *opt, const char *want,
			     const char *prog)
{
	struct harness_cmd cmd;
	char line[4200];

	snprintf(line, sizeof(line), want, prog);
	if (opt)
		ASSERT_EQ(harness_btrace(&cmd, 60, "report", "--last", "300", opt,
					 btr, NULL), 0);
	else
		ASSERT_EQ(harness_btrace(&cmd, 60, "report", "--last", "300", btr,
					 NULL), 0);
	if (!strstr(cmd.out, line))
		FAIL("report %s: no '%s'", opt ? opt : "", line);
	harness_cmd_free(&cmd);
}

/*
 * An unnamed function is named by its file, as gdb's "?? () from FILE",
 * in every view: the branches, the calls and the instructions, text and
 * JSON, and in report's branches and calls.
 */
TEST(call_depth, unnamed_code_names_its_file)
{
	char *prog = PROG_PATH("strip-depth");
	struct harness_cmd cmd;
	char *btr = raw_record("strip-depth", NULL, 0, &cmd);

	harness_cmd_free(&cmd);
	expect_in_dump(btr, NULL, NULL, "<?? from %s>  ->  0x", prog);
	expect_in_dump(btr, "--calls", NULL, "\t?? from %s\n", prog);
	expect_in_dump(btr, "--calls", "--json",
		       "\"func\":null,\"object\":\"%s\",", prog);
	expect_in_dump(btr, "--json", NULL, "\"from_object\":\"%s\",\"to\":", prog);
	expect_in_dump(btr, "--insns", "--json", "\"object\":\"%s\",\"asm\":", prog);
	expect_in_report(btr, NULL, "<?? from %s>  ->  0x", prog);
	expect_in_report(btr, NULL, " ?? from %s\tinst ", prog);
	expect_in_report(btr, "--json", "\"from_object\":\"%s\",", prog);
	expect_in_report(btr, "--json", "\"func\":null,\"object\":\"%s\",", prog);
	unlink(btr);
	free(btr);
	free(prog);
}
