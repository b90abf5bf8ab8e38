// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Records -> the instruction history of one thread.
 *
 * What a record means (README.md, "What a record is"): a branch record's
 * @from ran and was taken to @to; everything from one record's @to to the next one's @from
 * ran in a row.  A signal record's @from did NOT run (the block before it
 * ends just before it); a sigreturn's @from is the restorer's syscall,
 * which did.  Markers (from == 0) are holes.  Every record turns into at
 * most three runs (instructions of one block, or one gap), queued here and
 * handed out one by one; bts_insn_next() hands out their entries.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "trace/rec_iter.h"
#include "util/opts.h"

/* A record makes at most three runs; four slots index with a mask. */
#define QUEUE_MAX 4

struct bts_insn_decoder {
	struct bts_rec_iter it;
	struct bts_code_image *ci;
	struct bts_dblock_cache *cache;
	struct bts_code_changes *changes;
	uint64_t rec;		/* the number of the record being decoded, from 1 */
	uint64_t prev_to;	/* where the next block starts; 0: unknown */
	uint16_t next_flags;	/* for the next run's first entry */
	uint64_t index;		/* entries numbered so far */
	bool tail_done;
	struct bts_run queue[QUEUE_MAX];
	unsigned int head, nqueue;
	struct bts_run cur;	/* what bts_insn_next() hands out: */
	uint32_t pos, end;	/* the next instruction of cur.b, and the end */
	uint64_t next_index;
};

static const char *const gap_names[BTS_GAP_MAX] = {
	[BTS_GAP_NONE]		= "none",
	[BTS_GAP_LOST]		= "lost",
	[BTS_GAP_MARKER]	= "marker",
	[BTS_GAP_FILTERED]	= "filtered",
	[BTS_GAP_EXEC]		= "exec",
	[BTS_GAP_NOCODE]	= "nocode",
	[BTS_GAP_UNDECODABLE]	= "undecodable",
	[BTS_GAP_NO_PATH]	= "no-path",
	[BTS_GAP_NOT_BRANCH]	= "not-branch",
	[BTS_GAP_CODE_CHANGED]	= "code-changed",
};

const char *bts_gap_name(int reason)
{
	if (reason < 0 || reason >= BTS_GAP_MAX)
		return "unknown";
	return gap_names[reason];
}

int bts_insn_decoder_new(const struct bts_trace *t, size_t thread,
			 const struct bts_decoder_opts *opts,
			 struct bts_insn_decoder **out)
{
	const struct bts_thread_info *th;
	struct bts_insn_decoder *d;
	struct bts_session *live = NULL;
	size_t max = 0;
	int ret;

	if (!t || !out || thread >= bts_trace_nthreads(t))
		return bts_fail(BTS_E_INVAL, "decoder: no thread %zu", thread);
	ret = BTS_OPTS_VALID(opts, "decoder options");
	if (ret)
		return ret;
	max = BTS_OPTS_GET(opts, cache_blocks, 0);
	live = BTS_OPTS_GET(opts, live, NULL);
	th = bts_trace_thread(t, thread);
	d = calloc(1, sizeof(*d));
	if (!d)
		return bts_fail(BTS_E_NOMEM, "decoder");
	ret = bts_code_image_new(t, th->pid, live, &d->ci);
	if (ret < 0) {
		free(d);
		return ret;
	}
	d->cache = bts_dblock_cache_new(d->ci, max);
	if (!d->cache) {
		bts_insn_decoder_free(d);
		return bts_fail(BTS_E_NOMEM, "decoder: block cache");
	}
	if (bts_trace_process_bits(t, th->pid) == 32)
		bts_dblock_cache_set_32bit(d->cache);
	ret = bts_code_changes_scan(t, thread, &d->changes);
	if (ret < 0) {
		bts_insn_decoder_free(d);
		return ret;
	}
	bts_rec_iter_init(t, thread, &d->it);
	d->next_flags = BTS_IF_RESYNC;
	d->prev_to = th->start;	/* straight on from there to the first branch */
	*out = d;
	return 0;
}

void bts_insn_decoder_free(struct bts_insn_decoder *d)
{
	if (!d)
		return;
	bts_dblock_cache_free(d->cache);
	bts_code_image_free(d->ci);
	bts_code_changes_free(d->changes);
	free(d);
}

const char *bts_insn_decoder_warning(const struct bts_insn_decoder *d,
				     size_t i)
{
	return d ? bts_code_image_warning(d->ci, i) : NULL;
}

/* ------------------------------------------------------------- queueing */

/*
 * The next slot of the queue, numbered; the caller fills the rest.  Field
 * by field, not a struct copied in: the copy would read back a struct
 * just written field by field, which the CPU cannot forward from its
 * stores, and wait for them.
 */
static struct bts_run *push(struct bts_insn_decoder *d, uint64_t entries)
{
	struct bts_run *q = &d->queue[(d->head + d->nqueue++) & (QUEUE_MAX - 1)];

	q->index = d->index + 1;
	d->index += entries;
	return q;
}

static void push_gap(struct bts_insn_decoder *d, int reason, uint64_t arg)
{
	struct bts_run *q = push(d, 1);

	q->b = NULL;
	q->first = q->count = 0;
	q->flags = q->first_flags = q->last_flags = 0;
	q->gap = reason;
	q->gap_arg = arg;
	d->next_flags = BTS_IF_RESYNC;
}

static void push_insns(struct bts_insn_decoder *d, struct bts_dblock *b,
		       uint32_t count, uint16_t last_flags, uint16_t flags)
{
	struct bts_run *q;

	if (!count)
		return;
	q = push(d, count);
	q->b = b;
	q->first = 0;
	q->count = count;
	q->flags = flags;
	q->first_flags = d->next_flags;
	q->last_flags = last_flags;
	q->gap = 0;
	q->gap_arg = 0;
	d->next_flags = 0;
}

/* ------------------------------------------------------------- records */

static bool fits(int cls, int kind)
{
	if (kind == PTBTS_KIND_SIGRETURN)
		return cls == BTS_ICLASS_SYSCALL;
	return cls != BTS_ICLASS_OTHER && cls != BTS_ICLASS_SYSCALL;
}

static uint16_t taken_flags(int kind)
{
	return kind == PTBTS_KIND_SIGRETURN ? BTS_IF_TAKEN | BTS_IF_SIGRETURN
					    : BTS_IF_TAKEN;
}

/* The gap for a block that could not be decoded up to @addr. */
static void push_block_error(struct bts_insn_decoder *d,
			     const struct bts_dblock *b, uint64_t addr)
{
	if (b->end == BTS_DBLOCK_NOCODE)
		push_gap(d, BTS_GAP_NOCODE, b->start + b->off[b->n]);
	else if (b->end == BTS_DBLOCK_UNDECODABLE)
		push_gap(d, BTS_GAP_UNDECODABLE, b->start + b->off[b->n]);
	else
		push_gap(d, BTS_GAP_NO_PATH, addr);
}

/* Only @from is known to have run (after a gap, or at the start). */
static int from_alone(struct bts_insn_decoder *d, uint64_t from, int kind)
{
	struct bts_dblock *b;

	if (kind == PTBTS_KIND_SIGNAL)
		return 0;	/* it did not run */
	if (bts_code_changed_after(d->changes, d->rec, from, from)) {
		push_gap(d, BTS_GAP_CODE_CHANGED, from);
		return 0;
	}
	b = bts_dblock_get(d->cache, from);
	if (!b)
		return -BTS_E_NOMEM;
	if (!b->n)
		push_block_error(d, b, from);
	else if (!fits(b->cls[0], kind))
		push_gap(d, BTS_GAP_NOT_BRANCH, from);
	else
		push_insns(d, b, 1, taken_flags(kind), 0);
	return 0;
}

static int block(struct bts_insn_decoder *d, uint64_t start, uint64_t from,
		 int kind)
{
	struct bts_dblock *b = bts_dblock_get(d->cache, start);
	long k;

	if (!b)
		return -BTS_E_NOMEM;
	/* Not with the bytes of a later version: a gap that says why. */
	if (bts_code_changed_after(d->changes, d->rec, start, from)) {
		push_gap(d, BTS_GAP_CODE_CHANGED, start);
		return 0;
	}
	k = bts_dblock_find(b, from);
	if (k < 0) {
		push_block_error(d, b, from);
		return from_alone(d, from, kind);
	}
	if (kind == PTBTS_KIND_SIGNAL) {
		push_insns(d, b, k, 0, 0);
	} else if (fits(b->cls[k], kind)) {
		push_insns(d, b, k + 1, taken_flags(kind), 0);
	} else {
		push_insns(d, b, k, 0, 0);
		push_gap(d, BTS_GAP_NOT_BRANCH, from);
	}
	return 0;
}

static int transfer(struct bts_insn_decoder *d, const struct ptbts_record *rec,
		    int kind)
{
	int ret = d->prev_to ? block(d, d->prev_to, rec->from, kind)
			     : from_alone(d, rec->from, kind);

	d->prev_to = rec->to;
	if (kind == PTBTS_KIND_SIGNAL)
		d->next_flags |= BTS_IF_SIGNAL;
	return ret;
}

static void marker(struct bts_insn_decoder *d, const struct ptbts_record *rec,
		   int kind)
{
	switch (kind) {
	case PTBTS_KIND_LOST:
		push_gap(d, BTS_GAP_LOST, rec->to);
		break;
	case PTBTS_KIND_FILTERED:
		push_gap(d, BTS_GAP_FILTERED, rec->to);
		break;
	case PTBTS_KIND_EXEC:
		push_gap(d, BTS_GAP_EXEC, rec->to);
		d->prev_to = rec->to;
		return;
	case PTBTS_KIND_GAP:
		/* No hole: the code ahead was rewritten (decode_changes.c). */
		if (rec->to == PTBTS_GAP_CODE_CHANGED)
			return;
		push_gap(d, BTS_GAP_MARKER, rec->to);
		break;
	default:
		push_gap(d, BTS_GAP_MARKER, PTBTS_GAP_UNKNOWN);
	}
	d->prev_to = 0;
}

/*
 * After the last record the thread ran on from its @to until it ended:
 * through instructions that leave no record (conditional branches not
 * taken, syscalls) up to the first syscall, which is how threads end, or
 * up to the first transfer that would have been recorded, exclusive.
 */
static int tail(struct bts_insn_decoder *d)
{
	struct bts_dblock *b;
	uint32_t n;

	d->tail_done = true;
	if (!d->prev_to)
		return 0;
	b = bts_dblock_get(d->cache, d->prev_to);
	if (!b)
		return -BTS_E_NOMEM;
	for (n = 0; n < b->n; n++) {
		if (b->cls[n] == BTS_ICLASS_SYSCALL) {
			n++;
			break;
		}
		if (b->cls[n] != BTS_ICLASS_OTHER && b->cls[n] != BTS_ICLASS_COND)
			break;
	}
	push_insns(d, b, n, 0, BTS_IF_TAIL);
	return 0;
}

static int refill(struct bts_insn_decoder *d)
{
	struct ptbts_record rec;

	while (!d->nqueue) {
		int kind, ret = bts_rec_iter_next(&d->it, &rec);

		/* An error: the file changed since it was opened (trace/reader_guard.c). */
		if (ret < 0)
			return ret;
		if (!ret)
			return d->tail_done ? 0 : tail(d);
		d->rec++;
		/* A branch, most are: no other flag of the software half. */
		kind = rec.flags & (PTBTS_FLAG_SW_RESERVED | PTBTS_KIND_MASK) ?
		       bts_record_kind(&rec) : PTBTS_KIND_BRANCH;
		if (kind < 0 || !rec.from) {
			marker(d, &rec, kind);
			continue;
		}
		ret = transfer(d, &rec, kind);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int bts_decode_next_run(struct bts_insn_decoder *d, const struct bts_run **run)
{
	int ret = refill(d);

	if (ret < 0)
		return ret;
	if (!d->nqueue)
		return 0;
	*run = &d->queue[d->head];
	d->head = (d->head + 1) & (QUEUE_MAX - 1);
	d->nqueue--;
	return 1;
}

/* ---------------------------------------------------------------- state */

bool bts_decode_state_get(const struct bts_insn_decoder *d,
			  struct bts_decode_state *st)
{
	if (d->nqueue || d->pos != d->end || d->tail_done)
		return false;
	*st = (struct bts_decode_state){
		.rec = d->rec, .index = d->index, .prev_to = d->prev_to,
		.next_flags = d->next_flags,
	};
	return true;
}

void bts_decode_state_set(struct bts_insn_decoder *d,
			  const struct bts_decode_state *st)
{
	bts_rec_iter_seek(&d->it, st->rec);
	bts_code_changes_rewind(d->changes);
	d->rec = st->rec;
	d->index = st->index;
	d->prev_to = st->prev_to;
	d->next_flags = st->next_flags;
	d->tail_done = false;
	d->head = d->nqueue = 0;
	d->pos = d->end = 0;
}

const struct bts_trace *bts_decode_trace(const struct bts_insn_decoder *d,
					 size_t *thread)
{
	*thread = d->it.thread;
	return d->it.trace;
}

/* ----------------------------------------------------------- one by one */

/*
 * Starts the next run: 1 with *insn filled for a gap, 2 when the run's
 * instructions are ready to hand out, 0 at the end, or an error.
 */
static int next_run(struct bts_insn_decoder *d, struct bts_insn_entry *insn)
{
	const struct bts_run *r;
	int ret = bts_decode_next_run(d, &r);

	if (ret <= 0)
		return ret;
	d->cur = *r;
	if (!r->b) {
		*insn = (struct bts_insn_entry){
			.index = r->index, .iclass = BTS_ICLASS_GAP,
			.gap = r->gap, .gap_arg = r->gap_arg,
		};
		d->pos = d->end = 0;
		return 1;
	}
	d->pos = r->first;
	d->end = r->first + r->count;
	d->next_index = r->index;
	return 2;
}

static inline int insn_next(struct bts_insn_decoder *d,
			    struct bts_insn_entry *insn)
{
	const struct bts_dblock *b;
	uint32_t i;

	if (__builtin_expect(d->pos == d->end, 0)) {
		int ret = next_run(d, insn);

		if (ret < 2)
			return ret;
	}
	b = d->cur.b;
	i = d->pos++;
	insn->index = d->next_index++;
	insn->ip = b->start + b->off[i];
	insn->raw = b->code + b->off[i];
	insn->size = b->off[i + 1] - b->off[i];
	insn->iclass = b->cls[i];
	insn->flags = d->cur.flags;
	if (__builtin_expect(i == d->cur.first || d->pos == d->end, 0)) {
		if (i == d->cur.first)
			insn->flags |= d->cur.first_flags;
		if (d->pos == d->end)
			insn->flags |= d->cur.last_flags;
	}
	insn->gap = 0;
	insn->gap_arg = 0;
	return 1;
}

int bts_insn_next(struct bts_insn_decoder *d, struct bts_insn_entry *insn,
		  size_t size)
{
	struct bts_insn_entry e;
	int ret;

	if (!insn || !size)
		return bts_fail(BTS_E_INVAL,
				"instruction entry: no room to fill");
	/* A caller built with this bts.h: filled in place, no copy. */
	if (__builtin_expect(size >= sizeof(e), 1))
		return insn_next(d, insn);
	ret = insn_next(d, &e);
	if (ret > 0)
		memcpy(insn, &e, size);
	return ret;
}
