// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace selftest on the host: the report's machine lines, every source
 * listed, ptrace-step's workloads recorded, and a result line that agrees
 * with the verdicts above it (the guest's tests/kernel/test_selftest.c
 * compares the module's sources).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "btrace_run.h"

static bool has_line_start(const char *s, const char *start)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%s", start);
	return strstr(s, want) != NULL;
}

TEST(selftest, report_lists_the_machine_sources_and_verdicts)
{
	struct bts_source_info info[16];
	int n = bts_probe_sources(info, 16, sizeof(*info)), i, compared = 0;
	static const char *const machine[] = {
		"cpu         ", "microcode   ", "cpu-flags   ds ", "perf-caps   ",
		"kernel      Linux ", "module      ptrace_bts ",
	};
	struct harness_cmd c;
	char want[128];
	size_t k;

	ASSERT_GT(n, 0);
	EXPECT_EQ(harness_btrace(&c, 120, "selftest", NULL), 0);
	EXPECT_STREQ(c.err, "");
	EXPECT_TRUE(!strncmp(c.out, "btrace selftest, libbts ", 24));
	for (k = 0; k < sizeof(machine) / sizeof(machine[0]); k++)
		if (!has_line_start(c.out, machine[k]))
			harness_fail(__FILE__, __LINE__, "no '%s' line: %s",
				     machine[k], c.out);
	for (i = 0; i < n && i < 16; i++) {
		const char *name = bts_source_name(info[i].source);

		/* qemu-user runs programs from files: never a fork of btrace. */
		if (info[i].source == PTBTS_SOURCE_QEMU_USER)
			info[i].available = false;
		snprintf(want, sizeof(want), "%-11s %s", name,
			 info[i].available ? "available" : "not run: ");
		EXPECT_TRUE(has_line_start(c.out, want));
		if (!info[i].available || info[i].source == PTBTS_SOURCE_PTRACE_STEP)
			continue;
		compared += 2;
		snprintf(want, sizeof(want), "branches   %-12s agrees (", name);
		EXPECT_TRUE(has_line_start(c.out, want));
	}
	EXPECT_TRUE(has_line_start(c.out, "branches   ptrace-step  "));
	EXPECT_TRUE(has_line_start(c.out, "signal     ptrace-step  "));
	/* The handler's delivery and its sigreturn, left out of the count. */
	EXPECT_TRUE(strstr(c.out, " records, 2 signal and sigreturn (the reference)\n") != NULL);
	if (compared)
		snprintf(want, sizeof(want), "result      all agree (%d comparisons)\n",
			 compared);
	else
		snprintf(want, sizeof(want), "result      nothing to compare: "
			 "ptrace-step is the only source here\n");
	EXPECT_TRUE(has_line_start(c.out, want));
	harness_cmd_free(&c);
}

TEST(selftest, arguments_are_refused)
{
	struct harness_cmd c;

	EXPECT_EQ(harness_btrace(&c, 20, "selftest", "extra", NULL), 2);
	EXPECT_STREQ(c.err, "btrace: selftest: takes no arguments "
		     "(see 'btrace selftest --help')\n");
	EXPECT_STREQ(c.out, "");
	harness_cmd_free(&c);
}
