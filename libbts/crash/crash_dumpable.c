// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A crash trace holds what a core dump holds (registers, stacks, code,
 * the path of every branch), so it follows the kernel's rule for core
 * dumps: a process that is not dumpable (PR_SET_DUMPABLE 0, or one that
 * changed its credentials) gets none when fs.suid_dumpable is 0; with 1
 * (debug) or 2 (suidsafe) the kernel dumps it, and its trace is written,
 * a private file as every crash trace is.
 *
 * The dumpable flag of another process is not in /proc as a field, but
 * the kernel shows it: a non-dumpable process's /proc/PID/ files belong
 * to root (task_dump_owner).  So a process whose effective uid is not 0
 * and whose /proc/PID/status is root's is not dumpable.  A non-dumpable
 * process running as root cannot be told apart this way; its trace is
 * written, 0600 and root's, readable by root alone as its memory is.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "crash/crash.h"

static int read_int(const char *path, int fallback)
{
	FILE *f = fopen(path, "r");
	int v;

	if (!f)
		return fallback;
	if (fscanf(f, "%d", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

/* The effective uid from /proc/PID/status, or -1. */
static long effective_uid(pid_t pid)
{
	char path[64], line[256];
	long real, eff = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld %ld", &real, &eff) == 2)
			break;
	fclose(f);
	return eff;
}

bool bts_crash_refused(pid_t pid)
{
	char path[64];
	struct stat st;
	long euid = effective_uid(pid);

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (euid <= 0 || stat(path, &st) || st.st_uid != 0)
		return false;
	if (read_int("/proc/sys/fs/suid_dumpable", 0) != 0)
		return false;
	bts_fail(BTS_E_PERM, "not written: the process is not dumpable "
		 "(PR_SET_DUMPABLE 0, or changed credentials), and the kernel "
		 "writes no core dump for it (fs.suid_dumpable 0)");
	return true;
}
