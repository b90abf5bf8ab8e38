// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace gdbserver --source: the sources a debugger can drive (ptrace-step
 * and kmod-step), one clear line for the others, and kmod-step refused as
 * record refuses it where the module is not loaded.  The stub over
 * kmod-step itself is tested in the guest (tests/kernel/test_gdbserver.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fake_root.h"

#define TIMEOUT 60

TEST(gdb_kmod, kmod_step_refused_without_the_module)
{
	char *argv[] = { BTRACE_PATH(), "gdbserver", "--source", "kmod-step",
			 "--", PROG_PATH("gdb-seq"), NULL };
	struct harness_cmd c;

	/* An Intel machine where everything but the module is fine. */
	fake_root_intel("0\n", "2\n", "Not affected\n", "[none]\n");
	fake_root_run(argv, TIMEOUT, &c);
	EXPECT_EQ(harness_exit_code(&c), 1);
	EXPECT_STREQ(c.err, "btrace: gdbserver: the ptrace_bts module is not "
		     "loaded: the kmod sources need it; load it with 'modprobe "
		     "ptrace_bts' (see README: DKMS)\n");
	EXPECT_EQ(c.out_len, 0u);
	harness_cmd_free(&c);
	free(argv[0]);
	free(argv[5]);
}

TEST(gdb_kmod, other_sources_are_usage_errors)
{
	static const char *const sources[] = { "perf-bts", "kmod-bts", "kmod-pebs" };
	char *btrace = BTRACE_PATH();
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		char *argv[] = { btrace, "gdbserver", "--source",
				 (char *)sources[i], "--", "x", NULL };
		struct harness_cmd c;
		char want[160];

		if (harness_run(argv, TIMEOUT, &c))
			FAIL("cannot run btrace");
		snprintf(want, sizeof(want), "btrace: gdbserver: --source %s: gdb "
			 "can drive the ptrace-step and kmod-step sources only\n",
			 sources[i]);
		EXPECT_EQ(harness_exit_code(&c), 2);
		EXPECT_STREQ(c.err, want);
		EXPECT_STREQ(c.out, "");
		harness_cmd_free(&c);
	}
	free(btrace);
}
