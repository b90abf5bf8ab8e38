// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The instruction history of one thread for replay, with the real call
 * depth of every instruction, held a window at a time: a first pass counts
 * the history and notes the depth going into each point of its index;
 * later, the window around an instruction is decoded from the point
 * before it.
 */
#include <stdlib.h>
#include <string.h>

#include "history.h"

/*
 * The depth change from one instruction to the next, as the stack really
 * changes: a call that went elsewhere pushes a frame, a return pops one, a
 * tail jump replaces one (no change).  A signal pushes two, as unwinders see
 * it (the handler and the restorer's signal frame): the handler's return
 * pops one, the restorer's sigreturn the other.
 */
static int depth_step(const struct bts_insn_entry *e)
{
	if (e->iclass == BTS_ICLASS_CALL && (e->flags & BTS_IF_TAKEN))
		return 1;
	if (e->iclass == BTS_ICLASS_RETURN)
		return -1;
	if (e->flags & BTS_IF_SIGRETURN)
		return -1;
	return 0;
}

/* The depth of @e, *carry going in; *carry becomes the next one's. */
static int32_t depth_of(const struct bts_insn_entry *e, int32_t *carry)
{
	int32_t depth = *carry + (e->flags & BTS_IF_SIGNAL ? 2 : 0);

	*carry = depth + depth_step(e);
	return depth;
}

static void keep(struct replay_insn *in, const struct bts_insn_entry *e,
		 int32_t depth)
{
	memset(in, 0, sizeof(*in));
	in->ip = e->iclass == BTS_ICLASS_GAP ? e->gap_arg : e->ip;
	in->size = e->size > sizeof(in->raw) ? sizeof(in->raw) : e->size;
	if (e->raw)
		memcpy(in->raw, e->raw, in->size);
	in->iclass = e->iclass;
	in->gap = e->gap;
	in->flags = e->flags;
	in->depth = depth;
}

static int alloc_points(struct replay_window *w, size_t np)
{
	w->carry = calloc(np, sizeof(*w->carry));
	w->low = calloc(np, sizeof(*w->low));
	w->seg_low = malloc(np * sizeof(*w->seg_low));
	w->seg_gap = calloc(np, sizeof(*w->seg_gap));
	if (!w->carry || !w->low || !w->seg_low || !w->seg_gap)
		return -BTS_E_NOMEM;
	for (size_t k = 0; k < np; k++)
		w->seg_low[k] = INT32_MAX;
	return 0;
}

/*
 * The whole history once: its length, the depth going into each point
 * and the lowest depth before it, and what lies between each point and
 * the next: its lowest depth and whether a gap is there.
 */
static int count(struct replay_history *h)
{
	struct replay_window *w = h->w;
	size_t np = bts_index_npoints(w->ix), k = 0;
	uint64_t next = replay_point_entry(w->ix, 0, UINT64_MAX);
	struct bts_insn_entry e;
	int32_t carry = 0, low = 0;
	int ret = alloc_points(w, np);

	if (ret)
		return ret;
	while ((ret = bts_insn_next(w->d, &e, sizeof(e))) > 0) {
		int32_t depth;

		/* The points before this entry, as the entries before left them. */
		for (; next < e.index;
		     next = replay_point_entry(w->ix, ++k, UINT64_MAX)) {
			w->carry[k] = next == e.index - 1 ? carry : 0;
			w->low[k] = next == e.index - 1 ? low : 0;
		}
		depth = depth_of(&e, &carry);
		if (depth < low)
			low = depth;
		if (carry < low)
			low = carry;
		if (k && depth < w->seg_low[k - 1])
			w->seg_low[k - 1] = depth;
		if (k && e.iclass == BTS_ICLASS_GAP)
			w->seg_gap[k - 1] = 1;
		if (e.index - 1 < w->cap)
			keep(&w->v[w->count++], &e, depth);
		h->n = e.index;
	}
	for (; next <= h->n;
	     next = replay_point_entry(w->ix, ++k, UINT64_MAX)) {
		w->carry[k] = next == h->n ? carry : 0;
		w->low[k] = next == h->n ? low : 0;
	}
	return ret;
}

int replay_history_load(const struct bts_trace *t, size_t thread,
			uint64_t window, struct replay_history *h)
{
	struct replay_window *w = calloc(1, sizeof(*w));
	struct bts_index_opts o = { .sz = sizeof(o) };
	int ret;

	memset(h, 0, sizeof(*h));
	if (!w)
		return -BTS_E_NOMEM;
	h->w = w;
	w->lo = 1;
	w->cap = window < REPLAY_WINDOW_MIN ? REPLAY_WINDOW_MIN : window;
	/*
	 * Built here, points a window's length apart at most (a record
	 * makes a few instructions): a refill decodes about a window.  A
	 * file's index has its own.
	 */
	o.interval = w->cap / 8 < BTS_INDEX_INTERVAL ? w->cap / 8 : BTS_INDEX_INTERVAL;
	if (o.interval < 2)
		o.interval = 2;
	w->v = malloc(w->cap * sizeof(*w->v));
	if (!w->v) {
		replay_history_free(h);
		return -BTS_E_NOMEM;
	}
	ret = bts_index_new(t, thread, &o, &w->ix);
	if (!ret)
		ret = bts_insn_decoder_new(t, thread, NULL, &w->d);
	if (!ret)
		ret = count(h);
	if (ret < 0)
		replay_history_free(h);
	return ret < 0 ? ret : 0;
}

void replay_history_free(struct replay_history *h)
{
	if (h->w) {
		bts_insn_decoder_free(h->w->d);
		bts_index_free(h->w->ix);
		free(h->w->carry);
		free(h->w->low);
		free(h->w->seg_low);
		free(h->w->seg_gap);
		free(h->w->v);
		free(h->w);
	}
	memset(h, 0, sizeof(*h));
}

/* What an instruction reads as when it cannot be decoded again. */
static const struct replay_insn lost = { .iclass = BTS_ICLASS_GAP };

/*
 * Where the window holding @n starts: a step forward leaves a quarter of
 * a window behind @n, a step back a quarter ahead of it, so that walking
 * either way refills once a window.
 */
static uint64_t window_start(const struct replay_window *w, uint64_t n)
{
	uint64_t back = n < w->lo ? w->cap - w->cap / 4 - 1 : w->cap / 4;

	return n > back ? n - back : 1;
}

/*
 * Puts @w's decoder before entry @lo: on from where it stands when that is
 * between the index point before @lo and @lo, else from that point.
 */
static int position(struct replay_window *w, uint64_t lo, int32_t *carry)
{
	size_t p = bts_index_find(w->ix, lo);
	struct bts_index_point pt;

	if (bts_index_point(w->ix, p, &pt, sizeof(pt)))
		return -BTS_E_INVAL;
	if (w->next && w->next > pt.entry && w->next <= lo) {
		*carry = w->next_carry;
		return 0;
	}
	*carry = w->carry[p];
	return bts_insn_decoder_seek(w->d, w->ix, pt.entry + 1);
}

/*
 * Walking on past the end of a full window, with the decoder standing
 * right after it: the window's last quarter moves to the front and
 * decoding goes on, so that a walk forward decodes each entry once.  The
 * window is the one window_start() would give.
 */
static bool slide(struct replay_window *w, uint64_t n, int32_t *carry)
{
	uint64_t keep = w->cap / 4;

	if (!w->next || n != w->next || w->count != w->cap ||
	    w->next != w->lo + w->count)
		return false;
	memmove(w->v, w->v + w->count - keep, keep * sizeof(*w->v));
	w->lo = w->next - keep;
	w->count = keep;
	*carry = w->next_carry;
	return true;
}

static int refill(const struct replay_history *h, uint64_t n)
{
	struct replay_window *w = h->w;
	struct bts_insn_entry e;
	int32_t carry;
	int ret = 0;

	if (!slide(w, n, &carry)) {
		w->lo = window_start(w, n);
		w->count = 0;
		ret = position(w, w->lo, &carry);
	}
	w->next = 0;
	while (ret == 0 && w->count < w->cap && w->lo + w->count <= h->n &&
	       (ret = bts_insn_next(w->d, &e, sizeof(e))) > 0) {
		int32_t depth = depth_of(&e, &carry);

		ret = 0;
		w->decoded++;
		if (e.index >= w->lo)
			keep(&w->v[w->count++], &e, depth);
	}
	if (ret < 0)
		return ret;
	/* Stopped by a full window: the decoder stands right after it. */
	if (w->count == w->cap) {
		w->next = w->lo + w->count;
		w->next_carry = carry;
	}
	return 0;
}

const struct replay_insn *replay_history_fill(const struct replay_history *h,
					      uint64_t n)
{
	struct replay_window *w = h->w;

	if (refill(h, n) < 0 || n - w->lo >= w->count) {
		w->count = 0;
		return &lost;
	}
	return &w->v[n - w->lo];
}

int replay_history_scan(const struct replay_history *h, uint64_t from,
			uint64_t to, replay_scan_fn *fn, void *arg)
{
	struct replay_window *w = h->w;
	struct bts_insn_entry e;
	struct replay_insn in;
	int32_t carry;
	int ret = position(w, from, &carry);

	w->next = 0;
	while (ret == 0 && (ret = bts_insn_next(w->d, &e, sizeof(e))) > 0) {
		int32_t depth = depth_of(&e, &carry);

		ret = 0;
		w->decoded++;
		if (e.index < from)
			continue;
		keep(&in, &e, depth);
		fn(arg, e.index, &in);
		if (e.index == to) {
			/* The decoder stands after @to: a refill goes on. */
			w->next = to + 1;
			w->next_carry = carry;
			break;
		}
	}
	return ret < 0 ? ret : 0;
}

bool replay_history_point(const struct replay_history *h, uint64_t n,
			  struct bts_index_point *pt, int32_t *low)
{
	const struct replay_window *w = h->w;
	size_t p = bts_index_find(w->ix, n);

	if (bts_index_point(w->ix, p, pt, sizeof(*pt)))
		return false;
	*low = w->low[p];
	return pt->depth == w->carry[p];
}

void replay_history_entry(const struct replay_history *h, uint64_t n,
			  struct bts_insn_entry *e)
{
	const struct replay_insn *in = replay_insn(h, n);
	bool gap = in->iclass == BTS_ICLASS_GAP;

	*e = (struct bts_insn_entry){
		.index = n, .ip = gap ? 0 : in->ip, .raw = in->raw,
		.size = in->size, .iclass = in->iclass, .flags = in->flags,
		.gap = in->gap, .gap_arg = gap ? in->ip : 0,
	};
}

uint64_t replay_history_stop_at(const struct replay_history *h, uint64_t pc)
{
	uint64_t n = h->n;

	/* The tail is inferred up to the next branch: the stop lies in it,
	 * or is the entry just before it (a fault at a branch's target). */
	for (; n >= 1; n--) {
		const struct replay_insn *in = replay_insn(h, n);

		if (in->ip == pc)
			return n;
		if (!(in->flags & BTS_IF_TAIL))
			break;
	}
	return 0;
}

void replay_history_cut(struct replay_history *h, uint64_t n)
{
	if (n < h->n)
		h->n = n;
	if (h->w->lo + h->w->count > h->n + 1)
		h->w->count = h->n + 1 > h->w->lo ? h->n + 1 - h->w->lo : 0;
}
