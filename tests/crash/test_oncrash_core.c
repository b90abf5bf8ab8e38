// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --on-crash lets the fatal signal through once the crash
 * trace is written, so the process dies as it would have untraced, core
 * dump included, and the core holds none of the tracer's int3s:
 * speed-core (which dies of SIGABRT) runs with cores enabled in a fresh
 * directory; its code page in the core must equal the same bytes of its
 * file, and its crash trace must be there too.
 */
#include <signal.h>
#include <stdlib.h>

#include "../e2e/core_dump.h"
#include "test_oncrash.h"

TEST(oncrash_core, the_core_dump_is_written_without_int3s_beside_the_trace)
{
	char *bt = BTRACE_PATH(), *prog = PROG_PATH("speed-core");
	char *dir = core_dir_new(), *pattern = harness_path(dir, "%e.%p.btr");
	char *argv[] = { bt, "record", "--on-crash", "-o", pattern, "--", prog, NULL };
	struct harness_cmd cmd;
	struct bts_trace *t;
	char *trace;

	core_run_in(dir, argv, &cmd);
	core_expect_clean_page(dir, "speed-core", &cmd);
	/* The crash trace of the same death is there and names SIGABRT. */
	trace = crash_find_file(dir, "speed-core.");
	if (!trace)
		FAIL("no crash trace in %s; stderr:\n%s", dir, cmd.err);
	ASSERT_EQ(bts_trace_new(trace, &t), 0);
	ASSERT_TRUE(bts_trace_crashed(t) > 0);
	ASSERT_TRUE(bts_trace_crash(t, bts_trace_crashed(t)) != NULL);
	EXPECT_EQ(bts_trace_crash(t, bts_trace_crashed(t))->signo, SIGABRT);
	bts_trace_free(t);
	harness_cmd_free(&cmd);
	free(trace);
	free(pattern);
	free(dir);
	free(bt);
	free(prog);
}
