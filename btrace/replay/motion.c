// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stepping in a replay, by the depths history.c computed: a callee's
 * instructions are deeper than its call, so stepping over a call is
 * skipping what is deeper, and leaving a function is reaching what is
 * shallower (replay_history_shallower(), which passes over long calls
 * without decoding them).  Gaps stop every motion but stepi, as in gdb.
 */
#include <string.h>

#include "motion.h"

int motion_stepi(const struct replay_history *h, uint64_t *pos,
		 uint64_t count, bool reverse)
{
	uint64_t room = reverse ? *pos - 1 : h->n - *pos;

	if (count > room) {
		*pos = reverse ? 1 : h->n;
		return MOTION_NO_HISTORY;
	}
	*pos = reverse ? *pos - count : *pos + count;
	return MOTION_DONE;
}

struct line {
	const char *file;	/* NULL: unknown */
	int line;
};

static struct line line_of(const struct replay_history *h,
			   struct bts_symbolizer *sym, uint64_t n)
{
	const struct replay_insn *in = replay_insn(h, n);
	struct line l = { 0 };

	if (!sym || in->iclass == BTS_ICLASS_GAP ||
	    bts_symbolize_line(sym, in->ip, &l.file, &l.line) < 0)
		l.file = NULL;
	return l;
}

static bool same_line(struct line a, struct line b)
{
	return a.file && b.file && a.line == b.line &&
	       (a.file == b.file || !strcmp(a.file, b.file));
}

static bool is_gap(const struct replay_history *h, uint64_t n)
{
	return replay_insn(h, n)->iclass == BTS_ICLASS_GAP;
}

static int next_forward(const struct replay_history *h,
			struct bts_symbolizer *sym, uint64_t *pos)
{
	int32_t d0 = replay_insn(h, *pos)->depth;
	struct line l0 = line_of(h, sym, *pos);

	for (uint64_t q = *pos + 1; q && q <= h->n; q++) {
		int32_t d = replay_insn(h, q)->depth;

		if (!is_gap(h, q) && d > d0) {
			/* Over the call, to where it returns (or a gap). */
			q = replay_history_shallower(h, q, d0 + 1, false, true) - 1;
			continue;
		}
		if (is_gap(h, q) || d < d0 ||
		    !same_line(l0, line_of(h, sym, q))) {
			*pos = q;
			return MOTION_DONE;
		}
	}
	*pos = h->n;
	return MOTION_NO_HISTORY;
}

/* From @q, a first instruction of a line at depth @d0, back to its start. */
static uint64_t line_start(const struct replay_history *h,
			   struct bts_symbolizer *sym, uint64_t q, int32_t d0)
{
	struct line l = line_of(h, sym, q);
	uint64_t start = q;

	if (!l.file)
		return q;
	while (--q >= 1) {
		int32_t d = replay_insn(h, q)->depth;

		if (!is_gap(h, q) && d > d0) {
			q = replay_history_shallower(h, q, d0 + 1, true, true) + 1;
			continue;
		}
		if (is_gap(h, q) || d < d0)
			break;
		if (!same_line(l, line_of(h, sym, q)))
			break;
		start = q;
	}
	return start;
}

static int next_backward(const struct replay_history *h,
			 struct bts_symbolizer *sym, uint64_t *pos)
{
	int32_t d0 = replay_insn(h, *pos)->depth;
	struct line l0 = line_of(h, sym, *pos);

	for (uint64_t q = *pos - 1; q >= 1; q--) {
		int32_t d = replay_insn(h, q)->depth;

		if (!is_gap(h, q) && d > d0) {
			q = replay_history_shallower(h, q, d0 + 1, true, true) + 1;
			continue;
		}
		if (is_gap(h, q) || d < d0) {
			*pos = q;
			return MOTION_DONE;
		}
		if (same_line(l0, line_of(h, sym, q)))
			continue;
		*pos = line_start(h, sym, q, d0);
		return MOTION_DONE;
	}
	*pos = 1;
	return MOTION_NO_HISTORY;
}

int motion_next(const struct replay_history *h, struct bts_symbolizer *sym,
		uint64_t *pos, bool reverse)
{
	if (reverse ? *pos <= 1 : *pos >= h->n)
		return MOTION_NO_HISTORY;
	return reverse ? next_backward(h, sym, pos) : next_forward(h, sym, pos);
}

/* Past a call that has no lines: the first instruction after it returns. */
static uint64_t past_callee(const struct replay_history *h, uint64_t q, int32_t d0)
{
	uint64_t back = replay_history_shallower(h, q, d0 + 1, false, false);

	return back ? back - 1 : h->n;
}

/* The line of the call that the return to @q comes back from. */
static struct line call_line(const struct replay_history *h,
			     struct bts_symbolizer *sym, uint64_t q, int32_t d)
{
	uint64_t call = replay_history_shallower(h, q, d + 1, true, false);

	return call ? line_of(h, sym, call) : (struct line){ 0 };
}

static int step_forward(const struct replay_history *h,
			struct bts_symbolizer *sym, uint64_t *pos)
{
	int32_t d0 = replay_insn(h, *pos)->depth;
	struct line l0 = line_of(h, sym, *pos);

	for (uint64_t q = *pos + 1; q <= h->n; q++) {
		int32_t d = replay_insn(h, q)->depth;
		struct line l = line_of(h, sym, q);

		if (is_gap(h, q) || (d > d0 && l.file)) {
			*pos = q;
			return MOTION_DONE;
		}
		if (d > d0) {
			q = past_callee(h, q, d0);
			continue;
		}
		if (d < d0) {
			/* Back in the caller: a line of its own starts here, or
			 * the rest of the line that called runs first. */
			if (l.file && !same_line(call_line(h, sym, q, d), l)) {
				*pos = q;
				return MOTION_DONE;
			}
			d0 = d;
			l0 = l;
			continue;
		}
		if (l.file && !same_line(l0, l)) {
			*pos = q;
			return MOTION_DONE;
		}
	}
	*pos = h->n;
	return MOTION_NO_HISTORY;
}

/* Before a call that has no lines, seen from after its return. */
static uint64_t before_callee(const struct replay_history *h, uint64_t q,
			      int32_t d0)
{
	uint64_t call = replay_history_shallower(h, q, d0 + 1, true, false);

	return call ? call + 1 : 1;
}

/*
 * Back to the start of the previous line; a call of that line to a
 * function with lines is entered at its last line, as gdb's reverse-step.
 */
static int step_backward(const struct replay_history *h,
			 struct bts_symbolizer *sym, uint64_t *pos)
{
	int32_t d0 = replay_insn(h, *pos)->depth;
	struct line cur = line_of(h, sym, *pos);
	uint64_t start = line_start(h, sym, *pos, d0), target = 0;

	/* Amid a line, gdb goes back to its start first. */
	if (start != *pos) {
		*pos = start;
		return MOTION_DONE;
	}
	for (uint64_t q = *pos - 1; q >= 1; q--) {
		int32_t d = replay_insn(h, q)->depth;
		struct line l = line_of(h, sym, q);

		if (d > d0 && l.file && !is_gap(h, q)) {
			*pos = line_start(h, sym, q, d);
			return MOTION_DONE;
		}
		if (d > d0) {
			q = before_callee(h, q, d0);
			continue;
		}
		if (is_gap(h, q) || d < d0) {
			*pos = target ? target : is_gap(h, q) ? q : line_start(h, sym, q, d);
			return MOTION_DONE;
		}
		if (!l.file)
			continue;
		if (same_line(cur, l)) {
			target = target ? q : 0;
			continue;
		}
		if (target) {
			*pos = target;
			return MOTION_DONE;
		}
		cur = l;
		target = q;
	}
	*pos = target ? target : 1;
	return target ? MOTION_DONE : MOTION_NO_HISTORY;
}

int motion_step(const struct replay_history *h, struct bts_symbolizer *sym,
		uint64_t *pos, bool reverse)
{
	if (reverse ? *pos <= 1 : *pos >= h->n)
		return MOTION_NO_HISTORY;
	return reverse ? step_backward(h, sym, pos) : step_forward(h, sym, pos);
}

int motion_finish(const struct replay_history *h, uint64_t *pos, bool reverse)
{
	int32_t d0 = replay_insn(h, *pos)->depth;
	uint64_t q = replay_history_shallower(h, *pos, d0, reverse, false);

	if (q) {
		*pos = q;
		return MOTION_DONE;
	}
	*pos = reverse ? 1 : h->n;
	return MOTION_NO_HISTORY;
}
