/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * LEB128 varints and zigzag signs, as the record encodings use them
 * (codec.c, decode/tnt_*.c).  Reading checks every length against the
 * input: a value cut short or wider than 64 bits is refused.
 */
#ifndef BTS_TRACE_VARINT_H
#define BTS_TRACE_VARINT_H

#include <stdbool.h>
#include <stdint.h>

/* Small magnitudes of either sign become small unsigned numbers. */
static inline uint64_t bts_zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t bts_unzigzag(uint64_t z)
{
	return (z >> 1) ^ -(z & 1);
}

/* Writes @v at @p (room for 10 bytes); returns the byte after it. */
static inline uint8_t *bts_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

struct bts_varint_reader {
	const uint8_t *p, *end;
};

/*
 * ORs the varint at rd->p into *@v from bit @shift on: false when it is
 * cut short or holds bits beyond the 64th.
 */
static inline bool bts_get_varint(struct bts_varint_reader *rd,
				  unsigned int shift, uint64_t *v)
{
	for (;;) {
		uint8_t b;

		if (rd->p == rd->end || shift > 63)
			return false;
		b = *rd->p++;
		if (shift > 57 && ((b & 0x7f) >> (64 - shift)))
			return false;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
		shift += 7;
	}
}

#endif /* BTS_TRACE_VARINT_H */
