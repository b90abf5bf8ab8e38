// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Error codes and the per-thread detail of the last failure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static __thread char detail[512];

static const char *const names[BTS_E_MAX] = {
	[BTS_OK]		= "success",
	[BTS_E_INVAL]		= "invalid argument",
	[BTS_E_NOMEM]		= "out of memory",
	[BTS_E_IO]		= "input/output error",
	[BTS_E_FORMAT]		= "not a valid trace file",
	[BTS_E_VERSION]		= "unsupported trace file version",
	[BTS_E_TRUNCATED]	= "trace file is truncated",
	[BTS_E_NOENT]		= "program not found",
	[BTS_E_NOEXEC]		= "program cannot be run",
	[BTS_E_PERM]		= "tracing not permitted",
	[BTS_E_SRCH]		= "no such process",
	[BTS_E_NOSOURCE]	= "branch source not available",
	[BTS_E_AGAIN]		= "buffer full",
	[BTS_E_DECODE]		= "cannot decode instruction",
	[BTS_E_INTERNAL]	= "internal error",
};

const char *bts_errstr(int err)
{
	if (err < 0)
		err = -err;
	if (err >= BTS_E_MAX || !names[err])
		return "unknown error";
	return names[err];
}

const char *bts_errdetail(void)
{
	return detail;
}

static int vfail(int err, int errnum, const char *fmt, va_list ap)
{
	int n = vsnprintf(detail, sizeof(detail), fmt, ap);

	if (errnum && n >= 0 && (size_t)n < sizeof(detail))
		snprintf(detail + n, sizeof(detail) - n, ": %s", strerror(errnum));
	return -err;
}

int bts_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, 0, fmt, ap);
	va_end(ap);
	return -err;
}

int bts_fail_errno(int err, const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vfail(err, errnum, fmt, ap);
	va_end(ap);
	return -err;
}
