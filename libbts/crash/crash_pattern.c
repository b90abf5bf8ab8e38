// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Checking a crash trace's name pattern before anything runs: a crash
 * comes once, and a name that cannot be created then loses its trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"

/* The longest pid (PID_MAX_LIMIT) makes the longest name. */
#define PID_LONGEST	4194304
/* What the writer appends for its temporary name: ".tmp." and a pid. */
#define TMP_SUFFIX_MAX	(sizeof(".tmp.") - 1 + 7)

/* A file of our own created and removed in @dir: the writer's first step. */
static int probe_dir(const char *dir)
{
	char *probe;
	int fd;

	if (asprintf(&probe, "%s/.btrace-probe.%d", dir, (int)getpid()) < 0)
		return bts_fail(BTS_E_NOMEM, "crash pattern");
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = bts_fail_errno(BTS_E_IO, "cannot create a file in %s", dir);

		free(probe);
		return err;
	}
	close(fd);
	unlink(probe);
	free(probe);
	return 0;
}

static int check_name(const char *name)
{
	char *copy = strdup(name), *base, *dir;
	int err;

	if (!copy)
		return bts_fail(BTS_E_NOMEM, "crash pattern");
	base = basename(copy);
	if (strlen(base) + TMP_SUFFIX_MAX > NAME_MAX ||
	    strlen(name) + TMP_SUFFIX_MAX >= PATH_MAX) {
		errno = ENAMETOOLONG;
		err = bts_fail_errno(BTS_E_INVAL, "%s", name);
		free(copy);
		return err;
	}
	free(copy);
	copy = strdup(name);
	if (!copy)
		return bts_fail(BTS_E_NOMEM, "crash pattern");
	dir = dirname(copy);
	err = probe_dir(dir);
	free(copy);
	return err;
}

int bts_crash_pattern_check(const char *pattern, const char *exe)
{
	char *name = bts_crash_name(pattern, PID_LONGEST, exe);
	int err;

	if (!name)
		return bts_fail(BTS_E_NOMEM, "crash pattern");
	err = check_name(name);
	free(name);
	return err;
}
