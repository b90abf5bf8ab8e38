// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kmod-step source where the module is not loaded (the host: the tests
 * never load it; tests/kernel/test_btrace.c records with it in QEMU):
 * asking for it is a clear -BTS_E_NOSOURCE, and auto falls back to
 * ptrace-step.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include "bts.h"
#include "harness.h"

TEST(kmod, step_without_module_is_nosource)
{
	char *argv[] = { "/bin/true", NULL };
	BTS_OPTS(bts_session_opts, o, .source = PTBTS_SOURCE_KMOD_STEP);
	struct bts_session *s = NULL;
	struct stat st;

	ASSERT_NE(stat(PTBTS_DEVICE, &st), 0);
	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_NOSOURCE);
	EXPECT_STREQ(bts_errdetail(),
		     "kmod-step: " PTBTS_DEVICE " not present: module not loaded");
	EXPECT_TRUE(s == NULL);
}

TEST(kmod, auto_falls_back_to_ptrace_step)
{
	char *argv[] = { "/bin/true", NULL };
	BTS_OPTS(bts_session_opts, o, .source = BTS_SOURCE_AUTO);
	struct bts_session_stats st;
	struct bts_session *s = NULL;

	ASSERT_EQ(bts_session_new_spawn(argv, &o, &s), 0);
	EXPECT_EQ(bts_session_run(s), 0);
	bts_session_stats(s, &st, sizeof(st));
	EXPECT_EQ(st.source, PTBTS_SOURCE_PTRACE_STEP);
	EXPECT_TRUE(st.exited && WIFEXITED(st.status) && WEXITSTATUS(st.status) == 0);
	bts_session_free(s);
}
