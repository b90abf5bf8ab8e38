// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One thread of the report: its backtrace where it stopped (as replay's bt
 * shows it there), its last branches and its last function calls, with
 * dump's line layouts.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../btrace.h"
#include "report.h"

static void print_backtrace(struct replay *r, struct replay_thread *th,
			    bool json)
{
	struct replay_frame frames[REPLAY_MAX_FRAMES];
	size_t n = replay_frames(&th->h, th->h.n, &th->stop, frames,
				 REPLAY_MAX_FRAMES);

	if (json)
		fputs(",\"frames\":[", stdout);
	else
		printf("Backtrace%s:\n", th->crash && th->crash->nframes ?
		       "" : " (from the history)");
	for (size_t i = 0; i < n; i++) {
		if (json && i)
			putchar(',');
		replay_frame_print(replay_sym(r), i, &frames[i], json);
	}
	if (json)
		putchar(']');
}

static void branches(struct replay *r, struct replay_thread *th,
		     const struct report_opts *o)
{
	const struct bts_thread_info *ti = bts_trace_thread(r->trace, th->index);
	uint64_t lo = ti->nrecords > o->last ? ti->nrecords - o->last : 0;
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	bool first = true;
	int ret;

	if (o->json)
		fputs(",\"branches\":[", stdout);
	else
		printf("Last %" PRIu64 " branches:\n", ti->nrecords - lo);
	ret = bts_rec_iter_new(r->trace, th->index, &it);
	for (uint64_t i = 0; ret >= 0 && (ret = bts_rec_iter_next(it, &rec)) > 0;
	     i++) {
		/* bts_trace_new() validated every record: kinds are known. */
		int kind = bts_record_kind(&rec);

		if (i < lo || kind < 0)
			continue;
		if (o->json) {
			if (!first)
				putchar(',');
			dump_branch_json(replay_sym(r), th->tid, i, &rec, kind);
		} else {
			dump_branch_text(replay_sym(r), i, &rec, kind);
		}
		first = false;
	}
	bts_rec_iter_free(it);
	if (ret < 0)
		error_bts(ret, "%s: thread %d", r->path, (int)th->tid);
	if (o->json)
		putchar(']');
}

static void print_calls(struct replay_thread *th, const struct report_opts *o,
			size_t lo, size_t hi)
{
	struct dump_opts view = { .insn_range = true, .line_range = true,
				  .indent = true };
	int base = INT32_MAX;

	for (size_t i = lo; i <= hi; i++)
		if (bts_call_history_segment(th->calls, i)->level < base)
			base = bts_call_history_segment(th->calls, i)->level;
	for (size_t i = lo; i <= hi; i++) {
		struct bts_segment s = *bts_call_history_segment(th->calls, i);

		/* Beyond the stop, the inferred tail never ran. */
		if (s.last > th->h.n)
			s.last = th->h.n;
		if (o->json) {
			if (i > lo)
				putchar(',');
			dump_call_json(th->tid, &s);
			continue;
		}
		s.level -= base;
		dump_call_text(&view, &s);
	}
}

static int calls(struct replay *r, struct replay_thread *th,
		 const struct report_opts *o)
{
	size_t lo, hi;

	if (replay_calls(r, th) < 0)
		return -1;
	if (o->json)
		fputs(",\"calls\":[", stdout);
	if (bts_call_history_count(th->calls)) {
		hi = replay_segment_of(th, th->h.n);
		lo = hi + 1 > o->last ? hi + 1 - o->last : 0;
		if (!o->json)
			printf("Last %zu function calls:\n", hi - lo + 1);
		print_calls(th, o, lo, hi);
	}
	if (o->json)
		putchar(']');
	return 0;
}

int report_thread(struct replay *r, size_t i, const struct report_opts *o)
{
	struct replay_thread *th = &r->threads[i];
	bool crashed = th->crash && th->crash->crashed;

	if (o->json)
		printf("{\"tid\":%d,\"pid\":%d,\"crashed\":%s", (int)th->tid,
		       (int)th->pid, crashed ? "true" : "false");
	else
		printf("\nthread %d (process %d)%s\n", (int)th->tid, (int)th->pid,
		       crashed ? " [crashed]" : "");
	if (replay_load(r, i) < 0)
		return -1;
	if (!th->h.n) {
		/* A thread that never ran a recorded instruction. */
		if (o->json)
			putchar('}');
		else
			printf("No instruction history.\n");
		return 0;
	}
	r->cur = i;
	print_backtrace(r, th, o->json);
	branches(r, th, o);
	if (calls(r, th, o) < 0)
		return -1;
	if (o->json)
		putchar('}');
	return 0;
}
