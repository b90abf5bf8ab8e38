// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The index of a thread's history (bts.h): built by one pass of the
 * decoder, which stops to note its state between records every
 * @interval records, with the call depth and the innermost return sites
 * there; or taken from the file's INDEX chunk (trace/reader_index.c).  A
 * decoder put back in a point's state hands out the same entries as one
 * that decoded every record before it (decode.c keeps nothing else from
 * record to record but its caches).
 */
#include <stdlib.h>

#include "decode/decode.h"
#include "trace/index.h"
#include "trace/reader.h"
#include "util/array.h"
#include "util/opts.h"

/*
 * The innermost return sites, as a ring: older ones fall off.  Frames
 * entered before the history started are known by the depth alone.
 */
struct site_stack {
	uint64_t v[BTS_INDEX_SITES];
	unsigned int top, n;	/* the next slot; sites held */
	int64_t depth;
	uint64_t end;		/* where the last entry ended; 0: none yet */
};

static void stack_call(struct site_stack *s, uint64_t site)
{
	s->v[s->top] = site;
	s->top = (s->top + 1) % BTS_INDEX_SITES;
	if (s->n < BTS_INDEX_SITES)
		s->n++;
	s->depth++;
}

static void stack_return(struct site_stack *s)
{
	if (s->n) {
		s->top = (s->top + BTS_INDEX_SITES - 1) % BTS_INDEX_SITES;
		s->n--;
	}
	s->depth--;
}

/*
 * A signal enters two frames, as unwinders see them: below the handler,
 * the kernel's signal frame (site BTS_INDEX_SIGNAL_FRAME), and below that
 * the interrupted code, whose pc is where the entry before it ended.  The
 * handler's return leaves one, the restorer's sigreturn the other.
 */
static void stack_signal(struct site_stack *s)
{
	if (!s->end) {
		/* At the history's start: nothing below is known. */
		s->depth += 2;
		return;
	}
	stack_call(s, s->end);
	stack_call(s, BTS_INDEX_SIGNAL_FRAME);
}

/* Calls that went somewhere (taken) push, returns and sigreturns pop. */
static void stack_run(struct site_stack *s, const struct bts_run *r)
{
	const struct bts_dblock *b = r->b;
	uint32_t last;

	if (r->first_flags & BTS_IF_SIGNAL)
		stack_signal(s);
	if (!b) {
		s->end = r->gap_arg;
		return;
	}
	last = r->first + r->count - 1;
	for (uint32_t i = r->first; i <= last; i++) {
		uint16_t f = r->flags | (i == last ? r->last_flags : 0);

		if (b->cls[i] == BTS_ICLASS_CALL && (f & BTS_IF_TAKEN))
			stack_call(s, b->start + b->off[i + 1]);
		else if (b->cls[i] == BTS_ICLASS_RETURN)
			stack_return(s);
		else if (f & BTS_IF_SIGRETURN)
			stack_return(s);
	}
	s->end = b->start + b->off[last + 1];
}

static int add_point(struct bts_index *ix, const struct bts_decode_state *st,
		     const struct site_stack *s)
{
	struct index_point *pt;

	if (BTS_ARRAY_RESERVE(ix->points, ix->cappoints, ix->npoints + 1) ||
	    BTS_ARRAY_RESERVE(ix->sites, ix->capsites, ix->nsites + s->n))
		return bts_fail(BTS_E_NOMEM, "history index");
	pt = &ix->points[ix->npoints++];
	*pt = (struct index_point){
		.record = st->rec, .entry = st->index, .prev_to = st->prev_to,
		.depth = s->depth, .flags = st->next_flags, .nsites = s->n,
		.site = ix->nsites,
	};
	/* Innermost first. */
	for (unsigned int i = 0; i < s->n; i++)
		ix->sites[ix->nsites++] =
			s->v[(s->top + BTS_INDEX_SITES - 1 - i) % BTS_INDEX_SITES];
	return 0;
}

static int build(struct bts_insn_decoder *d, struct bts_index *ix)
{
	struct site_stack s = { .depth = 0 };
	struct bts_decode_state st;
	uint64_t next, entries = 0;
	const struct bts_run *run;
	int ret;

	bts_decode_state_get(d, &st);
	ret = add_point(ix, &st, &s);
	next = ix->interval;
	while (!ret && (ret = bts_decode_next_run(d, &run)) > 0) {
		stack_run(&s, run);
		entries = run->index + (run->b ? run->count : 1) - 1;
		ret = 0;
		if (bts_decode_state_get(d, &st) && st.rec >= next) {
			ret = add_point(ix, &st, &s);
			next = st.rec + ix->interval;
		}
	}
	if (ret < 0)
		return ret;
	ix->entries = entries;
	return 0;
}

static int index_build(const struct bts_trace *t, size_t thread,
		       const struct bts_index_opts *opts, struct bts_index **out)
{
	const struct bts_thread_info *th = bts_trace_thread(t, thread);
	struct bts_insn_decoder *d;
	struct bts_index *ix;
	int ret;

	ret = bts_insn_decoder_new(t, thread, BTS_OPTS_GET(opts, decoder, NULL), &d);
	if (ret < 0)
		return ret;
	ix = calloc(1, sizeof(*ix));
	if (!ix) {
		bts_insn_decoder_free(d);
		return bts_fail(BTS_E_NOMEM, "history index");
	}
	ix->tid = th->tid;
	ix->stack_max = BTS_INDEX_SITES;
	ix->interval = BTS_OPTS_GET(opts, interval, 0);
	if (!ix->interval)
		ix->interval = BTS_INDEX_INTERVAL;
	ix->records = th->nrecords;
	ret = build(d, ix);
	bts_insn_decoder_free(d);
	if (ret < 0) {
		bts_index_release(ix);
		return ret;
	}
	*out = ix;
	return 0;
}

int bts_index_new(const struct bts_trace *t, size_t thread,
		  const struct bts_index_opts *opts, struct bts_index **out)
{
	int ret;

	if (!t || !out || thread >= bts_trace_nthreads(t))
		return bts_fail(BTS_E_INVAL, "history index: no thread %zu", thread);
	ret = BTS_OPTS_VALID(opts, "index options");
	if (ret)
		return ret;
	if (t->threads[thread].index && !BTS_OPTS_GET(opts, rebuild, false)) {
		*out = bts_index_copy(t->threads[thread].index);
		return *out ? 0 : bts_fail(BTS_E_NOMEM, "history index");
	}
	if (BTS_OPTS_GET(opts, file_only, false)) {
		*out = NULL;
		return 0;
	}
	return index_build(t, thread, opts, out);
}

void bts_index_free(struct bts_index *ix)
{
	bts_index_release(ix);
}

bool bts_index_from_file(const struct bts_index *ix)
{
	return ix && ix->from_file;
}

uint64_t bts_index_entries(const struct bts_index *ix)
{
	return ix ? ix->entries : 0;
}

size_t bts_index_npoints(const struct bts_index *ix)
{
	return ix ? ix->npoints : 0;
}

int bts_index_point(const struct bts_index *ix, size_t i,
		    struct bts_index_point *pt, size_t size)
{
	const struct index_point *p;
	struct bts_index_point out;
	const uint64_t *sites;
	int ret;

	if (!ix || i >= ix->npoints)
		return bts_fail(BTS_E_INVAL, "history index: no point %zu", i);
	ret = bts_index_at(ix, i, &p, &sites);
	if (ret)
		return ret;
	out = (struct bts_index_point){
		.record = p->record, .entry = p->entry, .depth = p->depth,
		.nsites = p->nsites, .sites = sites,
	};
	return BTS_OUT_FILL(pt, size, &out, "index point");
}

/* Before point @i: whether its entry is below @entry (false: unreadable). */
static bool point_below(const struct bts_index *ix, size_t i, uint64_t entry)
{
	const struct index_point *p;
	const uint64_t *sites;

	return !bts_index_at(ix, i, &p, &sites) && p->entry < entry;
}

size_t bts_index_find(const struct bts_index *ix, uint64_t entry)
{
	size_t lo = 0, hi, g;

	if (!ix || !ix->npoints)
		return 0;
	hi = ix->npoints;
	if (ix->groups) {
		/* The group before the first that starts at or past @entry. */
		for (g = ix->ngroups; lo < g;) {
			size_t mid = lo + (g - lo) / 2;

			if (ix->groups[mid].entry < entry)
				lo = mid + 1;
			else
				g = mid;
		}
		if (!lo)
			return 0;
		hi = lo * BTS_INDEX_GROUP < hi ? lo * BTS_INDEX_GROUP : hi;
		lo = (lo - 1) * BTS_INDEX_GROUP;
	}
	/* The first point at or past @entry, less one. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (point_below(ix, mid, entry))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

int bts_insn_decoder_seek(struct bts_insn_decoder *d,
			  const struct bts_index *ix, uint64_t entry)
{
	const struct index_point *p;
	const struct bts_trace *t;
	struct bts_insn_entry e;
	const uint64_t *sites;
	size_t thread;
	int ret;

	if (!d || !ix || !ix->npoints)
		return bts_fail(BTS_E_INVAL, "decoder seek: no decoder or index");
	t = bts_decode_trace(d, &thread);
	if (t->threads[thread].info.tid != ix->tid ||
	    t->threads[thread].info.nrecords != ix->records)
		return bts_fail(BTS_E_INVAL, "decoder seek: the index of another thread");
	ret = bts_index_at(ix, bts_index_find(ix, entry), &p, &sites);
	if (ret)
		return ret;
	bts_decode_state_set(d, &(struct bts_decode_state){
		.rec = p->record, .index = p->entry, .prev_to = p->prev_to,
		.next_flags = p->flags,
	});
	/* Up to the entry before @entry: the caller's next is @entry. */
	for (uint64_t at = p->entry; at + 1 < entry; at = e.index) {
		ret = bts_insn_next(d, &e, sizeof(e));
		if (ret <= 0)
			return ret;
	}
	return 0;
}
