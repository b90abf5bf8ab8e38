/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The compact record encoding of trace files: the records of one
 * RECORDS_COMPACT chunk (trace_format.h) as a byte stream of varints
 * (codec.c), compressed as one zstd frame (codec_zstd.c).
 *
 * Each record is coded against the one before it in the same chunk, so
 * that a chunk decodes on its own (random access through the batches):
 *
 *	head	from - prev, zigzag, as a varint whose first byte spends its
 *		lowest bit on "the flags follow" (set when @flags differs
 *		from the previous record's; prev flags start at 0)
 *	flags	a plain varint, only when that bit is set
 *	to	to - from, zigzag varint
 *
 * where prev is the @to of the last record with from != 0 (0 at the
 * start): straight-line code makes from - prev small, near branches make
 * to - from small.  Nothing leans on the code: a file decodes without the
 * program's bytes, and the recorder decodes no instruction.
 */
#ifndef BTS_TRACE_CODEC_H
#define BTS_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace_format.h"

/* Most bytes one record takes: 10 (head) + 10 (flags) + 10 (to). */
#define BTS_CODEC_REC_MAX	30

/* Encodes @n records into @out (room for n * BTS_CODEC_REC_MAX); returns bytes. */
size_t bts_codec_encode(const struct ptbts_record *recs, size_t n,
			uint8_t *out);

/*
 * Decodes exactly @n records from exactly @len bytes: NULL, or what is
 * wrong with the stream.  The records are not checked for their meaning.
 */
const char *bts_codec_decode(const uint8_t *in, size_t len,
			     struct ptbts_record *recs, size_t n);

/* zstd, one frame per chunk (codec_zstd.c); contexts are made on first use. */
struct bts_zstd;

struct bts_zstd *bts_zstd_new(void);
void bts_zstd_free(struct bts_zstd *z);
/* Compresses @len bytes into @out (room for bts_zstd_bound(len)); bytes or -BTS_E_*. */
long bts_zstd_pack(struct bts_zstd *z, const void *in, size_t len, void *out,
		   size_t cap);
size_t bts_zstd_bound(size_t len);
/*
 * Decompresses one whole frame of exactly @len bytes into exactly @want
 * bytes at @out: NULL, or what is wrong with it.  Nothing is allocated
 * from the frame's own claims: @want is checked against a limit by the
 * caller, and the frame must say it holds @want bytes.
 */
const char *bts_zstd_unpack(struct bts_zstd *z, const void *in, size_t len,
			    void *out, size_t want);

#endif /* BTS_TRACE_CODEC_H */
