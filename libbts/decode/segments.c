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
 *
 * The cursor walks the history in one pass and keeps only the current
 * call chain: the segments a later return or name match can still go
 * back to, each as the few fields that matter then.  A segment that a
 * new one follows is finished and handed out; nothing older is kept.
 * The whole history (bts_call_history_new()) is the cursor's segments
 * gathered.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "util/array.h"
#include "util/opts.h"

/* A segment of the current call chain, as later segments need it. */
struct frame {
	const char *function;
	int level;
	uint64_t up_ret;	/* where a return into the frame below lands; 0: unknown */
	bool up_tail;		/* the frame below is a tail caller: returns skip it */
	bool up_signal;		/* the frame below was interrupted by a signal */
};

/* What the cursor remembers of the last instruction it saw. */
struct last_insn {
	uint64_t ip;
	uint8_t size, iclass;
	uint16_t flags;
};

struct bts_call_cursor {
	struct bts_insn_decoder *d;
	struct bts_symbolizer *sym;
	bool lines;
	bool ended;		/* the decoder said it has no more */
	struct last_insn last;
	/* The chain: [0] the outermost known, [depth - 1] the current segment. */
	struct frame *stack;
	size_t depth, cap;
	/*
	 * The segment runs still extend, seg[cur], and the one finished
	 * before it, not yet handed out, seg[!cur]: a new segment takes the
	 * other's place, with no copy.
	 */
	struct bts_segment seg[2];
	unsigned int cur;
	bool have_cur, have_done;
	uint64_t count;
	int min_level;
};

struct bts_call_history {
	struct bts_segment *segs;
	size_t n, cap;
	uint64_t insns, gaps;
};

static bool switched(const char *cur, const char *fn)
{
	if (!cur || !fn)
		return cur != fn;
	return cur != fn && strcmp(cur, fn);
}

static struct bts_segment *cur_seg(struct bts_call_cursor *c)
{
	return &c->seg[c->cur];
}

static struct frame *top(struct bts_call_cursor *c)
{
	return &c->stack[c->depth - 1];
}

/* The current segment is finished: @fn's begins at entry number @first. */
static void begin(struct bts_call_cursor *c, int entry, const char *fn,
		  uint64_t first, uint64_t ip, int level)
{
	/*
	 * A copy of a zeroed one, then the fields: a compound literal
	 * became a `rep stos`, slow to start for 96 bytes.
	 */
	static const struct bts_segment zero;
	struct bts_segment *s;

	if (c->have_cur) {
		c->cur ^= 1;
		c->have_done = true;
	}
	s = cur_seg(c);
	*s = zero;
	s->number = ++c->count;
	s->entry = entry;
	s->function = fn;
	s->first = s->last = first;
	s->level = level;
	s->ip = ip;
	c->have_cur = true;
	if (c->count == 1 || level < c->min_level)
		c->min_level = level;
}

/* A chain of one: nothing above it is known. */
static int restart(struct bts_call_cursor *c, int entry, const char *fn,
		   uint64_t first, uint64_t ip, int level)
{
	if (BTS_ARRAY_RESERVE(c->stack, c->cap, 1))
		return -BTS_E_NOMEM;
	c->depth = 1;
	c->stack[0] = (struct frame){ .function = fn, .level = level };
	begin(c, entry, fn, first, ip, level);
	return 0;
}

/* One level deeper; a return to @ret comes back (0: none does). */
static int callee(struct bts_call_cursor *c, int entry, const char *fn,
		  uint64_t ret, uint64_t first, uint64_t ip)
{
	int level = top(c)->level + 1;

	if (BTS_ARRAY_RESERVE(c->stack, c->cap, c->depth + 1))
		return -BTS_E_NOMEM;
	c->stack[c->depth++] = (struct frame){
		.function = fn, .level = level, .up_ret = ret,
		.up_tail = entry == BTS_SEG_TAILCALL,
		.up_signal = entry == BTS_SEG_SIGNAL,
	};
	begin(c, entry, fn, first, ip, level);
	return 0;
}

/*
 * The depth of the chain up to the segment that a return to @ip goes
 * back to: the innermost whose call returns to @ip (tail calls, which
 * set no return address, are passed over), else the innermost in @fn
 * when @fn is known; 0: none.
 */
static size_t find_caller(const struct bts_call_cursor *c, const char *fn,
			  uint64_t ip)
{
	for (size_t i = c->depth - 1; i > 0; i--)
		if (c->stack[i].up_ret == ip)
			return i;
	if (!fn)
		return 0;
	for (size_t i = c->depth - 1; i > 0; i--)
		if (!switched(c->stack[i - 1].function, fn))
			return i;
	return 0;
}

/* In place of the chain's segment at @depth (and all above it). */
static void replace(struct bts_call_cursor *c, size_t depth, int entry,
		    const char *fn, uint64_t first, uint64_t ip)
{
	c->depth = depth;
	top(c)->function = fn;
	begin(c, entry, fn, first, ip, top(c)->level);
}

static int returned(struct bts_call_cursor *c, int entry, const char *fn,
		    uint64_t ip, uint64_t first)
{
	size_t caller = find_caller(c, fn, ip);

	if (!caller && top(c)->up_signal && entry == BTS_SEG_RETURN) {
		/* A handler returns into the restorer: still the signal's. */
		top(c)->up_tail = false;
		replace(c, c->depth, entry, fn, first, ip);
		return 0;
	}
	if (!caller) {
		/* No caller of that name: a frame outside the history, one level out. */
		return restart(c, entry, fn, first, ip, c->stack[0].level - 1);
	}
	replace(c, caller, entry, fn, first, ip);
	return 0;
}

/*
 * The function at @ip, where @run starts, and the offset into it (NULL
 * and 1 when none): a run that starts its block asks the block, which
 * keeps the answer of the first lookup.
 */
static void symbol_at(struct bts_call_cursor *c, const struct bts_run *run,
		      uint64_t ip, const char **fn, uint64_t *off)
{
	struct bts_dblock *b = run->b;

	if (!run->first && b->sym_known) {
		*fn = b->sym_name;
		*off = b->sym_off;
		return;
	}
	if (bts_symbolize(c->sym, ip, fn, off) < 0) {
		*fn = NULL;
		*off = 1;
	}
	if (!run->first) {
		b->sym_known = true;
		b->sym_name = *fn;
		b->sym_off = *off;
	}
}

/*
 * Starts the segment that the run starting at @ip (numbered @first)
 * belongs to, when it is not the current one: 0, or -BTS_E_NOMEM.
 */
static int segment_for(struct bts_call_cursor *c, const struct bts_run *run,
		       uint64_t ip, uint64_t first)
{
	const struct last_insn *l = &c->last;
	const char *fn = NULL;
	uint64_t off = 1;
	bool taken = l->flags & BTS_IF_TAKEN;

	if (c->sym)
		symbol_at(c, run, ip, &fn, &off);
	if (!c->have_cur || cur_seg(c)->entry == BTS_SEG_GAP)
		return restart(c, BTS_SEG_START, fn, first, ip,
			       c->have_cur ? cur_seg(c)->level : 0);
	if (run->first_flags & BTS_IF_SIGNAL)
		return callee(c, BTS_SEG_SIGNAL, fn, 0, first, ip);
	if (l->flags & BTS_IF_SIGRETURN)
		return returned(c, BTS_SEG_SIGRETURN, fn, ip, first);
	if (taken && l->iclass == BTS_ICLASS_CALL && ip != l->ip + l->size)
		return callee(c, BTS_SEG_CALL, fn, l->ip + l->size, first, ip);
	if (taken && l->iclass == BTS_ICLASS_RETURN)
		return returned(c, BTS_SEG_RETURN, fn, ip, first);
	if (taken && (l->iclass == BTS_ICLASS_JUMP || l->iclass == BTS_ICLASS_COND) &&
	    (off == 0 || (!fn && switched(cur_seg(c)->function, fn))))
		return callee(c, BTS_SEG_TAILCALL, fn, 0, first, ip);
	if (switched(cur_seg(c)->function, fn))
		replace(c, c->depth, BTS_SEG_SWITCH, fn, first, ip);
	return 0;
}

static void add_lines(struct bts_call_cursor *c, const struct bts_run *run)
{
	const struct bts_dblock *b = run->b;
	struct bts_segment *s = cur_seg(c);

	for (uint32_t i = run->first; i < run->first + run->count; i++) {
		const char *file;
		int line;

		if (bts_symbolize_line(c->sym, b->start + b->off[i], &file,
				       &line) < 0)
			continue;
		if (!s->file) {
			s->file = file;
			s->line_min = s->line_max = line;
			continue;
		}
		if (file != s->file && strcmp(file, s->file))
			continue;
		if (line < s->line_min)
			s->line_min = line;
		if (line > s->line_max)
			s->line_max = line;
	}
}

static int add_gap(struct bts_call_cursor *c, const struct bts_run *run)
{
	struct bts_segment *seg;
	int ret = restart(c, BTS_SEG_GAP, NULL, run->index, 0,
			  c->have_cur ? cur_seg(c)->level : 0);

	if (ret)
		return ret;
	seg = cur_seg(c);
	seg->gap = run->gap;
	seg->gap_arg = run->gap_arg;
	c->last = (struct last_insn){ 0 };
	return 0;
}

static int add_run(struct bts_call_cursor *c, const struct bts_run *run)
{
	const struct bts_dblock *b = run->b;
	struct bts_segment *seg;
	uint64_t ip;
	uint32_t lasti;
	int ret;

	if (!b)
		return add_gap(c, run);
	ip = b->start + b->off[run->first];
	ret = segment_for(c, run, ip, run->index);
	if (ret)
		return ret;
	seg = cur_seg(c);
	seg->last = run->index + run->count - 1;
	if (!seg->function && !seg->object)
		seg->object = bts_symbolize_object(c->sym, ip);
	if (c->lines && c->sym)
		add_lines(c, run);
	lasti = run->first + run->count - 1;
	c->last = (struct last_insn){
		.ip = b->start + b->off[lasti],
		.size = b->off[lasti + 1] - b->off[lasti],
		.iclass = b->cls[lasti],
		.flags = run->flags | run->last_flags |
			 (run->count == 1 ? run->first_flags : 0),
	};
	return 0;
}

int bts_call_cursor_new(const struct bts_trace *t, size_t thread,
			const struct bts_calls_opts *opts,
			struct bts_call_cursor **out)
{
	struct bts_call_cursor *c;
	int ret;

	if (!t || !out)
		return bts_fail(BTS_E_INVAL, "call cursor: no trace or no result");
	ret = BTS_OPTS_VALID(opts, "call history options");
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return bts_fail(BTS_E_NOMEM, "call cursor");
	c->sym = BTS_OPTS_GET(opts, sym, NULL);
	c->lines = BTS_OPTS_GET(opts, lines, false);
	ret = bts_insn_decoder_new(t, thread, BTS_OPTS_GET(opts, decoder, NULL),
				   &c->d);
	if (ret < 0) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void bts_call_cursor_free(struct bts_call_cursor *c)
{
	if (!c)
		return;
	bts_insn_decoder_free(c->d);
	free(c->stack);
	free(c);
}

/* Decodes until a segment is finished: 1, 0 at the end, or an error. */
static int finish_one(struct bts_call_cursor *c)
{
	const struct bts_run *run;
	int ret;

	while (!c->have_done) {
		if (c->ended) {
			if (!c->have_cur)
				return 0;
			c->cur ^= 1;
			c->have_done = true;
			c->have_cur = false;
			break;
		}
		ret = bts_decode_next_run(c->d, &run);
		/* The decoder's detail says what went wrong (a file that changed...). */
		if (ret < 0)
			return ret;
		if (!ret)
			c->ended = true;
		else if (add_run(c, run) < 0)
			return bts_fail(BTS_E_NOMEM, "call cursor");
	}
	return 1;
}

int bts_call_cursor_next(struct bts_call_cursor *c, struct bts_segment *seg,
			 size_t size)
{
	int ret;

	/* Refused before decoding: a bad call must not lose a segment. */
	if (!c || !seg || !size)
		return bts_fail(BTS_E_INVAL, "call cursor: no cursor, no segment "
				"or a segment of 0 bytes");
	ret = finish_one(c);
	if (ret <= 0)
		return ret;
	c->have_done = false;
	/* A caller built with this bts.h: a struct copy, not a call. */
	if (__builtin_expect(size == sizeof(*seg), 1)) {
		*seg = c->seg[c->cur ^ 1];
		return 1;
	}
	ret = BTS_OUT_FILL(seg, size, &c->seg[c->cur ^ 1], "segment");
	return ret < 0 ? ret : 1;
}

int bts_call_cursor_min_level(const struct bts_call_cursor *c)
{
	return c ? c->min_level : 0;
}

const struct bts_insn_decoder *
bts_call_cursor_decoder(const struct bts_call_cursor *c)
{
	return c ? c->d : NULL;
}

/* ------------------------------------------------------- whole history */

static int gather(struct bts_call_cursor *c, struct bts_call_history *h)
{
	struct bts_segment s;
	int ret;

	while ((ret = bts_call_cursor_next(c, &s, sizeof(s))) > 0) {
		if (BTS_ARRAY_RESERVE(h->segs, h->cap, h->n + 1))
			return bts_fail(BTS_E_NOMEM, "call history");
		h->segs[h->n++] = s;
		h->insns += s.last - s.first + 1;
		h->gaps += s.entry == BTS_SEG_GAP;
	}
	return ret;
}

int bts_call_history_new(const struct bts_trace *t, size_t thread,
			 const struct bts_calls_opts *opts,
			 struct bts_call_history **out)
{
	struct bts_call_history *h;
	struct bts_call_cursor *c;
	int ret = bts_call_cursor_new(t, thread, opts, &c);

	if (ret < 0)
		return ret;
	h = calloc(1, sizeof(*h));
	if (!h) {
		bts_call_cursor_free(c);
		return bts_fail(BTS_E_NOMEM, "call history");
	}
	ret = gather(c, h);
	/* gdb shows the outermost level of the history as 0. */
	for (size_t i = 0; i < h->n; i++)
		h->segs[i].level -= bts_call_cursor_min_level(c);
	bts_call_cursor_free(c);
	if (ret < 0) {
		bts_call_history_free(h);
		return ret;
	}
	*out = h;
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
	return h && i < h->n ? &h->segs[i] : NULL;
}

uint64_t bts_call_history_insns(const struct bts_call_history *h)
{
	return h ? h->insns : 0;
}

uint64_t bts_call_history_gaps(const struct bts_call_history *h)
{
	return h ? h->gaps : 0;
}
