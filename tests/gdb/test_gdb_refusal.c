// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace gdbserver refused as record is: the line `btrace info` prints
 * for the check that refuses it, before anything starts.  The machine is
 * fabricated (BTS_PROC_ROOT, BTS_SYSFS_ROOT), as in tests/e2e/test_info.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_root.h"

#define TIMEOUT 60

#define YAMA3 "ptrace is disabled: /proc/sys/kernel/yama/ptrace_scope is 3, which only " \
	"a reboot undoes; boot with kernel.yama.ptrace_scope set to 2 or less"

/* An Intel machine whose Yama refuses every ptrace (scope 3). */
static void yama3_machine(void)
{
	fake_root_intel("3\n", "2\n", "Not affected\n", "[none]\n");
}

/* `btrace gdbserver ARGS...` in the fabricated tree: its exit code. */
static int gdbserver(struct harness_cmd *cmd, const char *a, const char *b,
		     const char *c)
{
	char *argv[] = { BTRACE_PATH(), "gdbserver", (char *)a, (char *)b,
			 (char *)c, NULL };

	fake_root_run(argv, TIMEOUT, cmd);
	free(argv[0]);
	return harness_exit_code(cmd);
}

TEST(gdb_refusal, yama_3_says_the_line_of_info)
{
	char *prog = PROG_PATH("gdb-seq"), pid[16];
	struct harness_cmd c;

	yama3_machine();
	EXPECT_EQ(gdbserver(&c, "--", prog, NULL), 1);
	EXPECT_STREQ(c.err, "btrace: gdbserver: " YAMA3 "\n");
	EXPECT_EQ(c.out_len, 0u);
	harness_cmd_free(&c);
	/* Attaching: the same line, and the process is never touched. */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	EXPECT_EQ(gdbserver(&c, "--attach", pid, NULL), 1);
	EXPECT_STREQ(c.err, "btrace: gdbserver: " YAMA3 "\n");
	EXPECT_EQ(c.out_len, 0u);
	harness_cmd_free(&c);
	free(prog);
}
