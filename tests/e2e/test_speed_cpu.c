// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --cpu (libbts/session/placement.c): the program sees the affinity
 * the placement gives it: one CPU with auto (the default) and with N, its
 * own mask with none.  A CPU that is not there is refused.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

static int program_cpus(const char *opt, const char *val)
{
	const char *opts[] = { opt, val, NULL };
	struct harness_cmd cmd;
	const char *c;
	char *btr;
	int n = -1;

	ASSERT_EQ(setenv("SPEED_SPIN", "cpus", 1), 0);
	btr = raw_record("speed-spin", opts, 0, &cmd);
	unsetenv("SPEED_SPIN");
	c = strstr(cmd.out, "cpus ");
	if (c)
		n = atoi(c + 5);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
	return n;
}

static int my_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	return CPU_COUNT(&set);
}

static int my_first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

TEST(speed_cpu, placement_is_what_the_program_sees)
{
	char cpu[16];

	snprintf(cpu, sizeof(cpu), "%d", my_first_cpu());
	EXPECT_EQ(program_cpus(NULL, NULL), 1);
	EXPECT_EQ(program_cpus("--cpu", "auto"), 1);
	EXPECT_EQ(program_cpus("--cpu", cpu), 1);
	EXPECT_EQ(program_cpus("--cpu", "none"), my_cpus());
}

static void expect_refused(const char *val, const char *msg)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("speed-spin");
	char *out = harness_path(harness_tmpdir(), "cpu-refused.btr");
	char *argv[] = { btrace, "record", "-o", out, "--cpu", (char *)val,
			 "--", prog, NULL };
	struct harness_cmd cmd;

	ASSERT_EQ(harness_run(argv, 30, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 125);
	if (!strstr(cmd.err, msg))
		FAIL("--cpu %s: no \"%s\" in:\n%s", val, msg, cmd.err);
	EXPECT_EQ(access(out, F_OK), -1);
	harness_cmd_free(&cmd);
	free(btrace);
	free(prog);
	free(out);
}

TEST(speed_cpu, a_cpu_that_is_not_there_is_refused)
{
	expect_refused("1023", "CPU 1023 is not available here");
	expect_refused("4096", "expected a CPU number");
	expect_refused("first", "expected a CPU number");
	expect_refused("-1", "expected a CPU number");
}
