/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The growable array of libbts: a pointer, a count the owner keeps, and a
 * capacity.  BTS_ARRAY_RESERVE() makes room for a number of elements,
 * doubling the capacity so that n appends cost O(n) copies:
 *
 *	if (BTS_ARRAY_RESERVE(h->segs, h->cap, h->n + 1))
 *		return bts_fail(BTS_E_NOMEM, "call history");
 *	h->segs[h->n++] = seg;
 */
#ifndef BTS_ARRAY_H
#define BTS_ARRAY_H

#include <stddef.h>

/* The capacity of an array's first allocation, in elements. */
#define BTS_ARRAY_MIN 16

/*
 * Grows *@arr (of *@cap elements of @esize bytes) to hold at least @need:
 * to twice its capacity, BTS_ARRAY_MIN or @need, whichever is largest.
 * Elements past the old capacity are not initialised.  0, or -1 when the
 * memory cannot be had: then *@arr and *@cap are unchanged.
 */
int bts_array_grow(void **arr, size_t *cap, size_t esize, size_t need);

/*
 * Room for @need elements in @arr (a T *, an lvalue) of capacity @cap (a
 * size_t lvalue): 0, or -1 with both unchanged.  Costs a comparison when
 * the room is there, so it may stand in a loop over every element.
 */
#define BTS_ARRAY_RESERVE(arr, cap, need) ({				\
	size_t __need = (need);						\
	int __ret = 0;							\
									\
	if (__need > (cap)) {						\
		void *__p = (arr);					\
									\
		__ret = bts_array_grow(&__p, &(cap), sizeof(*(arr)), __need); \
		(arr) = __p;						\
	}								\
	__ret;								\
})

#endif /* BTS_ARRAY_H */
