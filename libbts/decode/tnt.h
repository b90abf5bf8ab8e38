/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The code-aware record encoding (RECORDS_TNT chunks, trace_format.h):
 * the records of a thread are what its code does from one record's
 * target to the next, so most of them follow from the code and a few
 * bits.  Walking from the last target, block by block (insn_block.c):
 *
 *	a conditional branch	one bit, taken or not, as Intel PT's TNT
 *				packets; a taken one is a record
 *	a direct jmp or call	a record, to the target the code gives
 *	an indirect jmp or call	a record; when it ran before in the chunk,
 *				one bit (1: to its last target again), and
 *				its target in the stream when it is new
 *	a ret			a record; while the return-address stack
 *				holds the site of a call, one bit (1: it
 *				returns there), and the target in the
 *				stream when it does not
 *
 * Whatever the walk cannot give is written whole, at its place among the
 * records: the first record of a chunk, signals and sigreturns, markers,
 * records whose flags differ from the last whole branch's, a record the
 * walk does not reach (code the trace has no bytes for, an instruction
 * that does not end a block, more than BTS_TNT_WALK_BITS bits), or a
 * target other than the code's.  The encoder walks as the decoder will
 * and writes whole what its walk misses, so decoding gives exactly the
 * encoded records, or an error: the chunk keeps a hash of the code it
 * walked, and other code is refused (-BTS_E_DECODE).
 *
 * The stream of a chunk, after zstd: the bits (first bit in the low bit
 * of the first byte, padded with zeros), then the whole records, each as
 *	varint	the records walked before it since the last whole one
 *	varint	zigzag(from - the walk's pc, or 0 before the first)
 *	varint	flags
 *	varint	zigzag(to - from)
 * then the targets, each zigzag(to - from) as a varint.
 */
#ifndef BTS_DECODE_TNT_H
#define BTS_DECODE_TNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"
#include "decode/insn.h"
#include "trace/trace_format.h"

/* The code of a trace's processes, and blocks decoded once (tnt_code.c). */
struct bts_tnt;

struct bts_tnt *bts_tnt_new(const struct bts_trace *t);
void bts_tnt_free(struct bts_tnt *x);

/* Bytes a chunk's payload may take: room for bts_tnt_encode()'s @out. */
size_t bts_tnt_payload_max(void);
/*
 * The payload of a RECORDS_TNT chunk of thread @tid of @pid holding @n
 * records (1..BTS_RECORDS_PER_CHUNK) into @out (bts_tnt_payload_max()
 * bytes): its length, or -BTS_E_NOMEM / -BTS_E_INVAL.
 */
long bts_tnt_encode(struct bts_tnt *x, pid_t pid, pid_t tid,
		    const struct ptbts_record *recs, size_t n, uint8_t *out);

/*
 * The records of the payload @p (@plen bytes) of the RECORDS_TNT chunk at
 * file offset @off into @recs (room for BTS_RECORDS_PER_CHUNK), and its
 * header into @h: 0, -BTS_E_FORMAT (a damaged chunk), -BTS_E_DECODE (the
 * code differs from the code it was encoded against), -BTS_E_NOMEM.
 */
int bts_tnt_decode(struct bts_tnt *x, const uint8_t *p, size_t plen,
		   size_t off, struct ptbts_record *recs,
		   struct bts_chunk_records_tnt *h);

/* ------------------------------------------- shared by both directions */

/* A process's code: its bytes, and its blocks decoded once. */
struct tnt_code;

/*
 * The code of @pid (set up on first use), or NULL when memory ran out.
 */
struct tnt_code *bts_tnt_code(struct bts_tnt *x, pid_t pid);
/* The block at @pc (decoded once), or NULL when memory ran out. */
const struct bts_block *bts_tnt_block(struct tnt_code *c, uint64_t pc);
/* What the code's files said when they could not be used, or NULL. */
const char *bts_tnt_code_warning(const struct tnt_code *c);

/* Deep enough for the calls of a chunk; a deeper stack forgets its oldest. */
#define TNT_RAS_SIZE	128

/* The return-address stack both directions keep alike. */
struct tnt_ras {
	uint64_t site[TNT_RAS_SIZE];
	unsigned int top, n;
};

static inline void tnt_ras_push(struct tnt_ras *r, uint64_t site)
{
	r->top = (r->top + 1) % TNT_RAS_SIZE;
	r->site[r->top] = site;
	if (r->n < TNT_RAS_SIZE)
		r->n++;
}

static inline uint64_t tnt_ras_pop(struct tnt_ras *r)
{
	uint64_t site = r->site[r->top];

	r->top = (r->top + TNT_RAS_SIZE - 1) % TNT_RAS_SIZE;
	r->n--;
	return site;
}

/*
 * The last target of each indirect jmp or call, by site (direct-mapped:
 * a site that collides replaces the other); PLT stubs and virtual calls
 * mostly go where they went last time.
 */
#define TNT_BTB_SIZE	1024

struct tnt_btb {
	struct { uint64_t site, target; } e[TNT_BTB_SIZE];
};

static inline unsigned int tnt_btb_slot(uint64_t site)
{
	return (unsigned int)((site * 0x9e3779b97f4a7c15ULL) >> 54) % TNT_BTB_SIZE;
}

/* The last target of @site, or 0 when none is kept. */
static inline uint64_t tnt_btb_get(const struct tnt_btb *t, uint64_t site)
{
	unsigned int i = tnt_btb_slot(site);

	return t->e[i].site == site ? t->e[i].target : 0;
}

static inline void tnt_btb_put(struct tnt_btb *t, uint64_t site, uint64_t to)
{
	unsigned int i = tnt_btb_slot(site);

	t->e[i].site = site;
	t->e[i].target = to;
}

/* The walk's hash of the blocks it went through. */
static inline uint64_t tnt_hash(uint64_t h, const struct bts_block *b)
{
	return (h ^ b->hash) * 0x100000001b3ULL;
}

/*
 * Scratch both directions share: the zstd contexts, and room for a
 * stream of @len bytes (NULL when memory ran out).
 */
struct bts_zstd *bts_tnt_zstd(struct bts_tnt *x);
uint8_t *bts_tnt_raw(struct bts_tnt *x, size_t len);
#define TNT_RAW_MAX	((size_t)BTS_RECORDS_PER_CHUNK * BTS_TNT_REC_MAX)

#endif /* BTS_DECODE_TNT_H */
