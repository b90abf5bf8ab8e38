// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The compact record encoding: deltas as varints (codec.h has the
 * layout).  Decoding checks every length against the input, so any byte
 * sequence decodes or is refused.
 */
#include "trace/codec.h"

/* Small magnitudes of either sign become small unsigned numbers. */
static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ -(z & 1);
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A 65-bit value: @bit, then @v, so that the flag costs no extra byte. */
static uint8_t *put_head(uint8_t *p, uint64_t v, bool bit)
{
	uint8_t first = (uint8_t)((v & 0x3f) << 1) | bit;

	v >>= 6;
	if (!v) {
		*p++ = first;
		return p;
	}
	*p++ = first | 0x80;
	return put_varint(p, v);
}

size_t bts_codec_encode(const struct ptbts_record *recs, size_t n,
			uint8_t *out)
{
	uint64_t prev = 0, flags = 0;
	uint8_t *p = out;

	for (size_t i = 0; i < n; i++) {
		const struct ptbts_record *r = &recs[i];
		bool fl = r->flags != flags;

		p = put_head(p, zigzag(r->from - prev), fl);
		if (fl)
			p = put_varint(p, r->flags);
		p = put_varint(p, zigzag(r->to - r->from));
		flags = r->flags;
		if (r->from)
			prev = r->to;
	}
	return p - out;
}

struct reader {
	const uint8_t *p, *end;
};

/* No bits beyond the 64th: a value that does not fit is refused. */
static bool get_varint(struct reader *rd, unsigned int shift, uint64_t *v)
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

static bool get_head(struct reader *rd, uint64_t *v, bool *bit)
{
	uint8_t b;

	if (rd->p == rd->end)
		return false;
	b = *rd->p++;
	*bit = b & 1;
	*v = (b >> 1) & 0x3f;
	return !(b & 0x80) || get_varint(rd, 6, v);
}

const char *bts_codec_decode(const uint8_t *in, size_t len,
			     struct ptbts_record *recs, size_t n)
{
	struct reader rd = { in, in + len };
	uint64_t prev = 0, flags = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t head, to = 0;
		bool fl;

		if (!get_head(&rd, &head, &fl))
			return "a record's address is cut or overlong";
		if (fl) {
			uint64_t nf = 0;

			if (!get_varint(&rd, 0, &nf) || nf == flags)
				return "a record's flags are cut, overlong or repeated";
			flags = nf;
		}
		if (!get_varint(&rd, 0, &to))
			return "a record's target is cut or overlong";
		recs[i].from = prev + unzigzag(head);
		recs[i].to = recs[i].from + unzigzag(to);
		recs[i].flags = flags;
		if (recs[i].from)
			prev = recs[i].to;
	}
	return rd.p == rd.end ? NULL : "bytes after the last record";
}
