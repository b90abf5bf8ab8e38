// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The views of a trace recorded with --skip libc.so.6 from a program that
 * calls strlen 2000 times (skip-strlen): the call history alternates the
 * program's code with a filtered region thousands of times, so its array
 * of segments grows (256, 512, ...) just as a code segment follows a gap.
 * stats, report and dump --calls read it whole, and the history holds one
 * filtered gap per call.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

#define CALLS 2000

static char *record_strlen(void)
{
	const char *opts[] = { "--skip", "libc.so.6", NULL };
	struct harness_cmd cmd;
	char *btr = raw_record("skip-strlen", opts, 0, &cmd);

	harness_cmd_free(&cmd);
	return btr;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

TEST(skip_views, stats_report_and_calls_read_many_filtered_regions)
{
	char *btr = record_strlen();
	const char *views[][3] = {
		{ "stats", btr, NULL },
		{ "report", btr, NULL },
		{ "dump", "--calls", btr },
	};
	struct harness_cmd cmd;

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		EXPECT_EQ(harness_btrace(&cmd, 60, views[i][0], views[i][1],
					 views[i][2], NULL), 0);
		EXPECT_TRUE(strstr(cmd.err, "Sanitizer") == NULL);
		if (strstr(cmd.err, "Sanitizer"))
			harness_fail(__FILE__, __LINE__, "%s:\n%.2000s",
				     views[i][0], cmd.err);
		if (i == 2)
			EXPECT_GE(count(cmd.out, "filtered"), (size_t)CALLS);
		harness_cmd_free(&cmd);
	}
	unlink(btr);
	free(btr);
}
