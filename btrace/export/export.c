// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace export: walks each thread's function-call history (libbts's
 * segments, as dump --calls shows them, from a cursor) and keeps the
 * stack of frames a segment runs in: the frames below its level are the last ones seen at
 * those levels.  A gap closes every frame, as the history cannot say what
 * ran in it.
 */
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "../btrace.h"
#include "../dump.h"
#include "export.h"

struct walk {
	struct export_out *x;
	struct export_frame *stack;
	size_t depth, cap;
	uint64_t at;		/* the position reached */
	bool shown;		/* inside --from/--to */
};

const char *export_frame_name(const struct export_frame *f, char *buf,
			      size_t len)
{
	if (f->function)
		return f->function;
	if (!f->object)
		return "??";
	snprintf(buf, len, "?? from %s", f->object);
	return buf;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_frame(const struct export_frame *a,
		       const struct export_frame *b)
{
	return same_str(a->function, b->function) &&
	       (a->function || same_str(a->object, b->object));
}

/* Closes the frames above @keep, innermost first. */
static void pop_to(struct walk *w, size_t keep)
{
	while (w->depth > keep) {
		w->depth--;
		if (w->shown)
			w->x->ops->close(w->x, &w->stack[w->depth], w->at);
	}
}

static int grow(struct walk *w, size_t need)
{
	struct export_frame *s;
	size_t cap = w->cap ? w->cap : 64;

	while (cap < need)
		cap *= 2;
	if (cap == w->cap)
		return 0;
	s = realloc(w->stack, cap * sizeof(*s));
	if (!s)
		return -1;
	w->stack = s;
	w->cap = cap;
	return 0;
}

/* Makes the stack the one @s runs in, then lets it run. */
static int step(struct walk *w, const struct bts_segment *s)
{
	const struct export_frame unknown = { 0 };
	struct export_frame top = {
		.function = s->function, .object = s->object,
		.file = s->file, .line = s->line_min,
	};
	size_t level = s->level > 0 ? s->level : 0, keep = 0;

	if (s->entry == BTS_SEG_GAP) {
		pop_to(w, 0);
		return 0;
	}
	if (grow(w, level + 1))
		return -1;
	/* The frames below stay open where they are the same. */
	while (keep < w->depth && keep < level)
		keep++;
	if (keep == level && keep < w->depth && same_frame(&w->stack[keep], &top))
		keep++;
	pop_to(w, keep);
	for (; w->depth <= level; w->depth++) {
		w->stack[w->depth] = w->depth == level ? top : unknown;
		if (w->shown)
			w->x->ops->open(w->x, &w->stack[w->depth], w->at);
	}
	w->at = s->last;
	if (w->shown && w->x->ops->sample)
		w->x->ops->sample(w->x, w->stack, w->depth,
				  s->last - s->first + 1);
	return 0;
}

/* Before a segment: the position its first instruction starts at. */
static void skip_to(struct walk *w, const struct bts_segment *s)
{
	if (s->entry != BTS_SEG_GAP)
		w->at = s->first - 1;
}

/* Opens the frames already on the stack, where the range starts. */
static void show(struct walk *w)
{
	size_t depth = w->depth;

	w->depth = 0;
	w->shown = true;
	w->x->ops->thread_begin(w->x, w->x->pid, w->x->tid, w->at);
	for (; w->depth < depth; w->depth++)
		w->x->ops->open(w->x, &w->stack[w->depth], w->at);
}

/*
 * The segments up to the end of the range, from a cursor; @base is the
 * outermost level, which a first pass found.  0, or a negative error.
 */
static int walk_thread(struct dump_ctx *c, struct export_out *x,
		       struct bts_call_cursor *cur, int base, uint64_t total)
{
	struct walk w = { .x = x };
	struct bts_segment s;
	uint64_t lo, hi;
	int ret = 0;

	if (!dump_range(c->o, 1, total, &lo, &hi))
		return 0;
	while (!ret && (ret = bts_call_cursor_next(cur, &s, sizeof(s))) > 0 &&
	       s.number <= hi) {
		s.level -= base;
		skip_to(&w, &s);
		if (s.number == lo)
			show(&w);
		ret = step(&w, &s) ? -BTS_E_NOMEM : 0;
	}
	pop_to(&w, 0);
	x->ops->thread_end(x, w.at);
	free(w.stack);
	return ret > 0 ? 0 : ret;
}

/*
 * Two passes of the decoder: the first finds the outermost level (and the
 * count the range needs), the second writes.  Neither keeps the history.
 */
static int export_thread(struct dump_ctx *c, struct export_out *x, size_t i)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, i);
	struct bts_call_cursor *cur;
	uint64_t total;
	int base, ret;

	if (dump_calls_outermost(c, i, &base, &total))
		return EXIT_FAILED;
	cur = dump_calls_cursor(c, i, true);
	if (!cur)
		return EXIT_FAILED;
	x->pid = th->pid;
	x->tid = th->tid;
	ret = walk_thread(c, x, cur, base, total);
	bts_call_cursor_free(cur);
	if (ret < 0)
		return dump_calls_failed(c, i, ret);
	x->nthreads++;
	return 0;
}

int export_trace(struct dump_ctx *c, struct export_out *x)
{
	int ret = 0;

	x->many_threads = !c->o->thread && bts_trace_nthreads(c->trace) > 1;
	if (x->ops->begin(x, c->path)) {
		error("export: out of memory");
		return EXIT_FAILED;
	}
	for (size_t i = 0; !ret && i < bts_trace_nthreads(c->trace); i++)
		if (!c->o->thread ||
		    bts_trace_thread(c->trace, i)->tid == c->o->thread)
			ret = export_thread(c, x, i);
	x->ops->end(x);
	return ret;
}
