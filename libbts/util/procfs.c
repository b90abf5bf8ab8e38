// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading /proc: the fields of status files and what they say of signals,
 * and opening a process's files there.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int bts_proc_open(pid_t pid, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int bts_status_field(const char *path, const char *field, int base,
		     unsigned long long *val)
{
	size_t len = strlen(field);
	char line[256];
	int err = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (err && fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, len) || line[len] != ':')
			continue;
		*val = strtoull(line + len + 1, NULL, base);
		err = 0;
	}
	fclose(f);
	return err;
}

int bts_proc_status(pid_t tid, const char *field, int base,
		    unsigned long long *val)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	return bts_status_field(path, field, base, val);
}

bool bts_proc_sig_in(pid_t tid, const char *mask_field, int sig)
{
	unsigned long long mask;

	if (sig < 1 || sig > 64 || bts_proc_status(tid, mask_field, 16, &mask))
		return false;
	return (mask >> (sig - 1)) & 1;
}

bool bts_proc_sig_fatal(pid_t tid, int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	default:
		break;
	}
	return !bts_proc_sig_in(tid, "SigCgt", sig) &&
	       !bts_proc_sig_in(tid, "SigIgn", sig);
}
