// SPDX-License-Identifier: GPL-2.0-or-later
/* The fabricated /proc and /sys trees of the refusal tests (fake_root.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_root.h"

void fake_root_file(const char *rel, const char *content)
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

void fake_root_enter(void)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/proc", harness_tmpdir());
	setenv("BTS_PROC_ROOT", p, 1);
	snprintf(p, sizeof(p), "%s/sys", harness_tmpdir());
	setenv("BTS_SYSFS_ROOT", p, 1);
}

void fake_root_leave(void)
{
	unsetenv("BTS_PROC_ROOT");
	unsetenv("BTS_SYSFS_ROOT");
}

void fake_root_intel(const char *yama, const char *paranoid,
		     const char *meltdown, const char *lockdown)
{
	fake_root_file("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n"
		       "cpu family\t: 6\nmodel\t\t: 60\n\n");
	fake_root_file("proc/self/status",
		       "Name:\tbtrace\nCapEff:\t0000000000000000\nSeccomp:\t0\n");
	fake_root_file("proc/sys/kernel/yama/ptrace_scope", yama);
	fake_root_file("proc/sys/kernel/perf_event_paranoid", paranoid);
	fake_root_file("sys/devices/system/cpu/vulnerabilities/meltdown", meltdown);
	fake_root_file("sys/kernel/security/lockdown", lockdown);
}

void fake_root_run(char *const argv[], int timeout, struct harness_cmd *cmd)
{
	int ret;

	fake_root_enter();
	ret = harness_run(argv, timeout, cmd);
	fake_root_leave();
	if (ret)
		FAIL("cannot run %s", argv[0]);
}
