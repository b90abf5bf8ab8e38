// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Function segments, in the model of gdb's record function-call-history
 * (gdb/btrace.c): a segment is one visit of a function; a call opens one a
 * level deeper, a return goes on in a new segment at the level of the
 * caller whose call it returns to (the call's return address, found up
 * the call chain; by name only when no call there matches, and never by
 * the lack of one: unnamed functions are not all one), a jump to the start of a
 * function is a tail call (one level deeper, and a later return skips it),
 * and any other change of function is a switch at the same level.
 * Signals, which hardware traces cannot show but software sources record,
 * enter their handler like a call, and sigreturn returns like a return.
 *
 * Work is per run of instructions, not per instruction: the history's
 * shape only changes where control was transferred, at the start of a run.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "util/array.h"
#include "util/opts.h"

struct seg {
	struct bts_segment pub;
	size_t up;		/* the caller's index + 1; 0: none known */
	uint64_t up_ret;	/* where a return into @up lands; 0: unknown */
	bool up_tail;		/* @up is a tail caller: returns skip it */
	bool up_signal;		/* @up was interrupted by a signal */
};

struct bts_call_history {
	struct seg *segs;
	size_t n, cap;
	uint64_t insns, gaps;
};

/* What the builder remembers of the last instruction it saw. */
struct last_insn {
	uint64_t ip;
	uint8_t size, iclass;
	uint16_t flags;
};

struct builder {
	struct bts_call_history *h;
	struct bts_symbolizer *sym;
	bool lines;
	struct last_insn last;
};

static struct seg *seg_at(struct bts_call_history *h, size_t up)
{
	return up ? &h->segs[up - 1] : NULL;
}

static struct seg *new_seg(struct bts_call_history *h, int entry,
			   const char *fn, uint64_t first)
{
	struct seg *s;

	if (BTS_ARRAY_RESERVE(h->segs, h->cap, h->n + 1))
		return NULL;
	s = &h->segs[h->n++];
	*s = (struct seg){ .pub = {
		.number = h->n, .entry = entry, .function = fn,
		.first = first, .last = first,
	} };
	return s;
}

static bool switched(const struct seg *s, const char *fn)
{
	const char *cur = s->pub.function;

	if (!cur || !fn)
		return cur != fn;
	return cur != fn && strcmp(cur, fn);
}

/*
 * Index + 1 of the segment up @s's chain that a return to @ip goes back
 * to: the innermost whose call returns to @ip (tail calls, which set no
 * return address, are passed over), else the innermost in @fn when @fn
 * is known.
 */
static size_t find_caller(struct bts_call_history *h, const struct seg *s,
			  const char *fn, uint64_t ip)
{
	const struct seg *u = s;
	size_t up;

	for (; u->up; u = seg_at(h, u->up))
		if (u->up_ret == ip)
			return u->up;
	if (!fn)
		return 0;
	up = s->up;
	while (up && switched(seg_at(h, up), fn))
		up = seg_at(h, up)->up;
	return up;
}

static struct seg *callee(struct bts_call_history *h, int entry,
			  const char *fn, uint64_t first)
{
	size_t caller = h->n;
	int level = h->segs[caller - 1].pub.level;
	struct seg *s = new_seg(h, entry, fn, first);

	if (!s)
		return NULL;
	s->pub.level = level + 1;
	s->up = caller;
	s->up_tail = entry == BTS_SEG_TAILCALL;
	s->up_signal = entry == BTS_SEG_SIGNAL;
	return s;
}

/* A call: its callee returns to @ret. */
static struct seg *call_to(struct bts_call_history *h, const char *fn,
			   uint64_t ret, uint64_t first)
{
	struct seg *s = callee(h, BTS_SEG_CALL, fn, first);

	if (s)
		s->up_ret = ret;
	return s;
}

/* No caller of that name: a frame outside the history, one level out. */
static struct seg *unknown_caller(struct bts_call_history *h, int entry,
				  const char *fn, uint64_t first)
{
	size_t top = h->n;
	struct seg *s;

	while (seg_at(h, top)->up)
		top = seg_at(h, top)->up;
	s = new_seg(h, entry, fn, first);
	if (!s)
		return NULL;
	s->pub.level = h->segs[top - 1].pub.level - 1;
	h->segs[top - 1].up = h->n;
	h->segs[top - 1].up_ret = 0;
	h->segs[top - 1].up_tail = false;
	h->segs[top - 1].up_signal = false;
	return s;
}

static struct seg *returned(struct bts_call_history *h, int entry,
			    const char *fn, uint64_t ip, uint64_t first)
{
	struct seg cur = h->segs[h->n - 1];
	size_t caller = find_caller(h, &cur, fn, ip);
	struct seg *s;

	if (!caller && cur.up_signal && entry == BTS_SEG_RETURN) {
		/* A handler returns into the restorer: still the signal's. */
		s = new_seg(h, entry, fn, first);
		if (s) {
			s->pub.level = cur.pub.level;
			s->up = cur.up;
			s->up_ret = cur.up_ret;
			s->up_signal = true;
		}
		return s;
	}
	if (!caller)
		return unknown_caller(h, entry, fn, first);
	s = new_seg(h, entry, fn, first);
	if (s) {
		const struct seg *c = seg_at(h, caller);

		s->pub.level = c->pub.level;
		s->up = c->up;
		s->up_ret = c->up_ret;
		s->up_tail = c->up_tail;
		s->up_signal = c->up_signal;
	}
	return s;
}

static struct seg *switch_to(struct bts_call_history *h, const char *fn,
			     uint64_t first)
{
	struct seg prev = h->segs[h->n - 1];
	struct seg *s = new_seg(h, BTS_SEG_SWITCH, fn, first);

	if (s) {
		s->pub.level = prev.pub.level;
		s->up = prev.up;
		s->up_ret = prev.up_ret;
		s->up_tail = prev.up_tail;
		s->up_signal = prev.up_signal;
	}
	return s;
}

/*
 * The segment that the run starting at @ip (numbered @first) belongs to:
 * the current one, or a new one.  NULL only when out of memory.
 */
static struct seg *segment_for(struct builder *bd, const struct bts_run *run,
			       uint64_t ip, uint64_t first)
{
	struct bts_call_history *h = bd->h;
	const struct last_insn *l = &bd->last;
	struct seg *cur = h->n ? &h->segs[h->n - 1] : NULL;
	const char *fn = NULL;
	uint64_t off = 1;
	bool taken = l->flags & BTS_IF_TAKEN;

	if (bd->sym && bts_symbolize(bd->sym, ip, &fn, &off) < 0) {
		fn = NULL;
		off = 1;
	}
	if (!cur || cur->pub.entry == BTS_SEG_GAP) {
		/* Read before new_seg(), whose realloc may move @cur. */
		int level = cur ? cur->pub.level : 0;
		struct seg *s = new_seg(h, BTS_SEG_START, fn, first);

		if (s)
			s->pub.level = level;
		return s;
	}
	if (run->first_flags & BTS_IF_SIGNAL)
		return callee(h, BTS_SEG_SIGNAL, fn, first);
	if (l->flags & BTS_IF_SIGRETURN)
		return returned(h, BTS_SEG_SIGRETURN, fn, ip, first);
	if (taken && l->iclass == BTS_ICLASS_CALL && ip != l->ip + l->size)
		return call_to(h, fn, l->ip + l->size, first);
	if (taken && l->iclass == BTS_ICLASS_RETURN)
		return returned(h, BTS_SEG_RETURN, fn, ip, first);
	if (taken && (l->iclass == BTS_ICLASS_JUMP || l->iclass == BTS_ICLASS_COND) &&
	    (off == 0 || (!fn && switched(cur, fn))))
		return callee(h, BTS_SEG_TAILCALL, fn, first);
	if (switched(cur, fn))
		return switch_to(h, fn, first);
	return cur;
}

static void add_lines(struct builder *bd, struct seg *s,
		      const struct bts_run *run)
{
	const struct bts_dblock *b = run->b;

	for (uint32_t i = run->first; i < run->first + run->count; i++) {
		const char *file;
		int line;

		if (bts_symbolize_line(bd->sym, b->start + b->off[i], &file,
				       &line) < 0)
			continue;
		if (!s->pub.file) {
			s->pub.file = file;
			s->pub.line_min = s->pub.line_max = line;
			continue;
		}
		if (file != s->pub.file && strcmp(file, s->pub.file))
			continue;
		if (line < s->pub.line_min)
			s->pub.line_min = line;
		if (line > s->pub.line_max)
			s->pub.line_max = line;
	}
}

static int add_run(struct builder *bd, const struct bts_run *run)
{
	struct bts_call_history *h = bd->h;
	const struct bts_dblock *b = run->b;
	uint32_t lasti;
	struct seg *s;

	if (!b) {
		int level = h->n ? h->segs[h->n - 1].pub.level : 0;

		s = new_seg(h, BTS_SEG_GAP, NULL, run->index);
		if (!s)
			return -BTS_E_NOMEM;
		s->pub.level = level;
		s->pub.gap = run->gap;
		s->pub.gap_arg = run->gap_arg;
		h->gaps++;
		h->insns++;
		bd->last = (struct last_insn){ 0 };
		return 0;
	}
	s = segment_for(bd, run, b->start + b->off[run->first], run->index);
	if (!s)
		return -BTS_E_NOMEM;
	s->pub.last = run->index + run->count - 1;
	if (!s->pub.function && !s->pub.object)
		s->pub.object = bts_symbolize_object(bd->sym,
						     b->start + b->off[run->first]);
	if (bd->lines && bd->sym)
		add_lines(bd, s, run);
	h->insns += run->count;
	lasti = run->first + run->count - 1;
	bd->last = (struct last_insn){
		.ip = b->start + b->off[lasti],
		.size = b->off[lasti + 1] - b->off[lasti],
		.iclass = b->cls[lasti],
		.flags = run->flags | run->last_flags |
			 (run->count == 1 ? run->first_flags : 0),
	};
	return 0;
}

/* gdb shows the outermost level of the history as 0. */
static void normalize_levels(struct bts_call_history *h)
{
	int min = 0;

	for (size_t i = 0; i < h->n; i++)
		if (!i || h->segs[i].pub.level < min)
			min = h->segs[i].pub.level;
	for (size_t i = 0; i < h->n; i++)
		h->segs[i].pub.level -= min;
}

static int build(struct bts_insn_decoder *d, struct builder *bd)
{
	struct bts_run run;
	int ret;

	while ((ret = bts_decode_next_run(d, &run)) > 0) {
		ret = add_run(bd, &run);
		if (ret < 0)
			return bts_fail(BTS_E_NOMEM, "call history");
	}
	/* The decoder's detail says what went wrong (a file that changed...). */
	return ret < 0 ? ret : 0;
}

int bts_call_history_new(const struct bts_trace *t, size_t thread,
			 const struct bts_calls_opts *opts,
			 struct bts_call_history **out)
{
	struct builder bd = { 0 };
	struct bts_insn_decoder *d;
	int ret;

	ret = BTS_OPTS_VALID(opts, "call history options");
	if (ret)
		return ret;
	bd.sym = BTS_OPTS_GET(opts, sym, NULL);
	bd.lines = BTS_OPTS_GET(opts, lines, false);
	ret = bts_insn_decoder_new(t, thread, BTS_OPTS_GET(opts, decoder, NULL),
				   &d);
	if (ret < 0)
		return ret;
	bd.h = calloc(1, sizeof(*bd.h));
	if (!bd.h) {
		bts_insn_decoder_free(d);
		return bts_fail(BTS_E_NOMEM, "call history");
	}
	ret = build(d, &bd);
	bts_insn_decoder_free(d);
	if (ret < 0) {
		bts_call_history_free(bd.h);
		return ret;
	}
	normalize_levels(bd.h);
	*out = bd.h;
	return 0;
}

void bts_call_history_free(struct bts_call_history *h)
{
	if (!h)
		return;
	free(h->segs);
	free(h);
}

size_t bts_call_history_count(const struct bts_call_history *h)
{
	return h ? h->n : 0;
}

const struct bts_segment *
bts_call_history_segment(const struct bts_call_history *h, size_t i)
{
	return h && i < h->n ? &h->segs[i].pub : NULL;
}

uint64_t bts_call_history_insns(const struct bts_call_history *h)
{
	return h ? h->insns : 0;
}

uint64_t bts_call_history_gaps(const struct bts_call_history *h)
{
	return h ? h->gaps : 0;
}
