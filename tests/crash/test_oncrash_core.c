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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../e2e/core_dump.h"
#include "../e2e/raw_dump.h"
#include "test_oncrash.h"

#define PAGE 4096

TEST(oncrash_core, the_core_dump_is_written_without_int3s_beside_the_trace)
{
	unsigned char orig[PAGE], dumped[PAGE];
	char *dir, *pattern, *exe, *core, *trace;
	char *bt = BTRACE_PATH(), *prog = PROG_PATH("speed-core");
	struct raw_labels labels;
	struct harness_cmd cmd;
	struct bts_trace *t;
	const char *c;
	char *argv[8];

	core_require_cwd_pattern();
	dir = harness_path(harness_tmpdir(), "cores");
	pattern = harness_path(dir, "%e.%p.btr");
	ASSERT_EQ(mkdir(dir, 0700), 0);
	argv[0] = bt;
	argv[1] = "record";
	argv[2] = "--on-crash";
	argv[3] = "-o";
	argv[4] = pattern;
	argv[5] = "--";
	argv[6] = prog;
	argv[7] = NULL;
	core_run_in(dir, argv, &cmd);
	if (harness_exit_code(&cmd) != 128 + SIGABRT)
		FAIL("btrace record --on-crash speed-core exited with %d; stderr:\n%s",
		     harness_exit_code(&cmd), cmd.err);
	raw_labels_parse(cmd.out, &labels);
	c = strstr(cmd.out, "changed ");
	ASSERT_TRUE(c != NULL);
	/* The tracer's int3s were in the page while the program ran. */
	EXPECT_GT(atoi(c + 8), 0);
	exe = PROG_PATH("speed-core");
	core_file_bytes(exe, raw_label(&labels, "page") - raw_label(&labels, "base"),
			orig, sizeof(orig));
	core = core_find(dir);
	if (!core)
		FAIL("no core file in %s; stderr:\n%s", dir, cmd.err);
	ASSERT_TRUE(core_read(core, raw_label(&labels, "page"), dumped, sizeof(dumped)));
	EXPECT_EQ(memcmp(dumped, orig, sizeof(orig)), 0);
	/* The crash trace of the same death is there and names SIGABRT. */
	trace = crash_find_file(dir, "speed-core.");
	if (!trace)
		FAIL("no crash trace in %s; stderr:\n%s", dir, cmd.err);
	ASSERT_EQ(bts_trace_open(trace, &t), 0);
	ASSERT_TRUE(bts_trace_crashed(t) > 0);
	ASSERT_TRUE(bts_trace_crash(t, bts_trace_crashed(t)) != NULL);
	EXPECT_EQ(bts_trace_crash(t, bts_trace_crashed(t))->signo, SIGABRT);
	bts_trace_close(t);
	raw_labels_free(&labels);
	harness_cmd_free(&cmd);
	unlink(core);
	free(trace);
	free(core);
	free(exe);
	free(pattern);
	free(dir);
	free(bt);
	free(prog);
}
