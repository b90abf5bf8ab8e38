// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Code rewritten while the program ran (a JIT's).  A trace holds one copy
 * of such code, taken late (a crash trace's, at the crash), and decoding
 * a run of an earlier version with it would show instructions that never
 * ran.  The recorder says where it found code changed since it decoded it
 * (a PTBTS_GAP_CODE_CHANGED marker before the thread runs it: the code
 * from the last record's @to to the next record's @from); one pass over
 * a thread's records collects these, and a run that such code made before
 * a later change is not decoded (decode.c gives a BTS_GAP_CODE_CHANGED).
 * The pass is skipped for a thread whose records the reader's opening pass
 * saw all (raw ones) without a marker.
 */
#include <stdlib.h>

#include "decode/decode.h"
#include "trace/reader.h"
#include "trace/rec_iter.h"
#include "util/array.h"

/* Longer than any block; a wider span is no block (a lost record between). */
#define SPAN_MAX (64u << 10)

struct change {
	uint64_t rec;		/* the marker's number among the records, from 1 */
	uint64_t lo, hi;	/* the code it covers, inclusive */
};

struct bts_code_changes {
	struct change *v;
	size_t n, cap;
	size_t first;		/* the first change past the record decoded */
	uint64_t lo, hi;	/* the bounds of them all */
};

static int add(struct bts_code_changes *c, uint64_t rec, uint64_t lo,
	       uint64_t hi)
{
	if (!lo)
		lo = hi;
	if (!hi || lo > hi || hi - lo > SPAN_MAX)
		hi = lo;
	if (!lo)
		return 0;
	if (BTS_ARRAY_RESERVE(c->v, c->cap, c->n + 1))
		return bts_fail(BTS_E_NOMEM, "decoder: code changes");
	c->v[c->n++] = (struct change){ rec, lo, hi };
	if (c->n == 1 || lo < c->lo)
		c->lo = lo;
	if (hi > c->hi)
		c->hi = hi;
	return 0;
}

static bool is_change(const struct ptbts_record *r, int kind)
{
	return kind == PTBTS_KIND_GAP && !r->from && r->to == PTBTS_GAP_CODE_CHANGED;
}

int bts_code_changes_scan(const struct bts_trace *t, size_t thread,
			  struct bts_code_changes **out)
{
	struct bts_code_changes *c = calloc(1, sizeof(*c));
	uint64_t prev_to = 0, pending_lo = 0, pending_rec = 0, i = 0;
	bool pending = false;
	struct bts_rec_iter it;
	struct ptbts_record r;
	int ret;

	if (!c)
		return bts_fail(BTS_E_NOMEM, "decoder: code changes");
	/* The opening pass saw every raw record: none to look for. */
	if (!t->threads[thread].may_change) {
		*out = c;
		return 0;
	}
	bts_rec_iter_init(t, thread, &it);
	for (ret = 0; (ret = bts_rec_iter_next(&it, &r)) > 0; i++) {
		int kind = bts_record_kind(&r);

		if (is_change(&r, kind)) {
			if (pending && (ret = add(c, pending_rec, pending_lo, 0)))
				break;
			pending = true;
			pending_rec = i + 1;	/* from 1, as decode.c counts */
			pending_lo = prev_to;
			continue;
		}
		/* A branch's from ends the changed code; a marker leaves it unknown. */
		if (pending && (ret = add(c, pending_rec, pending_lo,
					  kind >= 0 && r.from ? r.from : 0)))
			break;
		pending = false;
		prev_to = kind >= 0 && r.from ? r.to : 0;
	}
	if (!ret && pending)
		ret = add(c, pending_rec, pending_lo, 0);
	if (ret < 0) {
		bts_code_changes_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void bts_code_changes_free(struct bts_code_changes *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

bool bts_code_changed_after(struct bts_code_changes *c, uint64_t rec,
			    uint64_t lo, uint64_t hi)
{
	if (!c || !c->n || hi < c->lo || lo > c->hi)
		return false;
	/* Records are decoded in order: changes before them are done with. */
	while (c->first < c->n && c->v[c->first].rec <= rec)
		c->first++;
	for (size_t i = c->first; i < c->n; i++)
		if (c->v[i].lo <= hi && lo <= c->v[i].hi)
			return true;
	return false;
}

void bts_code_changes_rewind(struct bts_code_changes *c)
{
	if (c)
		c->first = 0;
}
