// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace selftest in the guest: on QEMU's own CPU, kmod-step against
 * ptrace-step; on the virtual CPU with BTS (make test-vcpu), every source
 * that works there (kmod-bts, kmod-pebs, kmod-step, perf-bts) against
 * ptrace-step, kmod-pebs's samples against its branch records, and the
 * machine as the report shows it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"
#include "harness.h"
#include "kt.h"
#include "kt_hw.h"

/* btrace selftest's report (exit 0 wanted), malloc'ed. */
static char *selftest(void)
{
	struct harness_cmd c;
	char *out;
	int code;

	code = harness_btrace(&c, 300, "selftest", NULL);
	fprintf(stderr, "%s%s", c.out, c.err);
	EXPECT_EQ(code, 0);
	EXPECT_STREQ(c.err, "");
	out = c.out;
	c.out = NULL;
	harness_cmd_free(&c);
	return out;
}

static void expect_line(const char *report, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(report, want))
		harness_fail(__FILE__, __LINE__, "no line '%s' in the report", line);
}

/* The line of @work and @source starts with @verdict. */
static void expect_verdict(const char *report, const char *work,
			   const char *source, const char *verdict)
{
	char want[128];

	snprintf(want, sizeof(want), "\n%-10s %-12s %s", work, source, verdict);
	if (!strstr(report, want))
		harness_fail(__FILE__, __LINE__, "no '%s %s %s' in the report",
			     work, source, verdict);
}

TEST(btrace, selftest_kmod_step_agrees_with_ptrace_step)
{
	char *r = selftest();

	expect_line(r, "kmod-step   available");
	expect_line(r, "ptrace-step available");
	expect_verdict(r, "branches", "kmod-step", "agrees (");
	expect_verdict(r, "signal", "kmod-step", "agrees (");
	expect_line(r, "result      all agree (2 comparisons)");
	free(r);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * The NMI watchdog (a perf event on the PMU) is turned off for the run, as
 * a user checking kmod-pebs would: with it on, kmod-pebs is not run.
 */
TEST(vcpu, selftest_every_source_agrees)
{
	static const char *const works[] = { "branches", "signal" };
	static const char *const srcs[] = { "kmod-bts", "kmod-pebs", "kmod-step",
					    "perf-bts" };
	int wd = kt_watchdog_set("0");
	size_t w, s;
	char *r;

	ASSERT_GE(wd, 0);
	r = selftest();
	if (wd)
		kt_watchdog_set("1");
	expect_line(r, "cpu-flags   ds yes, dtes64 yes, bts yes, pebs yes, pdcm yes, pti off");
	EXPECT_TRUE(strstr(r, "\ncpu         GenuineIntel family 6 model 94 stepping 3: ") != NULL);
	EXPECT_TRUE(strstr(r, "\nperf        PEBS fmt") != NULL);
	expect_line(r, "pmu         skylake");
	expect_line(r, "module      ptrace_bts loaded");
	expect_line(r, "kmod-pebs   available");
	for (w = 0; w < 2; w++)
		for (s = 0; s < 4; s++)
			expect_verdict(r, works[w], srcs[s], "agrees (");
	EXPECT_TRUE(harness_matches_lines("^branches   kmod-pebs    PEBS [1-9][0-9]+ "
					  "samples, one every 7 of [0-9]+ branches$", r));
	EXPECT_TRUE(harness_matches_lines("^signal     kmod-pebs    PEBS [1-9][0-9]* "
					  "samples, one every 7 of [0-9]+ branches$", r));
	expect_line(r, "result      all agree (10 comparisons)");
	free(r);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_klog_bad(), 0);
}
