// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace dump --calls: the function segments, laid out as gdb's
 * `record function-call-history` lays them out:
 *	N\t[indent]func[\tinst B,E][\tat FILE:MIN[,MAX]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace.h"
#include "dump.h"
#include "names.h"

static const char *const entry_names[] = {
	[BTS_SEG_START] = "start", [BTS_SEG_CALL] = "call",
	[BTS_SEG_RETURN] = "return", [BTS_SEG_TAILCALL] = "tailcall",
	[BTS_SEG_SWITCH] = "switch", [BTS_SEG_SIGNAL] = "signal",
	[BTS_SEG_SIGRETURN] = "sigreturn", [BTS_SEG_GAP] = "gap",
};

/*
 * @v in decimal, then @sep: a line a function segment makes millions of
 * them, and printf's parsing and stdout's lock per call weigh most.  Two
 * digits a step: each step is a multiply for the division, which the
 * next one waits for.
 */
static void put_u64(uint64_t v, char sep)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char buf[24], *p = buf + sizeof(buf);

	*--p = sep;
	while (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v || p == buf + sizeof(buf) - 1)
		*--p = (char)('0' + v);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), stdout);
}

/*
 * " from OBJECT" for a function without a name: most such lines of a
 * stripped program name the same object, whose escape scans it, and
 * printf parses its format, each time.  The symbolizer's strings stay
 * put while it lives, so the same pointer is the same name.
 */
static void put_object(const char *object)
{
	static const char *last;
	static bool plain;

	if (object != last) {
		last = object;
		plain = shown(object) == object;
	}
	fputs_unlocked(" from ", stdout);
	fputs_unlocked(plain ? object : shown(object), stdout);
}

void dump_call_text(const struct dump_opts *o, const struct bts_segment *s)
{
	char gap[128];

	put_u64(s->number, '\t');
	if (s->entry == BTS_SEG_GAP) {
		dump_gap_text(s->gap, s->gap_arg, gap, sizeof(gap));
		printf("[decode error (%u): %s]\n", s->gap, gap);
		return;
	}
	if (o->indent)
		printf("%*s", 2 * s->level, "");
	fputs_unlocked(s->function ? name_shown(s->function) : "??", stdout);
	if (!s->function && s->object)
		put_object(s->object);
	if (o->insn_range)
		printf("\tinst %" PRIu64 ",%" PRIu64, s->first, s->last);
	if (o->line_range && s->file) {
		printf("\tat %s:%d", shown(s->file), s->line_min);
		if (s->line_max != s->line_min)
			printf(",%d", s->line_max);
	}
	putc_unlocked('\n', stdout);
}

void dump_call_json(pid_t tid, const struct bts_segment *s)
{
	char gap[128];

	printf("{\"tid\":%d,\"n\":%" PRIu64 ",\"level\":%d,\"entry\":\"%s\"",
	       (int)tid, s->number, s->level, entry_names[s->entry]);
	if (s->entry == BTS_SEG_GAP) {
		dump_gap_text(s->gap, s->gap_arg, gap, sizeof(gap));
		printf(",\"first\":%" PRIu64 ",\"gap\":\"%s\",\"arg\":%" PRIu64
		       ",\"text\":", s->first, bts_gap_name(s->gap), s->gap_arg);
		json_str(gap);
		puts("}");
		return;
	}
	fputs(",\"func\":", stdout);
	json_str(name_shown(s->function));
	if (!s->function && s->object) {
		fputs(",\"object\":", stdout);
		json_str(s->object);
	}
	printf(",\"first\":%" PRIu64 ",\"last\":%" PRIu64, s->first, s->last);
	if (s->file) {
		fputs(",\"file\":", stdout);
		json_str(s->file);
		printf(",\"line_min\":%d,\"line_max\":%d", s->line_min, s->line_max);
	}
	puts("}");
}

static bool segment_shown(const struct dump_filter *f, const struct bts_segment *s,
			  struct bts_symbolizer *sym)
{
	if (!filter_active(f))
		return true;
	if (s->entry == BTS_SEG_GAP)
		return false;
	return filter_match(f, s->ip, s->function,
			    s->object ? s->object :
			    sym && s->ip ? bts_symbolize_object(sym, s->ip) : NULL);
}

struct bts_call_cursor *dump_calls_cursor(struct dump_ctx *c, size_t thread,
					  bool lines)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, thread);
	BTS_OPTS(bts_calls_opts, opts,
		 .sym = dump_symbolizer(c, th->pid),
		 .lines = lines);
	struct bts_call_cursor *cur;
	int ret = bts_call_cursor_new(c->trace, thread, &opts, &cur);

	if (ret < 0) {
		error_bts(ret, "%s: thread %d", c->path, (int)th->tid);
		return NULL;
	}
	dump_decoder_warnings(c, th->pid, bts_call_cursor_decoder(cur));
	return cur;
}

int dump_calls_failed(struct dump_ctx *c, size_t thread, int ret)
{
	if (ret >= 0)
		return 0;
	error_bts(ret, "%s: thread %d", c->path,
		  (int)bts_trace_thread(c->trace, thread)->tid);
	return EXIT_FAILED;
}

int dump_calls_outermost(struct dump_ctx *c, size_t thread, int *level,
			 uint64_t *count)
{
	struct bts_call_cursor *cur = dump_calls_cursor(c, thread, false);
	struct bts_segment s;
	int ret;

	if (!cur)
		return EXIT_FAILED;
	*count = 0;
	while ((ret = bts_call_cursor_next(cur, &s, sizeof(s))) > 0)
		(*count)++;
	*level = bts_call_cursor_min_level(cur);
	bts_call_cursor_free(cur);
	return dump_calls_failed(c, thread, ret);
}

/* A segment as the view shows it, @base the outermost level. */
static void print_segment(struct dump_ctx *c, pid_t tid,
			  struct bts_symbolizer *sym, struct bts_segment *s,
			  int base)
{
	if (!segment_shown(&c->o->filter, s, sym))
		return;
	s->level -= base;
	if (c->o->json)
		dump_call_json(tid, s);
	else
		dump_call_text(c->o, s);
}

static void print_thread(struct dump_ctx *c, const struct bts_thread_info *th)
{
	if (!c->o->json)
		printf("thread %d (process %d)\n", (int)th->tid, (int)th->pid);
}

/* Room for twice the segments, never more than @keep. */
static int grow_ring(struct bts_segment **ring, size_t *cap, uint64_t keep)
{
	size_t want = *cap ? 2 * *cap : 256;
	struct bts_segment *r;

	if (want > keep)
		want = keep;
	r = realloc(*ring, want * sizeof(*r));
	if (!r)
		return -1;
	*ring = r;
	*cap = want;
	return 0;
}

/*
 * --last N: one pass that keeps the last N segments (the window shown),
 * printed at the end, when the outermost level is known.
 */
static int calls_last(struct dump_ctx *c, size_t thread,
		      struct bts_call_cursor *cur)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, thread);
	struct bts_symbolizer *sym = dump_symbolizer(c, th->pid);
	struct bts_segment *ring = NULL, s;
	uint64_t n = 0, keep = c->o->last;
	size_t cap = 0;
	int ret;

	while ((ret = bts_call_cursor_next(cur, &s, sizeof(s))) > 0) {
		if (n == cap && n < keep && grow_ring(&ring, &cap, keep)) {
			ret = -BTS_E_NOMEM;
			break;
		}
		ring[n++ % keep] = s;
	}
	if (ret == 0) {
		print_thread(c, th);
		for (uint64_t i = n > keep ? n - keep : 0; i < n; i++)
			print_segment(c, th->tid, sym, &ring[i % keep],
				      bts_call_cursor_min_level(cur));
	}
	free(ring);
	return ret;
}

/* --from/--to or all: straight out (@base from a first pass, if shown). */
static int calls_range(struct dump_ctx *c, size_t thread,
		       struct bts_call_cursor *cur, int base)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, thread);
	struct bts_symbolizer *sym = dump_symbolizer(c, th->pid);
	uint64_t lo = c->o->from ? c->o->from : 1;
	uint64_t hi = c->o->to ? c->o->to : UINT64_MAX;
	struct bts_segment s;
	int ret;

	print_thread(c, th);
	while ((ret = bts_call_cursor_next(cur, &s, sizeof(s))) > 0 &&
	       s.number <= hi)
		if (s.number >= lo)
			print_segment(c, th->tid, sym, &s, base);
	return ret < 0 ? ret : 0;
}

int dump_calls(struct dump_ctx *c, size_t thread)
{
	struct bts_call_cursor *cur;
	uint64_t count;
	int base = 0, ret;

	/* Only the shown levels need the outermost one before the first line. */
	if (!c->o->last && (c->o->json || c->o->indent) &&
	    dump_calls_outermost(c, thread, &base, &count))
		return EXIT_FAILED;
	cur = dump_calls_cursor(c, thread, c->o->line_range);
	if (!cur)
		return EXIT_FAILED;
	if (c->o->last)
		ret = calls_last(c, thread, cur);
	else
		ret = calls_range(c, thread, cur, base);
	bts_call_cursor_free(cur);
	return dump_calls_failed(c, thread, ret);
}
