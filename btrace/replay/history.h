/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One thread's instruction history for replay: every entry the decoder
 * gives (gaps included), numbered from 1 as in dump --insns, with the real
 * call depth before it runs.  Only a window of it is held decoded (32
 * bytes an instruction): an instruction outside it is reached by decoding
 * again from the point of the history's index before it (libbts's
 * bts_index), with the depth the loading pass noted at that point, so
 * memory is bounded by the window, not by the history.
 */
#ifndef REPLAY_HISTORY_H
#define REPLAY_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include <bts.h>

struct replay_insn {
	uint64_t ip;		/* for a gap: its argument */
	uint8_t raw[15];
	uint8_t size;
	uint8_t iclass;		/* &enum bts_iclass */
	uint8_t gap;		/* &enum bts_gap_reason */
	uint16_t flags;		/* BTS_IF_* */
	int32_t depth;		/* frames on the stack, relative to the first */
};

/* Instructions held decoded by default (2 MiB). */
#define REPLAY_WINDOW_DEFAULT	65536
#define REPLAY_WINDOW_MIN	16

/* The instructions [lo, lo + count) held decoded, and how to get others. */
struct replay_window {
	uint64_t lo, count, cap;
	struct replay_insn *v;
	struct bts_insn_decoder *d;
	struct bts_index *ix;
	int32_t *carry;		/* per index point: the depth going into it */
	int32_t *low;		/* and the lowest depth before it (<= 0) */
	int32_t *seg_low;	/* the lowest from it to the next point */
	uint8_t *seg_gap;	/* whether a gap lies there */
	uint64_t next;		/* the entry @d hands out next; 0: unknown */
	int32_t next_carry;	/* the depth going into it */
	uint64_t decoded;	/* entries decoded again since the load */
};

struct replay_history {
	uint64_t n;
	struct replay_window *w;
};

/*
 * Decodes thread @thread of @t once (to count it and note the depth at
 * each point of its index), holding @window instructions at a time; 0 or
 * a negative &enum bts_error.
 */
int replay_history_load(const struct bts_trace *t, size_t thread,
			uint64_t window, struct replay_history *h);
void replay_history_free(struct replay_history *h);

/* replay_insn() when @n lies outside the window. */
const struct replay_insn *replay_history_fill(const struct replay_history *h,
					      uint64_t n);

/*
 * Instruction @n (1..h->n), valid until the next call for an instruction
 * outside the window.  Decoding it again can fail only when the file
 * changed since it was opened or memory ran out: it reads as a gap then.
 */
static inline const struct replay_insn *
replay_insn(const struct replay_history *h, uint64_t n)
{
	const struct replay_window *w = h->w;

	if (n - w->lo < w->count)
		return &w->v[n - w->lo];
	return replay_history_fill(h, n);
}

/*
 * The point of the index before instruction @n (its entry < @n, or the
 * start): into *@pt, and the lowest depth the history reached before it
 * into *@low: the frames open there whose calls the history holds are
 * pt->depth - *low, of which the point keeps the innermost.  False when
 * the index counts depth otherwise there (one written by an older
 * btrace): its return sites are no use then.
 */
bool replay_history_point(const struct replay_history *h, uint64_t n,
			  struct bts_index_point *pt, int32_t *low);

/*
 * Calls @fn with instructions @from to @to (@to <= h->n) in turn, decoded
 * once from the point before @from, past the window, which stays as it
 * was; 0, or a negative &enum bts_error (the file changed, no memory).
 */
typedef void replay_scan_fn(void *arg, uint64_t n, const struct replay_insn *in);
int replay_history_scan(const struct replay_history *h, uint64_t from,
			uint64_t to, replay_scan_fn *fn, void *arg);

/* The entry of point @k of @ix, or @none past the last. */
static inline uint64_t replay_point_entry(const struct bts_index *ix, size_t k,
					  uint64_t none)
{
	struct bts_index_point pt;

	return bts_index_point(ix, k, &pt, sizeof(pt)) ? none : pt.entry;
}

/*
 * The nearest instruction after @q (before it, with @back) shallower than
 * @depth, or a gap when @gaps; 0 when there is none.  The stretches
 * between index points that hold neither are passed over undecoded
 * (depths.c), so that leaving a long call costs its points, not its
 * instructions.
 */
uint64_t replay_history_shallower(const struct replay_history *h, uint64_t q,
				  int32_t depth, bool back, bool gaps);
/* The lowest depth of instructions @from to @to (from <= to <= h->n). */
int32_t replay_history_lowest(const struct replay_history *h, uint64_t from,
			      uint64_t to);

/* Instruction @n in the decoder's form (its raw bytes as replay_insn's). */
void replay_history_entry(const struct replay_history *h, uint64_t n,
			  struct bts_insn_entry *e);

/*
 * Where a thread stopped, given the pc it stopped at: the last instruction
 * at @pc that is not past the last record's inferred tail, so that the
 * instructions inferred beyond it (which never ran) are dropped.  0 when
 * @pc is nowhere in the history's end.
 */
uint64_t replay_history_stop_at(const struct replay_history *h, uint64_t pc);
/* Drops the instructions after @n. */
void replay_history_cut(struct replay_history *h, uint64_t n);

#endif /* REPLAY_HISTORY_H */
