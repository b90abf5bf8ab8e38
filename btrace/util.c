// SPDX-License-Identifier: GPL-2.0-or-later
/* Error lines and size parsing, shared by every command. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

#include "btrace.h"

void error(const char *fmt, ...)
{
	va_list ap;

	fputs("btrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void error_bts(int err, const char *fmt, ...)
{
	const char *detail = bts_errdetail();
	va_list ap;

	fputs("btrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", bts_errstr(err));
	if (detail && *detail)
		fprintf(stderr, " (%s)", detail);
	fputc('\n', stderr);
}

static int suffix_shift(const char *end)
{
	if (!*end)
		return 0;
	if (end[1])
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': return 10;
	case 'M': return 20;
	case 'G': return 30;
	default: return -1;
	}
}

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return -1;
	shift = suffix_shift(end);
	if (shift < 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}
