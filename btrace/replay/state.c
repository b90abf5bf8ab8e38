// SPDX-License-Identifier: GPL-2.0-or-later
/* Opening a replay, selecting threads, and saying where one stands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../btrace.h"
#include "state.h"

static const struct bts_crash_thread *crash_thread(const struct replay *r,
						   pid_t tid)
{
	const struct bts_crash_thread *ct;

	if (!r->crash)
		return NULL;
	for (size_t i = 0; i < r->crash->nthreads; i++) {
		ct = bts_trace_crash_thread(r->trace, r->crash->pid, i);
		if (ct && ct->tid == tid)
			return ct;
	}
	return NULL;
}

/* The index of the thread to start with: the crashing one, else the first. */
static size_t first_thread(const struct replay *r)
{
	for (size_t i = 0; r->crash && i < r->nthreads; i++)
		if (r->threads[i].tid == r->crash->tid)
			return i;
	return 0;
}

int replay_open(struct replay *r, const char *path)
{
	int ret;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->path = path;
	ret = open_trace(path, false, &r->trace);
	if (ret < 0) {
		error_bts(ret, "%s", path);
		return -1;
	}
	r->dump.path = path;
	r->dump.trace = r->trace;
	r->dump.o = &r->o;
	pid = bts_trace_crashed(r->trace);
	r->crash = pid ? bts_trace_crash(r->trace, pid) : NULL;
	r->nthreads = bts_trace_nthreads(r->trace);
	if (!r->nthreads) {
		error("%s: the trace holds no thread", path);
		replay_close(r);
		return -1;
	}
	r->threads = calloc(r->nthreads, sizeof(*r->threads));
	if (!r->threads) {
		error("out of memory");
		replay_close(r);
		return -1;
	}
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct bts_thread_info *ti = bts_trace_thread(r->trace, i);

		r->threads[i].index = i;
		r->threads[i].tid = ti->tid;
		r->threads[i].pid = ti->pid;
		r->threads[i].crash = crash_thread(r, ti->tid);
	}
	r->cur = first_thread(r);
	return 0;
}

void replay_close(struct replay *r)
{
	for (size_t i = 0; i < r->nthreads; i++) {
		replay_history_free(&r->threads[i].h);
		free(r->threads[i].stop_frames);
		bts_call_history_free(r->threads[i].calls);
	}
	free(r->threads);
	for (size_t i = 0; i < r->nbreaks; i++)
		free(r->breaks[i].spec);
	free(r->breaks);
	dump_ctx_free(&r->dump);
	bts_trace_free(r->trace);
	memset(r, 0, sizeof(*r));
}

/* The unwound stack at the crash, in the form frames.c takes. */
static int load_stop(struct replay_thread *th)
{
	const struct bts_crash_thread *ct = th->crash;
	uint64_t at = 0;

	if (!ct)
		return 0;
	if (ct->has_regs)
		at = replay_history_stop_at(&th->h, ct->regs.rip);
	if (at)
		replay_history_cut(&th->h, at);
	th->stop.pos = th->h.n;
	if (!ct->nframes)
		return 0;
	th->stop_frames = calloc(ct->nframes, sizeof(*th->stop_frames));
	if (!th->stop_frames)
		return -1;
	for (size_t i = 0; i < ct->nframes; i++) {
		bool plain = !i || (ct->frames[i].flags & BTS_FRAME_SIGNAL);

		th->stop_frames[i].kind = plain ? FRAME_PC : FRAME_RETURN;
		th->stop_frames[i].pc = ct->frames[i].pc;
	}
	th->stop.frames = th->stop_frames;
	th->stop.n = ct->nframes;
	return 0;
}

static int load(struct replay *r, struct replay_thread *th)
{
	int ret = replay_history_load(r->trace, th->index,
				      r->window ? r->window : REPLAY_WINDOW_DEFAULT,
				      &th->h);

	if (ret < 0) {
		error_bts(ret, "%s: thread %d", r->path, (int)th->tid);
		return -1;
	}
	if (load_stop(th) < 0) {
		error("out of memory");
		return -1;
	}
	th->loaded = true;
	th->pos = th->h.n;
	return 0;
}

int replay_load(struct replay *r, size_t i)
{
	struct replay_thread *th = &r->threads[i];

	return th->loaded ? 0 : load(r, th);
}

int replay_select(struct replay *r, size_t i)
{
	struct replay_thread *th = &r->threads[i];

	if (replay_load(r, i) < 0)
		return -1;
	if (!th->h.n) {
		error("thread %d has no instruction history", (int)th->tid);
		return -1;
	}
	r->cur = i;
	return 0;
}

struct replay_thread *replay_current(struct replay *r)
{
	return &r->threads[r->cur];
}

struct bts_symbolizer *replay_sym(struct replay *r)
{
	return dump_symbolizer(&r->dump, replay_current(r)->pid);
}

int replay_calls(struct replay *r, struct replay_thread *th)
{
	BTS_OPTS(bts_calls_opts, opts,
		 .sym = dump_symbolizer(&r->dump, th->pid), .lines = true);
	int ret;

	if (th->calls)
		return 0;
	ret = bts_call_history_new(r->trace, th->index, &opts, &th->calls);
	if (ret < 0) {
		error_bts(ret, "%s: thread %d", r->path, (int)th->tid);
		return -1;
	}
	return 0;
}

size_t replay_segment_of(const struct replay_thread *th, uint64_t pos)
{
	size_t lo = 0, hi = bts_call_history_count(th->calls);

	/* The last segment that starts at or before @pos. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (bts_call_history_segment(th->calls, mid)->first <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const char *replay_pos_name(const struct replay_thread *th)
{
	if (th->stop.pos && th->pos == th->stop.pos && th->crash &&
	    th->crash->crashed)
		return "the crash point";
	if (th->pos == th->h.n)
		return "the end of the history";
	if (th->pos == 1)
		return "the beginning of the history";
	return NULL;
}

void replay_print_where(struct replay *r)
{
	struct replay_thread *th = replay_current(r);
	struct bts_insn_entry e;

	replay_history_entry(&th->h, th->pos, &e);
	r->o.source = true;
	dump_insn_line(&r->dump, th->tid, replay_sym(r), &e, true);
	r->o.source = false;
}
