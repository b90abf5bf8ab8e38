// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record's kmod-pebs options on any machine: a bad event or period
 * is refused with its reason before anything runs, and so are the options
 * with another source; no trace file appears.  (What they do is tested on
 * the virtual CPU, tests/kernel/test_vcpu_pebs_btrace.c.)
 */
#include <stdlib.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"
#include "harness.h"

static void refused(const char *source, const char *opt, const char *arg,
		    const char *err)
{
	char *file = harness_path(harness_tmpdir(), "pebs.btr");
	struct harness_cmd c;

	EXPECT_EQ(harness_btrace(&c, 60, "record", "--source", source, opt, arg,
				 "-o", file, "--", "/bin/true", NULL), 125);
	EXPECT_STREQ(c.err, err);
	EXPECT_STREQ(c.out, "");
	EXPECT_NE(access(file, F_OK), 0);
	harness_cmd_free(&c);
	free(file);
}

#define EVENT_WANT "expected all-branches, near-taken or an event as 0xUUEE " \
		   "(unit mask UU, event select EE, not 0)\n"

TEST(pebs_options, bad_event_or_period_refused)
{
	refused("kmod-pebs", "--pebs-period", "0",
		"btrace: record: --pebs-period '0': expected 1 to 2147483647 events\n");
	refused("kmod-pebs", "--pebs-period", "2147483648",
		"btrace: record: --pebs-period '2147483648': expected 1 to "
		"2147483647 events\n");
	refused("kmod-pebs", "--pebs-period", "-5",
		"btrace: record: --pebs-period '-5': expected 1 to 2147483647 events\n");
	refused("kmod-pebs", "--pebs-event", "0x100",
		"btrace: record: --pebs-event '0x100': " EVENT_WANT);
	refused("kmod-pebs", "--pebs-event", "0x1c4c4",
		"btrace: record: --pebs-event '0x1c4c4': " EVENT_WANT);
	refused("kmod-pebs", "--pebs-event", "branches",
		"btrace: record: --pebs-event 'branches': " EVENT_WANT);
}

TEST(pebs_options, other_sources_take_none)
{
	static const char *const sources[] = { "auto", "kmod-bts", "kmod-step",
						"perf-bts", "ptrace-step" };

	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		refused(sources[i], "--pebs-period", "7",
			"btrace: record: --pebs-event and --pebs-period go with "
			"--source kmod-pebs\n");
		refused(sources[i], "--pebs-event", "near-taken",
			"btrace: record: --pebs-event and --pebs-period go with "
			"--source kmod-pebs\n");
	}
}

/* libbts itself refuses them too, before it looks for the source. */
TEST(pebs_options, session_refuses_them)
{
	char *argv[] = { "/bin/true", NULL };
	BTS_OPTS(bts_session_opts, o, .source = PTBTS_SOURCE_PTRACE_STEP,
		 .pebs_period = 7);
	struct bts_session *s;

	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "a PEBS event or period is for kmod-pebs "
		     "only, not ptrace-step");
	o.source = PTBTS_SOURCE_KMOD_PEBS;
	o.pebs_event = 0x2000;
	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "PEBS event 0x2000, period 7: an event "
		     "select (bits 0-7) of 0 is no event");
	o.pebs_event = 0;
	o.pebs_period = PTBTS_PEBS_PERIOD_MAX + 1;
	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "PEBS event 0xc4, period 2147483648: a "
		     "period is 1 to 2147483647 events");
}
