// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The compact record encoding: deltas as varints (codec.h has the
 * layout).  Decoding checks every length against the input, so any byte
 * sequence decodes or is refused.
 */
#include "trace/codec.h"
#include "trace/varint.h"

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
	return bts_put_varint(p, v);
}

size_t bts_codec_encode(const struct ptbts_record *recs, size_t n,
			uint8_t *out)
{
	uint64_t prev = 0, flags = 0;
	uint8_t *p = out;

	for (size_t i = 0; i < n; i++) {
		const struct ptbts_record *r = &recs[i];
		bool fl = r->flags != flags;

		p = put_head(p, bts_zigzag(r->from - prev), fl);
		if (fl)
			p = bts_put_varint(p, r->flags);
		p = bts_put_varint(p, bts_zigzag(r->to - r->from));
		flags = r->flags;
		if (r->from)
			prev = r->to;
	}
	return p - out;
}

static bool get_head(struct bts_varint_reader *rd, uint64_t *v, bool *bit)
{
	uint8_t b;

	if (rd->p == rd->end)
		return false;
	b = *rd->p++;
	*bit = b & 1;
	*v = (b >> 1) & 0x3f;
	return !(b & 0x80) || bts_get_varint(rd, 6, v);
}

const char *bts_codec_decode(const uint8_t *in, size_t len,
			     struct ptbts_record *recs, size_t n)
{
	struct bts_varint_reader rd = { in, in + len };
	uint64_t prev = 0, flags = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t head, to = 0;
		bool fl;

		if (!get_head(&rd, &head, &fl))
			return "a record's address is cut or overlong";
		if (fl) {
			uint64_t nf = 0;

			if (!bts_get_varint(&rd, 0, &nf) || nf == flags)
				return "a record's flags are cut, overlong or repeated";
			flags = nf;
		}
		if (!bts_get_varint(&rd, 0, &to))
			return "a record's target is cut or overlong";
		recs[i].from = prev + bts_unzigzag(head);
		recs[i].to = recs[i].from + bts_unzigzag(to);
		recs[i].flags = flags;
		if (recs[i].from)
			prev = recs[i].to;
	}
	return rd.p == rd.end ? NULL : "bytes after the last record";
}
