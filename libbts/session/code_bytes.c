// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The one reader of a traced program's code.  It returns the ORIGINAL
 * bytes: a source that plants breakpoints records them in the session's
 * table and this puts the original byte back, so that the decoder, the gdb
 * stub and crash copies never see a planted byte.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "session/session.h"

static ssize_t read_vm(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* Where process_vm_readv is refused (seccomp, old kernels). */
static ssize_t read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	int fd = bts_proc_open(pid, "mem");
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n;
}

ssize_t bts_read_code(struct bts_session *s, pid_t pid, uint64_t addr,
		      void *buf, size_t len)
{
	ssize_t n;

	if (!buf || pid <= 0)
		return bts_fail(BTS_E_INVAL, "read_code: bad argument");
	if (!len)
		return 0;
	n = read_vm(pid, addr, buf, len);
	if (n <= 0)
		n = read_mem(pid, addr, buf, len);
	if (n < 0)
		return bts_fail_errno(BTS_E_IO, "reading code of %d at 0x%llx",
				      (int)pid, (unsigned long long)addr);
	/* A child's memory (session_fork.c) holds none of them. */
	if (s && !bts_tid_nobp(s, pid))
		bts_bp_unplant(&s->bps, addr, buf, (size_t)n);
	return n;
}
