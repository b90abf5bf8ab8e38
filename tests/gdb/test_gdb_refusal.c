// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace gdbserver refused as record is: the line `btrace info` prints
 * for the check that refuses it, before anything starts.  The machine is
 * fabricated (BTS_PROC_ROOT, BTS_SYSFS_ROOT), as in tests/e2e/test_info.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define TIMEOUT 60

#define YAMA3 "ptrace is disabled: /proc/sys/kernel/yama/ptrace_scope is 3, which only " \
	"a reboot undoes; boot with kernel.yama.ptrace_scope set to 2 or less"

static void fab(const char *rel, const char *content)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", harness_tmpdir(), rel);
	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		FAIL("cannot create %s", path);
	fputs(content, f);
	fclose(f);
}

/* An Intel machine whose Yama refuses every ptrace (scope 3). */
static void yama3_machine(void)
{
	fab("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n"
	    "cpu family\t: 6\nmodel\t\t: 60\n\n");
	fab("proc/self/status", "Name:\tbtrace\nCapEff:\t0000000000000000\nSeccomp:\t0\n");
	fab("proc/sys/kernel/yama/ptrace_scope", "3\n");
	fab("proc/sys/kernel/perf_event_paranoid", "2\n");
	fab("sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
	fab("sys/kernel/security/lockdown", "[none]\n");
}

/* `btrace gdbserver ARGS...` in the fabricated tree: its exit code. */
static int gdbserver(struct harness_cmd *cmd, const char *a, const char *b,
		     const char *c)
{
	char *argv[] = { BTRACE_PATH(), "gdbserver", (char *)a, (char *)b,
			 (char *)c, NULL };
	char root[4096];
	int ret;

	snprintf(root, sizeof(root), "%s/proc", harness_tmpdir());
	setenv("BTS_PROC_ROOT", root, 1);
	snprintf(root, sizeof(root), "%s/sys", harness_tmpdir());
	setenv("BTS_SYSFS_ROOT", root, 1);
	ret = harness_run(argv, TIMEOUT, cmd);
	unsetenv("BTS_PROC_ROOT");
	unsetenv("BTS_SYSFS_ROOT");
	free(argv[0]);
	if (ret)
		FAIL("cannot run btrace");
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
