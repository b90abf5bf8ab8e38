// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The check of an options struct's size and tail, and the fill of an
 * output struct the caller sized (util/opts.h).
 */
#include <string.h>

#include "internal.h"
#include "util/opts.h"

int bts_opts_valid(const void *opts, size_t sz, size_t known, const char *what)
{
	const unsigned char *tail;

	/* Before any arithmetic on it: an offset from NULL is undefined. */
	if (!opts)
		return 0;
	tail = (const unsigned char *)opts + known;
	if (sz < sizeof(size_t))
		return bts_fail(BTS_E_INVAL, "%s: size %zu is too small", what, sz);
	for (size_t i = known; i < sz; i++, tail++)
		if (*tail)
			return bts_fail(BTS_E_INVAL,
					"%s: unknown field set at byte %zu (this libbts knows %zu)",
					what, i, known);
	return 0;
}

int bts_out_fill(void *dst, size_t sz, const void *src, size_t known,
		 const char *what)
{
	if (!dst || !sz)
		return bts_fail(BTS_E_INVAL, "%s: no room to fill", what);
	memcpy(dst, src, sz < known ? sz : known);
	return 0;
}
