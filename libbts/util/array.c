// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The growable array (util/array.h). */
#include <stdint.h>
#include <stdlib.h>

#include "util/array.h"

int bts_array_grow(void **arr, size_t *cap, size_t esize, size_t need)
{
	size_t ncap = *cap > BTS_ARRAY_MIN / 2 ? *cap * 2 : BTS_ARRAY_MIN;
	void *p;

	if (need <= *cap)
		return 0;
	if (ncap < need || ncap < *cap)	/* or the doubling wrapped */
		ncap = need;
	if (ncap > SIZE_MAX / esize)
		return -1;
	p = realloc(*arr, ncap * esize);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}
