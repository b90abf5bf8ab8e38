// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Encoding one chunk of records in the tnt encoding (tnt.h): each record
 * is tried as a walk from the last target, as the decoder will walk;
 * what the walk cannot reach is written whole.  A failed try leaves no
 * trace: its bits are taken back, and the return-address stack changes
 * only once a record is known to be walked.
 */
#include <endian.h>
#include <stdlib.h>

#include "decode/insn.h"
#include "decode/tnt.h"
#include "trace/codec.h"
#include "trace/varint.h"

struct enc {
	struct tnt_code *code;
	uint64_t pc;		/* where the next walk starts; 0: nowhere */
	uint64_t flags;		/* of walked records: the last whole branch's */
	struct tnt_ras ras;
	struct tnt_btb btb;
	uint64_t hash;
	uint8_t *bits;
	size_t nbits;
	uint8_t *esc, *esc_p;
	uint8_t *tgt, *tgt_p;
	uint32_t walked;	/* records walked since the last whole one */
	uint32_t pops;		/* calls the next whole record returns past */
	size_t esc_len;		/* of the stream's whole records */
};

static void put_bit(struct enc *e, bool bit)
{
	uint8_t *b = &e->bits[e->nbits / 8];
	uint8_t m = (uint8_t)(1u << (e->nbits % 8));

	*b = bit ? *b | m : *b & (uint8_t)~m;
	e->nbits++;
}

enum walk { WALKED, WHOLE, NOMEM };

/*
 * Walks from e->pc to @r, writing its bits and target: WALKED, or WHOLE
 * (nothing written) when the walk does not give exactly @r.
 */
static enum walk walk(struct enc *e, const struct ptbts_record *r)
{
	size_t nbits0 = e->nbits;
	uint64_t pc = e->pc, h = e->hash, last;
	const struct bts_block *b;
	unsigned int nb = 0;

	for (;;) {
		if (r->from < pc)
			goto whole;
		b = bts_tnt_block(e->code, pc);
		if (!b)
			return NOMEM;
		if (!b->site || r->from < b->site)
			goto whole;
		h = tnt_hash(h, b);
		if (r->from == b->site)
			break;
		/* Passed by: only a conditional branch not taken falls through. */
		if (b->br.kind != BTS_INSN_COND || nb++ == BTS_TNT_WALK_BITS)
			goto whole;
		put_bit(e, false);
		pc = b->end;
	}
	switch (b->br.kind) {
	case BTS_INSN_COND:
		if (r->to != b->br.target || nb == BTS_TNT_WALK_BITS)
			goto whole;
		put_bit(e, true);
		break;
	case BTS_INSN_JUMP:
	case BTS_INSN_CALL:
		if (r->to != b->br.target)
			goto whole;
		break;
	case BTS_INSN_JUMP_IND:
	case BTS_INSN_CALL_IND:
		last = tnt_btb_get(&e->btb, b->site);
		if (last && nb == BTS_TNT_WALK_BITS)
			goto whole;
		if (last)
			put_bit(e, last == r->to);
		/* No last target (0 is none, as for the decoder): it follows. */
		if (!last || last != r->to) {
			e->tgt_p = bts_put_varint(e->tgt_p,
						  bts_zigzag(r->to - r->from));
			tnt_btb_put(&e->btb, b->site, r->to);
		}
		break;
	case BTS_INSN_RET:
		if (!e->ras.n) {
			e->tgt_p = bts_put_varint(e->tgt_p, bts_zigzag(r->to - r->from));
			break;
		}
		/* Given whole, and the call it did not return to forgotten. */
		if (e->ras.site[e->ras.top] != r->to) {
			e->pops = 1;
			goto whole;
		}
		tnt_ras_pop(&e->ras);
		break;
	default:
		goto whole;
	}
	if (b->br.kind == BTS_INSN_CALL || b->br.kind == BTS_INSN_CALL_IND)
		tnt_ras_push(&e->ras, b->end);
	e->hash = h;
	return WALKED;
whole:
	e->nbits = nbits0;
	return WHOLE;
}

static void put_whole(struct enc *e, const struct ptbts_record *r)
{
	e->esc_p = bts_put_varint(e->esc_p, e->walked);
	e->esc_p = bts_put_varint(e->esc_p, e->pops);
	for (; e->pops; e->pops--)
		tnt_ras_pop(&e->ras);
	e->esc_p = bts_put_varint(e->esc_p, bts_zigzag(r->from - e->pc));
	e->esc_p = bts_put_varint(e->esc_p, r->flags);
	e->esc_p = bts_put_varint(e->esc_p, bts_zigzag(r->to - r->from));
	e->walked = 0;
	if (r->from && PTBTS_KIND(r->flags) == PTBTS_KIND_BRANCH)
		e->flags = r->flags;
}

static int encode(struct enc *e, const struct ptbts_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ptbts_record *r = &recs[i];
		enum walk w = WHOLE;

		if (e->pc && r->from && r->flags == e->flags)
			w = walk(e, r);
		if (w == NOMEM)
			return bts_fail(BTS_E_NOMEM, "tnt encoding");
		if (w == WALKED)
			e->walked++;
		else
			put_whole(e, r);
		/* Markers leave the walk where it was. */
		if (r->from)
			e->pc = r->to;
	}
	return 0;
}

size_t bts_tnt_payload_max(void)
{
	return sizeof(struct bts_chunk_records_tnt) + bts_zstd_bound(TNT_RAW_MAX);
}

/* The stream: bits, whole records, targets, one after the other. */
static size_t join(struct enc *e, uint8_t *raw)
{
	size_t nbytes = (e->nbits + 7) / 8, elen = e->esc_p - e->esc;
	size_t tlen = e->tgt_p - e->tgt;

	/* The unused high bits of the last byte are zero. */
	if (e->nbits % 8)
		e->bits[nbytes - 1] &= (uint8_t)((1u << (e->nbits % 8)) - 1);
	memcpy(raw, e->bits, nbytes);
	memcpy(raw + nbytes, e->esc, elen);
	memcpy(raw + nbytes + elen, e->tgt, tlen);
	e->esc_len = elen;
	return nbytes + elen + tlen;
}

/* The stream of @n records into @raw: its length, or an error. */
static long stream(struct bts_tnt *x, struct enc *e, pid_t pid,
		   const struct ptbts_record *recs, size_t n, uint8_t *raw)
{
	long len;
	int err;

	e->hash = BTS_HASH_INIT;
	e->code = bts_tnt_code(x, pid);
	e->bits = malloc(n * BTS_TNT_WALK_BITS / 8);
	e->esc = e->esc_p = malloc(n * 34);
	e->tgt = e->tgt_p = malloc(n * 10);
	err = e->code && e->bits && e->esc && e->tgt ? encode(e, recs, n) :
	      bts_fail(BTS_E_NOMEM, "tnt encoding");
	len = err ? err : (long)join(e, raw);
	free(e->bits);
	free(e->esc);
	free(e->tgt);
	return len;
}

long bts_tnt_encode(struct bts_tnt *x, pid_t pid, pid_t tid,
		    const struct ptbts_record *recs, size_t n, uint8_t *out)
{
	struct bts_chunk_records_tnt h;
	struct enc *e;
	long len, packed;
	uint8_t *raw;

	if (!n || n > BTS_RECORDS_PER_CHUNK)
		return bts_fail(BTS_E_INVAL, "tnt chunk of %zu records", n);
	raw = bts_tnt_raw(x, n * BTS_TNT_REC_MAX);
	if (!raw)
		return bts_fail(BTS_E_NOMEM, "tnt encoding");
	/* Not on the stack: the target table is 16 KiB. */
	e = calloc(1, sizeof(*e));
	if (!e)
		return bts_fail(BTS_E_NOMEM, "tnt encoding");
	len = stream(x, e, pid, recs, n, raw);
	h = (struct bts_chunk_records_tnt){
		.pid = htole32(pid), .tid = htole32(tid),
		.count = htole32((uint32_t)n), .raw_len = htole32((uint32_t)len),
		.codec = htole32(BTS_CODEC_TNT_ZSTD),
		.nbits = htole32((uint32_t)e->nbits),
		.esc_len = htole32((uint32_t)e->esc_len),
		.code_hash = htole64(e->hash),
	};
	free(e);
	if (len < 0)
		return len;
	memcpy(out, &h, sizeof(h));
	packed = bts_zstd_pack(bts_tnt_zstd(x), raw, len, out + sizeof(h),
			       bts_zstd_bound(TNT_RAW_MAX));
	return packed < 0 ? packed : (long)sizeof(h) + packed;
}
