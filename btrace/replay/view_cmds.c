// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The commands that look without moving: bt, list, history, calls, info,
 * thread.  The instruction and call lines are dump's (dump-*.c).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../btrace.h"
#include "commands.h"

/* "", "N" or "-N": gdb's backtrace limits; false when it is none. */
static bool bt_limit(const char *args, long *limit)
{
	char *end;

	*limit = 0;
	if (!*args)
		return true;
	*limit = strtol(args, &end, 10);
	return !*end && *limit && *limit > -100000 && *limit < 100000;
}

int rc_bt(struct replay *r, const char *args)
{
	struct replay_thread *th = replay_current(r);
	struct replay_frame frames[REPLAY_MAX_FRAMES];
	size_t n, lo = 0, hi;
	long limit;

	if (!bt_limit(args, &limit)) {
		error("bt: N or -N (frames from the innermost or the outermost), "
		      "not '%s'", args);
		return -1;
	}
	/* bt N needs one frame more than it shows, to say whether more follow. */
	n = replay_frames(&th->h, th->pos, &th->stop, frames,
			  limit > 0 && limit < REPLAY_MAX_FRAMES ? limit + 1
								 : REPLAY_MAX_FRAMES);
	hi = n;
	if (limit > 0 && (size_t)limit < n)
		hi = limit;
	else if (limit < 0 && (size_t)-limit < n)
		lo = n + limit;
	for (size_t i = lo; i < hi; i++)
		replay_frame_print(replay_sym(r), i, &frames[i], false);
	if (hi < n)
		printf("(More stack frames follow...)\n");
	return 0;
}

int rc_list(struct replay *r, const char *args)
{
	struct replay_thread *th = replay_current(r);
	const struct replay_insn *in = replay_insn(&th->h, th->pos);
	const char *file, *text;
	int line, first;

	(void)args;
	if (in->iclass == BTS_ICLASS_GAP || !replay_sym(r) ||
	    bts_symbolize_line(replay_sym(r), in->ip, &file, &line) < 0) {
		error("list: no source line is known for instruction %" PRIu64,
		      th->pos);
		return -1;
	}
	if (!source_line(file, 1)) {
		error("list: cannot read %s", shown(file));
		return -1;
	}
	first = line > 5 ? line - 5 : 1;
	for (int l = first; l < first + 10 && (text = source_line(file, l)); l++)
		printf("%d\t%s\n", l, text);
	return 0;
}

/* The window of @n entries around @pos in 1..@total. */
static void window(uint64_t pos, uint64_t total, uint64_t n, uint64_t *lo,
		   uint64_t *hi)
{
	*lo = pos > n / 2 ? pos - n / 2 : 1;
	*hi = *lo + n - 1 < total ? *lo + n - 1 : total;
	if (*hi - *lo + 1 < n && *hi == total)
		*lo = total > n ? total - n + 1 : 1;
}

int rc_history(struct replay *r, const char *args)
{
	struct replay_thread *th = replay_current(r);
	struct bts_insn_entry e;
	uint64_t n = 10, lo, hi;

	if (*args && parse_count_arg(args, &n) < 0)
		return -1;
	window(th->pos, th->h.n, n, &lo, &hi);
	for (uint64_t i = lo; i <= hi; i++) {
		replay_history_entry(&th->h, i, &e);
		dump_insn_line(&r->dump, th->tid, replay_sym(r), &e, i == th->pos);
	}
	return 0;
}

int rc_calls(struct replay *r, const char *args)
{
	struct replay_thread *th = replay_current(r);
	struct dump_opts o = { .insn_range = true, .line_range = true,
			       .indent = true };
	uint64_t n = 10, lo, hi, cur, last;

	if (*args && parse_count_arg(args, &n) < 0)
		return -1;
	if (replay_calls(r, th) < 0)
		return -1;
	if (!bts_call_history_count(th->calls)) {
		error("calls: thread %d has no function segments", (int)th->tid);
		return -1;
	}
	/* Segments past the stop (the inferred tail beyond a crash) never ran. */
	cur = replay_segment_of(th, th->pos) + 1;
	last = replay_segment_of(th, th->h.n) + 1;
	window(cur, last, n, &lo, &hi);
	for (uint64_t i = lo; i <= hi; i++) {
		struct bts_segment s = *bts_call_history_segment(th->calls, i - 1);

		if (s.last > th->h.n)
			s.last = th->h.n;
		printf("%s", i == cur ? "=> " : "   ");
		dump_call_text(&o, &s);
	}
	return 0;
}

static int info_position(struct replay *r)
{
	struct replay_thread *th = replay_current(r);
	const char *name = replay_pos_name(th);

	printf("thread %d (process %d): instruction %" PRIu64 " of %" PRIu64 "%s%s\n",
	       (int)th->tid, (int)th->pid, th->pos, th->h.n, name ? ", " : "",
	       name ? name : "");
	replay_print_where(r);
	return 0;
}

static int info_threads(struct replay *r)
{
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct replay_thread *th = &r->threads[i];

		printf("%c %-4zu thread %d (process %d)%s\n", i == r->cur ? '*' : ' ',
		       i + 1, (int)th->tid, (int)th->pid,
		       th->crash && th->crash->crashed ? "  [crashed]" : "");
	}
	return 0;
}

static int info_registers(struct replay *r)
{
	struct replay_thread *th = replay_current(r);
	const struct bts_regs *g;

	if (!th->crash || !th->crash->has_regs) {
		error("info registers: no registers were saved for thread %d",
		      (int)th->tid);
		return -1;
	}
	if (th->pos != th->stop.pos) {
		error("info registers: registers are known only where the thread "
		      "stopped (instruction %" PRIu64 ")", th->stop.pos);
		return -1;
	}
	g = &th->crash->regs;
#define REG(n) printf("%-8s 0x%016" PRIx64 "\n", #n, (uint64_t)g->n)
	REG(rax); REG(rbx); REG(rcx); REG(rdx); REG(rsi); REG(rdi); REG(rbp);
	REG(rsp); REG(r8); REG(r9); REG(r10); REG(r11); REG(r12); REG(r13);
	REG(r14); REG(r15); REG(rip); REG(eflags); REG(fs_base); REG(gs_base);
#undef REG
	return 0;
}

int rc_info(struct replay *r, const char *args)
{
	size_t len = strlen(args);

	if (len && !strncmp(args, "position", len))
		return info_position(r);
	if (len && !strncmp(args, "threads", len))
		return info_threads(r);
	if (len && !strncmp(args, "registers", len))
		return info_registers(r);
	if (len && !strncmp(args, "breakpoints", len))
		return info_breakpoints(r);
	if (len && !strncmp(args, "sharedlibrary", len))
		return info_sharedlibrary(r);
	error("info: position, threads, registers, breakpoints or sharedlibrary, "
	      "not '%s'", args);
	return -1;
}

int rc_thread(struct replay *r, const char *args)
{
	unsigned long v;
	char *end;
	size_t i;

	if (!*args) {
		printf("[Current thread is %zu (thread %d)]\n", r->cur + 1,
		       (int)replay_current(r)->tid);
		return 0;
	}
	v = strtoul(args, &end, 10);
	if (*end || args[0] == '-' || !v) {
		error("thread: '%s' is not a thread number", args);
		return -1;
	}
	for (i = 0; i < r->nthreads; i++)
		if (v <= r->nthreads ? i + 1 == v : r->threads[i].tid == (pid_t)v)
			break;
	if (i == r->nthreads) {
		error("thread: no thread %lu (see 'info threads')", v);
		return -1;
	}
	if (replay_select(r, i) < 0)
		return -1;
	printf("[Switching to thread %zu (thread %d)]\n", i + 1,
	       (int)r->threads[i].tid);
	replay_print_where(r);
	return 0;
}
