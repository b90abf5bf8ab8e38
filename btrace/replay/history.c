// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The instruction history of one thread, decoded once into memory so that
 * replay can move both ways, with the real call depth of every instruction.
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

static int push(struct replay_history *h, uint64_t *cap,
		const struct bts_insn_entry *e, int32_t depth)
{
	struct replay_insn *in;

	if (h->n == *cap) {
		uint64_t ncap = *cap ? 2 * *cap : 4096;
		struct replay_insn *v = realloc(h->insns, ncap * sizeof(*v));

		if (!v)
			return -BTS_E_NOMEM;
		h->insns = v;
		*cap = ncap;
	}
	in = &h->insns[h->n++];
	memset(in, 0, sizeof(*in));
	in->ip = e->iclass == BTS_ICLASS_GAP ? e->gap_arg : e->ip;
	in->size = e->size > sizeof(in->raw) ? sizeof(in->raw) : e->size;
	if (e->raw)
		memcpy(in->raw, e->raw, in->size);
	in->iclass = e->iclass;
	in->gap = e->gap;
	in->flags = e->flags;
	in->depth = depth;
	return 0;
}

int replay_history_load(const struct bts_trace *t, size_t thread,
			struct replay_history *h)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	uint64_t cap = 0;
	int32_t depth = 0, step = 0;
	int ret = bts_insn_decoder_new(t, thread, NULL, &d);

	memset(h, 0, sizeof(*h));
	if (ret < 0)
		return ret;
	while ((ret = bts_insn_next(d, &e, sizeof(e))) > 0) {
		depth += step;
		if (e.flags & BTS_IF_SIGNAL)
			depth += 2;
		ret = push(h, &cap, &e, depth);
		if (ret < 0)
			break;
		step = depth_step(&e);
	}
	bts_insn_decoder_free(d);
	if (ret < 0)
		replay_history_free(h);
	return ret < 0 ? ret : 0;
}

void replay_history_free(struct replay_history *h)
{
	free(h->insns);
	memset(h, 0, sizeof(*h));
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
}
