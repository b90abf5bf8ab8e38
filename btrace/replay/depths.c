// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Searches of a history by call depth that pass over whole stretches
 * between index points: the loading pass noted each stretch's lowest
 * depth and whether it holds a gap, so a stretch that cannot hold the
 * instruction sought is never decoded.  Leaving a call that ran for 10^8
 * instructions then costs its few thousand points and the decode of the
 * stretch where it returns.
 */
#include "history.h"

/* Stretch @k: the entries after point @k up to the next point's. */
struct stretch {
	size_t k;
	uint64_t first, last;
};

/* The stretch that holds entry @q. */
static struct stretch stretch_of(const struct replay_history *h, uint64_t q)
{
	const struct bts_index *ix = h->w->ix;
	size_t k = bts_index_find(ix, q);
	struct stretch s = {
		.k = k,
		.first = replay_point_entry(ix, k, 0) + 1,
		.last = replay_point_entry(ix, k + 1, h->n),
	};

	if (s.last > h->n)
		s.last = h->n;
	return s;
}

/* Whether stretch @s holds nothing shallower than @depth, nor a gap. */
static bool plain(const struct replay_history *h, const struct stretch *s,
		  int32_t depth, bool gaps)
{
	return h->w->seg_low[s->k] >= depth && !(gaps && h->w->seg_gap[s->k]);
}

static bool sought(const struct replay_insn *in, int32_t depth, bool gaps)
{
	return in->depth < depth || (gaps && in->iclass == BTS_ICLASS_GAP);
}

static uint64_t forward(const struct replay_history *h, uint64_t q,
			int32_t depth, bool gaps)
{
	uint64_t x = q + 1;

	while (x <= h->n) {
		struct stretch s = stretch_of(h, x);

		if (x == s.first && plain(h, &s, depth, gaps)) {
			x = s.last + 1;
			continue;
		}
		for (; x <= s.last; x++)
			if (sought(replay_insn(h, x), depth, gaps))
				return x;
	}
	return 0;
}

static uint64_t backward(const struct replay_history *h, uint64_t q,
			 int32_t depth, bool gaps)
{
	uint64_t x = q - 1;

	while (x >= 1) {
		struct stretch s = stretch_of(h, x);

		if (x == s.last && plain(h, &s, depth, gaps)) {
			x = s.first - 1;
			continue;
		}
		for (; x >= s.first; x--)
			if (sought(replay_insn(h, x), depth, gaps))
				return x;
	}
	return 0;
}

uint64_t replay_history_shallower(const struct replay_history *h, uint64_t q,
				  int32_t depth, bool back, bool gaps)
{
	if (back)
		return q > 1 ? backward(h, q, depth, gaps) : 0;
	return q < h->n ? forward(h, q, depth, gaps) : 0;
}

int32_t replay_history_lowest(const struct replay_history *h, uint64_t from,
			      uint64_t to)
{
	int32_t low = INT32_MAX;
	uint64_t x = from;

	while (x <= to) {
		struct stretch s = stretch_of(h, x);

		if (x == s.first && s.last <= to) {
			if (h->w->seg_low[s.k] < low)
				low = h->w->seg_low[s.k];
			x = s.last + 1;
			continue;
		}
		for (; x <= to && x <= s.last; x++)
			if (replay_insn(h, x)->depth < low)
				low = replay_insn(h, x)->depth;
	}
	return low;
}
