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
#include <sys/stat.h>
#include <unistd.h>

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

/* The one crash file in the test's directory, or NULL. */
static char *crash_file(struct harness_cmd *c, const char *prog, const char *arg)
{
	const char *const args[] = { "--on-crash", "-o", NULL, NULL };
	const char *const prog_args[] = { arg, NULL };
	const char *argv[4];
	char pattern[4096], prefix[64];

	snprintf(pattern, sizeof(pattern), "%s/%%e.%%p.btr", harness_tmpdir());
	memcpy(argv, args, sizeof(args));
	argv[2] = pattern;
	crash_btrace(argv, prog, arg ? prog_args : NULL, c);
	snprintf(prefix, sizeof(prefix), "%s.", prog);
	return crash_find_file(harness_tmpdir(), prefix);
}

/* It holds memory contents: 0600, as a core dump. */
TEST(oncrash_pattern, a_crash_trace_is_private)
{
	struct harness_cmd c;
	char *file = crash_file(&c, "crash-deep", NULL);
	struct stat st;

	ASSERT_TRUE(file != NULL);
	ASSERT_EQ(stat(file, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0600u);
	harness_cmd_free(&c);
	free(file);
}

static int suid_dumpable(void)
{
	FILE *f = fopen("/proc/sys/fs/suid_dumpable", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Not dumpable: as the kernel writes no core, btrace writes no trace. */
TEST(oncrash_pattern, a_process_that_is_not_dumpable_gets_no_trace)
{
	struct harness_cmd c;
	char *file;

	file = crash_file(&c, "crash-nodump", "1");
	EXPECT_TRUE(file != NULL);
	EXPECT_EQ(harness_exit_code(&c), 139);
	harness_cmd_free(&c);
	if (file)
		unlink(file);
	free(file);
	file = crash_file(&c, "crash-nodump", "0");
	if (suid_dumpable() != 0) {	/* 1 (debug), 2 (suidsafe): cores too */
		EXPECT_TRUE(file != NULL);
	} else {
		EXPECT_TRUE(file == NULL);
		if (!strstr(c.err, "no crash trace: ") ||
		    !strstr(c.err, "not written: the process is not dumpable"))
			FAIL("no refusal in: %s", c.err);
	}
	harness_cmd_free(&c);
	free(file);
}
