/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The parts of the instruction decoder, inside libbts:
 *
 *	decode_code.c	the code bytes of a traced process: the files its
 *			maps name (build-id checked) and the code copies
 *			the trace carries (the vDSO)
 *	decode_live.c	...or its memory, while it is still there
 *	decode_blocks.c	straight-line blocks: the instructions from an
 *			address up to the first one that must end it,
 *			decoded once and kept by start address
 *	decode.c	records -> runs of instructions and gaps -> entries
 *	segments.c	runs -> function segments
 *	decode_index.c	the index of a history: the decoder's state every
 *			few thousand records, and seeking to an entry
 *	index_file.c	a trace file written again with its index
 *	rewrite.c	...the copying of its chunks, which both share
 *	tnt_*.c		records coded against the code (tnt.h), and a
 *			trace file written again in that encoding
 */
#ifndef BTS_DECODE_H
#define BTS_DECODE_H

#include "internal.h"

/* ------------------------------------------------------------ code image */

struct bts_code_image;

/* @live: read the process's memory first (NULL: files and copies only). */
int bts_code_image_new(const struct bts_trace *t, pid_t pid,
		       struct bts_session *live, struct bts_code_image **out);
void bts_code_image_free(struct bts_code_image *ci);
/*
 * The code at @addr and in *avail how many bytes follow it contiguously,
 * or NULL when nothing holds it.  The bytes live as long as @ci.
 */
const uint8_t *bts_code_image_at(struct bts_code_image *ci, uint64_t addr,
				 size_t *avail);
/*
 * Longer code at @addr than the @have bytes a first answer gave, or NULL
 * when there is no more (only memory read from a live process grows).
 */
const uint8_t *bts_code_image_more(struct bts_code_image *ci, uint64_t addr,
				   size_t have, size_t *avail);
const char *bts_code_image_warning(const struct bts_code_image *ci, size_t i);

/* decode_live.c: the memory of a process still there. */
struct bts_live_code;

struct bts_live_code *bts_live_code_new(struct bts_session *s, pid_t pid);
void bts_live_code_free(struct bts_live_code *lc);
const uint8_t *bts_live_code_at(struct bts_live_code *lc, uint64_t addr,
				size_t want, size_t *avail);

/* ---------------------------------------------------------------- blocks */

/* Why a block ends after its last instruction. */
enum bts_dblock_end {
	BTS_DBLOCK_TRANSFER,	/* an unconditional transfer: it would be recorded */
	BTS_DBLOCK_NOCODE,	/* the code bytes ran out */
	BTS_DBLOCK_UNDECODABLE,	/* the next bytes are no instruction */
	BTS_DBLOCK_LIMIT,	/* too long to be real */
};

/*
 * Instructions in address order from @start: instruction i lies at
 * start + off[i] and is off[i + 1] - off[i] bytes long.  A block that
 * ends on an error has the failing address at start + off[n].
 */
struct bts_dblock {
	uint64_t start;
	const uint8_t *code;	/* the bytes from @start */
	uint32_t n;
	uint8_t end;		/* &enum bts_dblock_end */
	/*
	 * The last two bts_dblock_find() answers, [memo_next] the older: a
	 * loop's block often ends at two places by turns.
	 */
	uint32_t memo_idx[2];
	uint64_t memo_addr[2];
	uint8_t memo_next;
	uint32_t *off;		/* n + 1 entries */
	uint8_t *cls;		/* n entries, &enum bts_iclass */
	/*
	 * The function at @start, as the call cursor's symbolizer named it
	 * (segments.c): looked up once a block, not once a pass.
	 */
	bool sym_known;
	const char *sym_name;	/* NULL: none */
	uint64_t sym_off;
};

/*
 * Code rewritten while the thread ran (decode_changes.c): the markers of
 * a thread's records that say so, and whether the code from @lo to @hi
 * (inclusive) was rewritten after record number @rec (from 1), asked for
 * records in order.
 */
struct bts_code_changes;
int bts_code_changes_scan(const struct bts_trace *t, size_t thread,
			  struct bts_code_changes **out);
void bts_code_changes_free(struct bts_code_changes *c);
bool bts_code_changed_after(struct bts_code_changes *c, uint64_t rec,
			    uint64_t lo, uint64_t hi);
/* Asks may start again from an earlier record (a decoder that seeks). */
void bts_code_changes_rewind(struct bts_code_changes *c);

struct bts_dblock_cache;

struct bts_dblock_cache *bts_dblock_cache_new(struct bts_code_image *ci,
					    size_t max_blocks);
void bts_dblock_cache_free(struct bts_dblock_cache *c);
/* Decode as 32-bit code from now on (call before the first block). */
void bts_dblock_cache_set_32bit(struct bts_dblock_cache *c);
/*
 * The block at @start, decoded on first use; NULL only when out of memory.
 * It stays valid until the next call (a full cache is emptied).
 */
struct bts_dblock *bts_dblock_get(struct bts_dblock_cache *c, uint64_t start);

/* The index of the instruction at @addr in @b, or -1. */
static inline long bts_dblock_find(struct bts_dblock *b, uint64_t addr)
{
	uint32_t lo = 0, hi = b->n;
	uint64_t off;

	if (addr == b->memo_addr[0])
		return b->memo_idx[0];
	if (addr == b->memo_addr[1])
		return b->memo_idx[1];
	if (addr < b->start)
		return -1;
	off = addr - b->start;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= b->n || b->off[lo] != off)
		return -1;
	b->memo_addr[b->memo_next] = addr;
	b->memo_idx[b->memo_next] = lo;
	b->memo_next ^= 1;
	return lo;
}

/* ------------------------------------------------------------------ runs */

/*
 * Consecutive entries of the history: @count instructions of @b from
 * @first, or (b == NULL) one gap.  Flags: @flags on every entry,
 * @first_flags on the first too, @last_flags on the last too.
 */
struct bts_run {
	struct bts_dblock *b;
	uint32_t first, count;
	uint16_t flags, first_flags, last_flags;
	uint64_t index;		/* the number of its first entry */
	uint32_t gap;
	uint64_t gap_arg;
};

/*
 * 1 and *run set, 0 at the end, or -BTS_E_NOMEM.  The run is the
 * decoder's, valid until the next call.
 */
int bts_decode_next_run(struct bts_insn_decoder *d, const struct bts_run **run);

/*
 * What a decoder carries from one record to the next (an index point
 * keeps it, decode_index.c): after @rec records, @index entries.
 */
struct bts_decode_state {
	uint64_t rec;
	uint64_t index;
	uint64_t prev_to;
	uint16_t next_flags;
};

/*
 * The state of @d between two records, when every run it made has been
 * handed out (true), else false: its runs are not those of whole records.
 */
bool bts_decode_state_get(const struct bts_insn_decoder *d,
			  struct bts_decode_state *st);
/* @d as it was at @st: the next entry is the one after st->index. */
void bts_decode_state_set(struct bts_insn_decoder *d,
			  const struct bts_decode_state *st);
/* The trace and thread @d decodes. */
const struct bts_trace *bts_decode_trace(const struct bts_insn_decoder *d,
					 size_t *thread);

#endif /* BTS_DECODE_H */
