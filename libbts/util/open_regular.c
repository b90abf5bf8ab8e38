// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Opening a file that a trace names.  The path is the trace's word, and a
 * trace may come from anyone: a FIFO there would block the reader forever,
 * and a device may act on being opened (a tape rewinds, a terminal becomes
 * the controlling one).  So only a regular file is opened: the type is
 * checked before the open, and again on the descriptor, opened without
 * blocking, in case the path was replaced in between.  The files of the
 * kernel's pseudo file systems pass for regular, but what they hold is
 * made as they are read, and reading some takes it from their readers
 * (/proc/kmsg, tracefs's trace_pipe); no traced code lives there, so they
 * count as not regular too.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"

static bool made_by_kernel(const struct statfs *fs)
{
	switch (fs->f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case BPF_FS_MAGIC:
	case PSTOREFS_MAGIC:
	case EFIVARFS_MAGIC:
		return true;
	default:
		return false;
	}
}

static bool regular(const struct stat *st, const struct statfs *fs)
{
	return S_ISREG(st->st_mode) && !made_by_kernel(fs);
}

int bts_open_regular(const char *path)
{
	struct statfs fs;
	struct stat st;
	int fd;

	if (stat(path, &st) || statfs(path, &fs))
		return -1;
	if (!regular(&st, &fs))
		return BTS_NOT_REGULAR;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || fstatfs(fd, &fs) || !regular(&st, &fs)) {
		close(fd);
		return BTS_NOT_REGULAR;
	}
	return fd;
}
