// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Threads held while a branch site's int3 is out (libbts/sources/ptrace-step/step_hold.c)
 * under the debugger: the stub's inferior hands their reports on as the
 * session's own loop does, so none stays stopped.  In speed-lift one
 * thread passes a jmp 5000 times while another makes that very jmp fault
 * (each fault lifts the int3 and holds the passer), then the passer exits.
 */
#include <string.h>

#include "gdb_util.h"

TEST(gdb_lift, held_threads_run_on_to_the_end)
{
	static const char *const cmds[] = {
		"handle SIGSEGV nostop noprint pass", "continue", NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "speed-lift", NULL, cmds);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	gdb_expect_out(&cmd, "exited normally]");
	/* The program's output goes to the stub's stderr, gdb's. */
	if (!strstr(cmd.err, "passes 5000\nfaults "))
		FAIL("speed-lift did not finish:\n%s", cmd.err);
	if (strstr(cmd.err, "btrace:"))
		FAIL("the stub complained:\n%s", cmd.err);
	harness_cmd_free(&cmd);
}
