// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptrace-step under gdb runs the program at full speed until gdb's
 * `record btrace bts`: no step and no int3 of the source's before it.
 * gdb-lazy counts the context switches of a 100000-iteration loop (every
 * ptrace stop is one, so a stepped loop costs at least 100000); the
 * history recorded after the enable is then exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"

TEST(gdb_lazy, no_step_before_record_btrace)
{
	static const char *const cmds[] = {
		"break lazy_done", "continue",
		"python print('@@switches', int(gdb.parse_and_eval('lazy_switches')))",
		"record btrace bts", "finish", "next",
		"echo @@begin calls\\n", "record function-call-history",
		"echo @@end calls\\n", "continue", NULL,
	};
	struct harness_cmd cmd;
	const char *p;
	char *calls;
	long n;

	gdb_run(&cmd, "gdb-lazy", NULL, cmds);
	p = strstr(cmd.out, "@@switches ");
	ASSERT_TRUE(p != NULL);
	n = strtol(p + 11, NULL, 10);
	/* A few for the program's own syscalls; a stepped loop: >= 100000. */
	EXPECT_TRUE(n >= 0 && n < 1000);
	calls = gdb_section(&cmd, "calls");
	EXPECT_STREQ(calls, "1\tlazy_done\n2\tmain\n3\tlazy_after\n4\tmain\n");
	gdb_expect_exit(&cmd, "exited normally");
	if (n >= 1000)
		FAIL("the loop cost %ld context switches: it was stepped", n);
	free(calls);
	harness_cmd_free(&cmd);
}
