// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Backtraces at any position.  At the stop the unwinder's stack is the
 * truth.  Before it, the frames down to the shallowest depth reached
 * between the position and the stop come from the history (the calls that
 * are open at the position, found walking back), and the frames below it
 * are the unwinder's, which those instructions never touched.  Without a
 * stop, the frames are those of the history's index point before the
 * position, with the calls and returns since.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "../btrace.h"
#include "../dump.h"
#include "../names.h"
#include "frames.h"

struct frame_list {
	struct replay_frame *v;
	size_t n, max;
};

static void add(struct frame_list *l, int kind, uint64_t pc)
{
	if (l->n < l->max)
		l->v[l->n++] = (struct replay_frame){ kind, pc };
}

/*
 * The frames below level @cur, walking back from instruction @q to the
 * instruction that entered each, down to @floor; returns the level
 * reached.  Stops once @l is full.
 */
static int32_t walk_back(const struct replay_history *h, uint64_t q,
			 int32_t cur, int32_t floor, struct frame_list *l)
{
	while (q >= 1 && cur > floor && l->n < l->max) {
		const struct replay_insn *in = replay_insn(h, q);

		if (in->depth >= cur) {
			q = replay_history_shallower(h, q, cur, true, false);
			continue;
		}
		/* A signal entered two frames at once: the handler's caller
		 * is the kernel's signal frame, and below it the interrupted
		 * pc, not a return address. */
		bool signal = cur - in->depth > 1;

		for (cur--; cur > in->depth; cur--)
			add(l, FRAME_SIGNAL, 0);
		add(l, signal ? FRAME_PC : FRAME_RETURN, in->ip + in->size);
		q--;
	}
	return cur;
}

/*
 * The frames open at @pos from depth[pos] down to @floor, walking back to
 * the instruction that entered each; frames the history does not reach
 * back to are unknown.
 */
static void history_frames(const struct replay_history *h, uint64_t pos,
			   int32_t floor, struct frame_list *l)
{
	int32_t cur = replay_insn(h, pos)->depth;

	if (replay_insn(h, pos)->iclass == BTS_ICLASS_GAP)
		add(l, FRAME_GAP, 0);
	else
		add(l, FRAME_PC, replay_insn(h, pos)->ip);
	cur = walk_back(h, pos - 1, cur, floor, l);
	if (floor == INT32_MIN)
		return;
	for (; cur > floor; cur--)
		add(l, FRAME_UNKNOWN, 0);
}

/* The frames open going into an instruction, outermost first. */
struct open_stack {
	struct replay_frame *v;
	size_t n, cap;
	bool cut;	/* the point kept only the innermost of its sites */
	bool lost;	/* a return uncovered a frame the point did not keep */
	bool nomem;
};

static void open_push(struct open_stack *s, int kind, uint64_t pc)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 2 * BTS_INDEX_SITES;
		struct replay_frame *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->nomem = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct replay_frame){ kind, pc };
}

/* Below the frames known, a frame older than the history is no frame. */
static void open_pop(struct open_stack *s)
{
	if (s->n)
		s->n--;
	else if (s->cut)
		s->lost = true;
}

/* The kind of the frame of site @i of a point (innermost first). */
static int site_kind(const uint64_t *sites, size_t i)
{
	if (sites[i] == BTS_INDEX_SIGNAL_FRAME)
		return FRAME_SIGNAL;
	if (i > 0 && sites[i - 1] == BTS_INDEX_SIGNAL_FRAME)
		return FRAME_PC;
	return FRAME_RETURN;
}

/* The scan from an index point to the position. */
struct open_scan {
	struct open_stack s;
	uint64_t pos;
	uint64_t end;		/* where the last instruction ended; 0: none */
	size_t fix;		/* frame waiting for the pc before the point; 0: none */
	struct replay_insn here;
	bool reached;
};

/*
 * Instruction @q on the stack: a signal enters the interrupted pc (where
 * the instruction before it ended) and the signal frame; unless @q is the
 * position itself, a taken call enters its return site, a return or
 * sigreturn leaves a frame.
 */
static void open_step(void *arg, uint64_t q, const struct replay_insn *in)
{
	struct open_scan *sc = arg;
	struct open_stack *s = &sc->s;

	if (in->flags & BTS_IF_SIGNAL && sc->end) {
		open_push(s, FRAME_PC, sc->end);
		/* The first one after the point: the end is the point's. */
		if (sc->end == UINT64_MAX)
			sc->fix = s->n;
		open_push(s, FRAME_SIGNAL, 0);
	}
	sc->end = in->ip + in->size;
	if (q == sc->pos) {
		sc->here = *in;
		sc->reached = true;
		return;
	}
	if (in->iclass == BTS_ICLASS_CALL && (in->flags & BTS_IF_TAKEN))
		open_push(s, FRAME_RETURN, in->ip + in->size);
	else if (in->iclass == BTS_ICLASS_RETURN || (in->flags & BTS_IF_SIGRETURN))
		open_pop(s);
	if (sc->fix > s->n)
		sc->fix = 0;
}

/*
 * The frames open at @pos from the index point before it: its return
 * sites, then the calls and returns from there to @pos, so that only
 * those instructions are decoded, not the history before them; a stack
 * deeper than the point kept is walked back for the rest.  False when the
 * point cannot tell (an index that counts depth otherwise, a return below
 * the sites it kept, no memory): the walk back decides.
 */
static bool point_frames(const struct replay_history *h, uint64_t pos,
			 struct frame_list *l)
{
	struct open_scan sc = { .pos = pos };
	struct open_stack *s = &sc.s;
	struct bts_index_point pt;
	int32_t low;
	bool ok;

	if (!replay_history_point(h, pos, &pt, &low))
		return false;
	s->cut = (int64_t)pt.nsites < pt.depth - low;
	for (size_t i = pt.nsites; i-- > 0;)
		open_push(s, site_kind(pt.sites, i), pt.sites[i]);
	/* Past the start, where the instruction before the point ended is
	 * asked for only if a signal needs it. */
	sc.end = pt.entry ? UINT64_MAX : 0;
	ok = replay_history_scan(h, pt.entry + 1, pos, open_step, &sc) == 0 &&
	     sc.reached && !s->lost && !s->nomem;
	if (ok && sc.fix) {
		const struct replay_insn *in = replay_insn(h, pt.entry);

		s->v[sc.fix - 1].pc = in->ip + in->size;
	}
	if (ok) {
		if (sc.here.iclass == BTS_ICLASS_GAP)
			add(l, FRAME_GAP, 0);
		else
			add(l, FRAME_PC, sc.here.ip);
		for (size_t i = s->n; i-- > 0 && l->n < l->max;)
			add(l, s->v[i].kind, s->v[i].pc);
		/* Deeper than the point kept: the older frames, walking back. */
		if (s->cut)
			walk_back(h, pt.entry, sc.here.depth - (int32_t)s->n,
				  low, l);
	}
	free(s->v);
	return ok;
}

size_t replay_frames(const struct replay_history *h, uint64_t pos,
		     const struct replay_stop *stop,
		     struct replay_frame *out, size_t max)
{
	struct frame_list l = { out, 0, max };
	int32_t floor = INT32_MIN;
	size_t skip;

	if (!stop || !stop->pos || pos > stop->pos) {
		if (!point_frames(h, pos, &l))
			history_frames(h, pos, floor, &l);
		return l.n;
	}
	if (pos == stop->pos) {
		for (size_t i = 0; i < stop->n; i++)
			add(&l, stop->frames[i].kind, stop->frames[i].pc);
		return l.n;
	}
	floor = replay_history_lowest(h, pos, stop->pos);
	history_frames(h, pos, floor, &l);
	skip = replay_insn(h, stop->pos)->depth - floor + 1;
	for (size_t i = skip; i < stop->n; i++)
		add(&l, stop->frames[i].kind, stop->frames[i].pc);
	return l.n;
}

static void print_text(struct bts_symbolizer *sym, size_t i,
		       const struct replay_frame *fr)
{
	uint64_t at = fr->kind == FRAME_RETURN ? fr->pc - 1 : fr->pc;
	const char *name = NULL, *file = NULL;
	uint64_t off;
	int line = 0;

	printf("#%-3zu", i);
	if (fr->kind == FRAME_SIGNAL) {
		fputs("<signal handler called>\n", stdout);
		return;
	}
	if (fr->kind == FRAME_UNKNOWN) {
		fputs("?? (a frame older than the history)\n", stdout);
		return;
	}
	if (fr->kind == FRAME_GAP) {
		fputs("<a gap in the history>\n", stdout);
		return;
	}
	if (sym && symbolize_shown(sym, at, &name, &off) < 0)
		name = NULL;
	if (sym && bts_symbolize_line(sym, at, &file, &line) < 0)
		file = NULL;
	printf("0x%016" PRIx64 " in %s ()", fr->pc, name ? name : "??");
	if (!name && bts_symbolize_object(sym, at))
		printf(" from %s", shown(bts_symbolize_object(sym, at)));
	if (file)
		printf(" at %s:%d", shown(file), line);
	putchar('\n');
}

static void print_json(struct bts_symbolizer *sym, size_t i,
		       const struct replay_frame *fr)
{
	static const char *const kinds[] = {
		"pc", "return", "signal", "unknown", "gap",
	};
	uint64_t at = fr->kind == FRAME_RETURN ? fr->pc - 1 : fr->pc;
	const char *name, *file;
	uint64_t off;
	int line;

	printf("{\"n\":%zu,\"kind\":\"%s\"", i, kinds[fr->kind]);
	if (fr->kind == FRAME_PC || fr->kind == FRAME_RETURN) {
		printf(",\"pc\":\"0x%" PRIx64 "\"", fr->pc);
		if (sym && symbolize_shown(sym, at, &name, &off) == 0) {
			fputs(",\"func\":", stdout);
			json_str(name);
			printf(",\"off\":%" PRIu64, fr->pc - at + off);
		} else if ((name = bts_symbolize_object(sym, at))) {
			fputs(",\"object\":", stdout);
			json_str(name);
		}
		if (sym && bts_symbolize_line(sym, at, &file, &line) == 0) {
			fputs(",\"file\":", stdout);
			json_str(file);
			printf(",\"line\":%d", line);
		}
	}
	putchar('}');
}

void replay_frame_print(struct bts_symbolizer *sym, size_t i,
			const struct replay_frame *fr, bool json)
{
	if (json)
		print_json(sym, i, fr);
	else
		print_text(sym, i, fr);
}
