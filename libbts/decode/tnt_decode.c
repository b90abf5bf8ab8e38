// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Decoding one chunk of the tnt encoding (tnt.h): the walk the encoder
 * made, step for step, reading its bits and targets where the encoder
 * wrote them.  Every read is checked against the stream, and the hash of
 * the blocks walked against the chunk's: a chunk decodes to the records
 * it was made of, or is refused.
 */
#include <stdio.h>
#include <stdlib.h>

#include "decode/insn.h"
#include "decode/tnt.h"
#include "trace/tnt_ops.h"
#include "trace/codec.h"
#include "trace/varint.h"

struct dec {
	struct tnt_code *code;
	uint64_t pc, flags, hash;
	struct tnt_ras ras;
	struct tnt_btb btb;
	const uint8_t *bits;
	size_t nbits, bit;
	struct bts_varint_reader esc, tgt;
	uint64_t walked;	/* records to walk before the next whole one */
	bool pending;		/* there is a next whole one */
	const char *why;	/* what went wrong */
	bool code_failed;	/* ...in the code, not in the stream */
	bool nomem;
};

static bool get_bit(struct dec *d, unsigned int *nb, bool *bit)
{
	if (d->bit == d->nbits || (*nb)++ == BTS_TNT_WALK_BITS) {
		d->why = "the branch bits ran out";
		return false;
	}
	*bit = (d->bits[d->bit / 8] >> (d->bit % 8)) & 1;
	d->bit++;
	return true;
}

static bool get_target(struct dec *d, uint64_t from, uint64_t *to)
{
	uint64_t z = 0;

	if (!bts_get_varint(&d->tgt, 0, &z)) {
		d->why = "a branch target is missing or overlong";
		return false;
	}
	*to = from + bts_unzigzag(z);
	return true;
}

static bool no_code(struct dec *d, const struct bts_block *b)
{
	d->why = "a block the records run through has no code or no branch";
	d->code_failed = b != NULL;
	d->nomem = !b;
	return false;
}

/* The record the walk from d->pc gives, as the encoder walked it. */
static bool walk(struct dec *d, struct ptbts_record *r)
{
	const struct bts_block *b;
	unsigned int nb = 0;
	uint64_t to = 0;
	bool bit;

	for (;;) {
		b = bts_tnt_block(d->code, d->pc);
		if (!b || !b->site)
			return no_code(d, b);
		d->hash = tnt_hash(d->hash, b);
		if (b->br.kind != BTS_INSN_COND)
			break;
		if (!get_bit(d, &nb, &bit))
			return false;
		if (bit) {
			to = b->br.target;
			break;
		}
		d->pc = b->end;
	}
	switch (b->br.kind) {
	case BTS_INSN_COND:
		break;
	case BTS_INSN_JUMP:
	case BTS_INSN_CALL:
		to = b->br.target;
		break;
	case BTS_INSN_JUMP_IND:
	case BTS_INSN_CALL_IND:
		to = tnt_btb_get(&d->btb, b->site);
		bit = false;
		if (to && !get_bit(d, &nb, &bit))
			return false;
		if (bit)
			break;
		if (!get_target(d, b->site, &to))
			return false;
		tnt_btb_put(&d->btb, b->site, to);
		break;
	case BTS_INSN_RET:
		if (d->ras.n)
			to = tnt_ras_pop(&d->ras);
		else if (!get_target(d, b->site, &to))
			return false;
		break;
	default:
		d->why = "a block ends in a branch the encoding does not walk";
		d->code_failed = true;
		return false;
	}
	if (b->br.kind == BTS_INSN_CALL || b->br.kind == BTS_INSN_CALL_IND)
		tnt_ras_push(&d->ras, b->end);
	*r = (struct ptbts_record){ b->site, to, d->flags };
	return true;
}

/* The count of records walked before the next whole one, if any. */
static bool next_whole(struct dec *d)
{
	d->pending = d->esc.p != d->esc.end;
	if (!d->pending)
		return true;
	d->walked = 0;
	if (!bts_get_varint(&d->esc, 0, &d->walked)) {
		d->why = "a whole record's place is cut or overlong";
		return false;
	}
	return true;
}

static bool whole(struct dec *d, struct ptbts_record *r)
{
	uint64_t pops = 0, from = 0, flags = 0, to = 0;

	if (!bts_get_varint(&d->esc, 0, &pops) ||
	    !bts_get_varint(&d->esc, 0, &from) ||
	    !bts_get_varint(&d->esc, 0, &flags) ||
	    !bts_get_varint(&d->esc, 0, &to)) {
		d->why = "a whole record is cut or overlong";
		return false;
	}
	if (pops > d->ras.n) {
		d->why = "a whole record returns past more calls than were made";
		return false;
	}
	for (; pops; pops--)
		tnt_ras_pop(&d->ras);
	r->from = d->pc + bts_unzigzag(from);
	r->to = r->from + bts_unzigzag(to);
	r->flags = flags;
	if (r->from && PTBTS_KIND(r->flags) == PTBTS_KIND_BRANCH)
		d->flags = r->flags;
	return next_whole(d);
}

static bool decode(struct dec *d, struct ptbts_record *recs, uint32_t n)
{
	if (!next_whole(d))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		struct ptbts_record *r = &recs[i];

		if (d->pending && !d->walked) {
			if (!whole(d, r))
				return false;
		} else if (!d->pc) {
			d->why = "a record to walk has nowhere to start";
			return false;
		} else {
			if (!walk(d, r))
				return false;
			d->walked -= d->pending;
		}
		if (r->from)
			d->pc = r->to;
	}
	if (d->bit != d->nbits || d->esc.p != d->esc.end || d->tgt.p != d->tgt.end)
		d->why = "bits, records or targets left after the last record";
	else if (d->pending)
		d->why = "a whole record's place is past the last record";
	return !d->why;
}

static int refuse(struct dec *d, size_t off, const struct bts_chunk_records_tnt *h)
{
	const char *w = d->nomem ? NULL : bts_tnt_code_warning(d->code);

	if (d->nomem)
		return bts_fail(BTS_E_NOMEM, "tnt records");
	if (d->code_failed || d->hash != h->code_hash)
		return bts_fail(BTS_E_DECODE,
				"offset %zu: the tnt records of thread %d need the code they were encoded against: %s",
				off, (int)h->tid, w ? w : "a file the trace maps has changed since it was recorded (the code's hash differs)");
	return bts_fail(BTS_E_FORMAT, "offset %zu: tnt records chunk: %s",
			off, d->why);
}

int bts_tnt_decode(struct bts_tnt *x, const uint8_t *p, size_t plen,
		   size_t off, struct ptbts_record *recs,
		   struct bts_chunk_records_tnt *h)
{
	const char *why = bts_tnt_header(p, plen, h);
	uint8_t *raw = NULL;
	struct dec *d;
	size_t nbytes;
	int err;

	if (!why && !(raw = bts_tnt_raw(x, h->raw_len)))
		return bts_fail(BTS_E_NOMEM, "tnt records");
	if (!why)
		why = bts_zstd_unpack(bts_tnt_zstd(x), p + sizeof(*h),
				      plen - sizeof(*h), raw, h->raw_len);
	if (why)
		return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, why);
	nbytes = (h->nbits + 7) / 8;
	if (h->nbits % 8 && raw[nbytes - 1] >> (h->nbits % 8))
		return bts_fail(BTS_E_FORMAT, "offset %zu: tnt records chunk: %s",
				off, "bits set past the last one");
	/* Not on the stack: the target table is 16 KiB. */
	d = calloc(1, sizeof(*d));
	if (!d || !(d->code = bts_tnt_code(x, h->pid))) {
		free(d);
		return bts_fail(BTS_E_NOMEM, "tnt records");
	}
	d->hash = BTS_HASH_INIT;
	d->bits = raw;
	d->nbits = h->nbits;
	d->esc = (struct bts_varint_reader){ raw + nbytes, raw + nbytes + h->esc_len };
	d->tgt = (struct bts_varint_reader){ d->esc.end, raw + h->raw_len };
	err = decode(d, recs, h->count) && d->hash == h->code_hash ? 0 :
	      refuse(d, off, h);
	free(d);
	return err;
}
