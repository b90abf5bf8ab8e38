// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Children and new images during a gdb session.  gdb 13 asks for fork and
 * vfork events, which the stub does not offer (it speaks multiprocess
 * thread ids, but holds no second process for gdb): as gdbserver does
 * without them, each child is let go at once, its copy of the code
 * without gdb's breakpoints or the source's int3s, and a vfork child runs
 * through them in the shared memory until it execs.  An
 * exec is reported (exec-events): gdb loads the new program's symbols and
 * sets its breakpoints again, and the history starts in the new image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"

/* Continues to the end; prints the v of every stop in in_both(). */
#define PY_VALUES							\
	"python vs = []\n"						\
	"def on_stop(ev):\n"						\
	"  if isinstance(ev, gdb.BreakpointEvent):\n"			\
	"    vs.append(str(gdb.parse_and_eval('v')))\n"		\
	"gdb.events.stop.connect(on_stop)\n"				\
	"for i in range(20):\n"						\
	"  try:\n"							\
	"    gdb.execute('continue', to_string=True)\n"		\
	"  except gdb.error:\n"						\
	"    break\n"							\
	"print('@@v', ','.join(vs))"

static void expect_parent_stops(const char *target)
{
	static const char *const cmds[] = {
		"break in_both", PY_VALUES, NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "gdb-fork", target, cmds);
	/* Only main's calls stop; both children ran and exited as they should. */
	gdb_expect_out(&cmd, "@@v 2,4\n");
	gdb_expect_exit(&cmd, "exited with code 06");
	harness_cmd_free(&cmd);
}

TEST(gdb_fork, children_run_free_of_breakpoints)
{
	expect_parent_stops(NULL);
}

TEST(gdb_fork, vfork_child_execs)
{
	char *target = gdb_target("gdb-fork", NULL), *t;

	if (asprintf(&t, "%s /bin/true", target) < 0)
		FAIL("out of memory");
	expect_parent_stops(t);
	free(t);
	free(target);
}

TEST(gdb_fork, exec_reported_and_followed)
{
	static const char *const cmds[] = {
		"break before_exec", "break after_exec", "continue",
		"record btrace bts", "continue",
		"python print('@@n', gdb.parse_and_eval('n'))",
		/* The history is the new image's: nothing from before exec. */
		"python h = gdb.current_recording().function_call_history\n"
		"n = [f.symbol.name for f in h if f.symbol]\n"
		"print('@@history', 'before_exec' in n, 'execv' in n, n[-1])",
		"record stop", "continue", NULL,
	};
	struct harness_cmd cmd;
	char *path = PROG_PATH("gdb-exec"), *line;

	gdb_run(&cmd, "gdb-exec", NULL, cmds);
	if (asprintf(&line, " is executing new program: %s\n", path) < 0)
		FAIL("out of memory");
	gdb_expect_process(&cmd, "", line);
	gdb_expect_out(&cmd, "@@n 3\n");
	gdb_expect_out(&cmd, "@@history False False main\n");
	gdb_expect_exit(&cmd, "exited with code 04");
	free(line);
	free(path);
	harness_cmd_free(&cmd);
}

/* gdb without exec events: the stub runs on through the exec, as gdbserver. */
TEST(gdb_fork, exec_unasked_runs_on)
{
	static const char *const cmds[] = {
		"break before_exec", "continue", "continue", NULL,
	};
	struct harness_cmd cmd;
	char *target = gdb_target("gdb-exec", NULL), *t;

	/* One command: the setting must come before the connection. */
	if (asprintf(&t, "python gdb.execute('set remote exec-event-feature-packet off'); "
		     "gdb.execute('%s')", target) < 0)
		FAIL("out of memory");
	gdb_run(&cmd, "gdb-exec", t, cmds);
	EXPECT_TRUE(strstr(cmd.out, "executing new program") == NULL);
	gdb_expect_exit(&cmd, "exited with code 04");
	free(t);
	free(target);
	harness_cmd_free(&cmd);
}
