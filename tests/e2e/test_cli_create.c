// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace file that cannot be created is refused before the program runs,
 * with the reason the system gave, as cp and tar say it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "btrace_run.h"

#define TIMEOUT 60

static void expect_refused(const char *out, const char *why)
{
	char *prog = PROG_PATH("cli-exit"), want[512];
	struct harness_cmd c;

	snprintf(want, sizeof(want), "btrace: cannot create %s: %s\n", out, why);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", out, "--", prog,
				 "7", NULL), 125);
	EXPECT_STREQ(c.err, want);
	EXPECT_STREQ(c.out, "");
	harness_cmd_free(&c);
	free(prog);
}

TEST(cli_create, missing_directory_is_named_with_its_reason)
{
	expect_refused("/nonexistent-dir/x.btr", "No such file or directory");
}

TEST(cli_create, a_file_as_directory_is_named_with_its_reason)
{
	char *file = harness_path(harness_tmpdir(), "plain");
	char *out = harness_path(file, "x.btr");
	FILE *f = fopen(file, "w");

	ASSERT_TRUE(f);
	fclose(f);
	expect_refused(out, "Not a directory");
	free(out);
	free(file);
}
