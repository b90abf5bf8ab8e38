/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* What the parts of libbts share and do not export. */
#ifndef BTS_INTERNAL_H
#define BTS_INTERNAL_H

#include <unistd.h>

#include "bts.h"

/*
 * Records the detail of a failure for bts_errdetail() and returns -@err, so
 * that a failing path reads:  return bts_fail(BTS_E_FORMAT, "offset %zu: ...", off);
 */
int bts_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, with ": strerror(errno)" appended to the detail. */
int bts_fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A numeric field of /proc/TID/status ("PPid", "SigCgt", ...) in @base:
 * 0, or -1 when the thread or the field is gone.
 */
int bts_proc_status(pid_t tid, const char *field, int base,
		    unsigned long long *val);
/* /proc/@pid/@name ("mem", "exe") opened read-only: open()'s answer. */
int bts_proc_open(pid_t pid, const char *name);
/* The same field read from the status file at @path. */
int bts_status_field(const char *path, const char *field, int base,
		     unsigned long long *val);
/* Whether @sig is in the signal mask @mask_field ("SigPnd", "SigCgt"). */
bool bts_proc_sig_in(pid_t tid, const char *mask_field, int sig);
/*
 * Whether @sig would end the process of @tid: not caught, not ignored,
 * and its default action terminates.
 */
bool bts_proc_sig_fatal(pid_t tid, int sig);

static inline pid_t bts_proc_ppid(pid_t pid)
{
	unsigned long long v = 0;

	return bts_proc_status(pid, "PPid", 10, &v) ? 0 : (pid_t)v;
}

/* Whether this process already traces @tid (an auto-attached clone). */
static inline bool bts_proc_traced_by_self(pid_t tid)
{
	unsigned long long v = 0;

	return !bts_proc_status(tid, "TracerPid", 10, &v) && (pid_t)v == getpid();
}

/*
 * A descriptor of the regular file at @path (named by a trace), opened
 * read-only without ever blocking; -1 with errno when it cannot be opened,
 * BTS_NOT_REGULAR when it is something else (a FIFO, a device, a file of
 * /proc or /sys, ...).
 */
#define BTS_NOT_REGULAR (-2)
int bts_open_regular(const char *path);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* BTS_INTERNAL_H */
