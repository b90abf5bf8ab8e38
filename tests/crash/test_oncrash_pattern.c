// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --on-crash -o PATTERN: a name that could not be written at
 * the crash is refused before the program runs (exit 125), since the one
 * crash trace wanted would be lost then.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_oncrash.h"

/* record --on-crash -o @pattern crash-deep: refused with exactly @want. */
static void expect_refused(const char *pattern, const char *want)
{
	const char *const args[] = { "--on-crash", "-o", pattern, NULL };
	struct harness_cmd c;

	crash_btrace(args, "crash-deep", NULL, &c);
	EXPECT_EQ(harness_exit_code(&c), 125);
	EXPECT_STREQ(c.err, want);
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 0);
	harness_cmd_free(&c);
}

TEST(oncrash_pattern, a_missing_directory_is_refused_at_start)
{
	char pattern[4096], want[8192];

	snprintf(pattern, sizeof(pattern), "%s/missing/%%e.%%p.btr",
		 harness_tmpdir());
	snprintf(want, sizeof(want), "btrace: record: --on-crash -o %s: "
		 "input/output error (cannot create a file in %s/missing: "
		 "No such file or directory)\n", pattern, harness_tmpdir());
	expect_refused(pattern, want);
}

/* 245 characters and the pid: no room for the writer's ".tmp.PID". */
TEST(oncrash_pattern, a_name_too_long_is_refused_at_start)
{
	char pattern[4096], want[8192], name[246];
	int n;

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	n = snprintf(pattern, sizeof(pattern), "%s/%s%%p", harness_tmpdir(), name);
	ASSERT_TRUE(n > 0 && n < (int)sizeof(pattern));
	snprintf(want, sizeof(want), "btrace: record: --on-crash -o %s: "
		 "invalid argument (%s/%s4194304: File name too long)\n",
		 pattern, harness_tmpdir(), name);
	expect_refused(pattern, want);
}

/* The probe leaves nothing behind, and a good pattern still records. */
TEST(oncrash_pattern, a_good_pattern_runs_and_leaves_no_probe)
{
	const char *const args[] = { "--on-crash", "-o", NULL, NULL };
	const char *argv[4];
	char pattern[4096];
	struct harness_cmd c;

	snprintf(pattern, sizeof(pattern), "%s/%%e.%%p.btr", harness_tmpdir());
	memcpy(argv, args, sizeof(args));
	argv[2] = pattern;
	crash_btrace(argv, "crash-deep", NULL, &c);
	EXPECT_EQ(harness_exit_code(&c), 139);
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 1);
	harness_cmd_free(&c);
}
