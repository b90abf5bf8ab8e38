// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Opening a file that a trace names.  The path is the trace's word, and a
 * trace may come from anyone: a FIFO there would block the reader forever,
 * and a device may act on being opened (a tape rewinds, a terminal becomes
 * the controlling one).  So only a regular file is opened: the type is
 * checked before the open, and again on the descriptor, opened without
 * blocking, in case the path was replaced in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int bts_open_regular(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st))
		return -1;
	if (!S_ISREG(st.st_mode))
		return BTS_NOT_REGULAR;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return BTS_NOT_REGULAR;
	}
	return fd;
}
