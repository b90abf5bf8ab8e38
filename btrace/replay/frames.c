// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Backtraces at any position.  At the stop the unwinder's stack is the
 * truth.  Elsewhere, the frames down to the shallowest depth reached
 * between the position and the stop come from the history (the calls that
 * are open at the position, found walking back), and the frames below it
 * are the unwinder's, which those instructions never touched.
 */
#include <inttypes.h>

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
	for (uint64_t q = pos - 1; q >= 1 && cur > floor; q--) {
		const struct replay_insn *in = replay_insn(h, q);

		if (in->depth >= cur)
			continue;
		/* A signal entered two frames at once: the handler's caller
		 * is the kernel's signal frame, and below it the interrupted
		 * pc, not a return address. */
		bool signal = cur - in->depth > 1;

		for (cur--; cur > in->depth; cur--)
			add(l, FRAME_SIGNAL, 0);
		add(l, signal ? FRAME_PC : FRAME_RETURN, in->ip + in->size);
	}
	if (floor == INT32_MIN)
		return;
	for (; cur > floor; cur--)
		add(l, FRAME_UNKNOWN, 0);
}

size_t replay_frames(const struct replay_history *h, uint64_t pos,
		     const struct replay_stop *stop,
		     struct replay_frame *out, size_t max)
{
	struct frame_list l = { out, 0, max };
	int32_t floor = INT32_MIN;
	size_t skip;

	if (!stop || !stop->pos || pos > stop->pos) {
		history_frames(h, pos, floor, &l);
		return l.n;
	}
	if (pos == stop->pos) {
		for (size_t i = 0; i < stop->n; i++)
			add(&l, stop->frames[i].kind, stop->frames[i].pc);
		return l.n;
	}
	floor = replay_insn(h, pos)->depth;
	for (uint64_t q = pos; q <= stop->pos; q++)
		if (replay_insn(h, q)->depth < floor)
			floor = replay_insn(h, q)->depth;
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
