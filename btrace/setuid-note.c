// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A set-user-ID or set-group-ID program started under ptrace runs without
 * those privileges unless its tracer may trace anything (CAP_SYS_PTRACE):
 * the kernel drops them at exec.  Said once, before the program runs, so
 * that a program failing for want of them is not a mystery.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrace.h"

#define CAP_SYS_PTRACE_BIT	19

static bool may_trace_anything(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long caps = 0;
	char line[256];

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ull << CAP_SYS_PTRACE_BIT);
}

/* @prog as execvp() would find it, into @out; false when not found. */
static bool find_program(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(prog, '/')) {
		snprintf(out, len, "%s", prog);
		return true;
	}
	for (p = path ? path : "/usr/bin:/bin"; p; p = *end ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		snprintf(out, len, "%.*s%s%s", (int)(end - p), p,
			 end == p ? "" : "/", prog);
		if (!access(out, X_OK))
			return true;
	}
	return false;
}

void note_setuid(const char *cmd, const char *prog)
{
	char path[PATH_MAX];
	struct stat st;
	bool uid, gid;

	if (!find_program(prog, path, sizeof(path)) || stat(path, &st) ||
	    may_trace_anything())
		return;
	uid = (st.st_mode & S_ISUID) && st.st_uid != geteuid();
	gid = (st.st_mode & S_ISGID) && st.st_gid != getegid();
	if (uid || gid)
		error("%s: note: %s is set-%s-ID; traced, it runs without those "
		      "privileges (the kernel drops them for a traced program)",
		      cmd, prog, uid ? "user" : "group");
}
