// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace dump --calls: the function segments, laid out as gdb's
 * `record function-call-history` lays them out:
 *	N\t[indent]func[\tinst B,E][\tat FILE:MIN[,MAX]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "btrace.h"
#include "dump.h"
#include "names.h"

static const char *const entry_names[] = {
	[BTS_SEG_START] = "start", [BTS_SEG_CALL] = "call",
	[BTS_SEG_RETURN] = "return", [BTS_SEG_TAILCALL] = "tailcall",
	[BTS_SEG_SWITCH] = "switch", [BTS_SEG_SIGNAL] = "signal",
	[BTS_SEG_SIGRETURN] = "sigreturn", [BTS_SEG_GAP] = "gap",
};

void dump_call_text(const struct dump_opts *o, const struct bts_segment *s)
{
	char gap[128];

	printf("%" PRIu64 "\t", s->number);
	if (s->entry == BTS_SEG_GAP) {
		dump_gap_text(s->gap, s->gap_arg, gap, sizeof(gap));
		printf("[decode error (%u): %s]\n", s->gap, gap);
		return;
	}
	if (o->indent)
		printf("%*s", 2 * s->level, "");
	fputs(s->function ? name_shown(s->function) : "??", stdout);
	if (!s->function && s->object)
		printf(" from %s", shown(s->object));
	if (o->insn_range)
		printf("\tinst %" PRIu64 ",%" PRIu64, s->first, s->last);
	if (o->line_range && s->file) {
		printf("\tat %s:%d", s->file, s->line_min);
		if (s->line_max != s->line_min)
			printf(",%d", s->line_max);
	}
	putchar('\n');
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

/*
 * The address of each segment's first instruction, for the filters on
 * places: a second decoding pass, made only for them.  NULL when it
 * could not be made (then no segment passes such a filter).
 */
static uint64_t *segment_starts(struct dump_ctx *c, size_t thread,
				const struct bts_call_history *h)
{
	size_t n = bts_call_history_count(h), k = 0;
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	uint64_t *ips = calloc(n ? n : 1, sizeof(*ips));

	if (!ips || bts_insn_decoder_new(c->trace, thread, NULL, &d) < 0)
		return ips;
	while (k < n && bts_insn_next(d, &e, sizeof(e)) > 0) {
		while (k < n && bts_call_history_segment(h, k)->last < e.index)
			k++;
		if (k < n && bts_call_history_segment(h, k)->first == e.index)
			ips[k++] = e.iclass == BTS_ICLASS_GAP ? 0 : e.ip;
	}
	bts_insn_decoder_free(d);
	return ips;
}

static bool segment_shown(const struct dump_filter *f, const struct bts_segment *s,
			  struct bts_symbolizer *sym, const uint64_t *ips)
{
	uint64_t ip = ips ? ips[s->number - 1] : 0;

	if (!filter_active(f))
		return true;
	if (s->entry == BTS_SEG_GAP)
		return false;
	return filter_match(f, ip, s->function,
			    s->object ? s->object :
			    sym && ip ? bts_symbolize_object(sym, ip) : NULL);
}

struct bts_call_history *dump_calls_build(struct dump_ctx *c, size_t thread,
					  bool lines)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, thread);
	struct bts_call_history *h;
	BTS_OPTS(bts_calls_opts, opts,
		 .sym = dump_symbolizer(c, th->pid),
		 .lines = lines);
	struct bts_insn_decoder *d;
	int ret;

	/* Only for its warnings: the history makes its own decoder. */
	if (bts_insn_decoder_new(c->trace, thread, NULL, &d) == 0) {
		dump_decoder_warnings(c, th->pid, d);
		bts_insn_decoder_free(d);
	}
	ret = bts_call_history_new(c->trace, thread, &opts, &h);
	if (ret < 0) {
		error_bts(ret, "%s: thread %d", c->path, (int)th->tid);
		return NULL;
	}
	return h;
}

int dump_calls(struct dump_ctx *c, size_t thread)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, thread);
	struct bts_call_history *h = dump_calls_build(c, thread,
						      c->o->line_range);
	struct bts_symbolizer *sym = dump_symbolizer(c, th->pid);
	uint64_t lo, hi, *ips = NULL;

	if (!h)
		return EXIT_FAILED;
	if (!c->o->json)
		printf("thread %d (process %d)\n", (int)th->tid, (int)th->pid);
	if (filter_needs_addr(&c->o->filter))
		ips = segment_starts(c, thread, h);
	if (dump_range(c->o, 1, bts_call_history_count(h), &lo, &hi)) {
		for (uint64_t n = lo; n <= hi; n++) {
			const struct bts_segment *s = bts_call_history_segment(h, n - 1);

			if (!segment_shown(&c->o->filter, s, sym, ips))
				continue;
			if (c->o->json)
				dump_call_json(th->tid, s);
			else
				dump_call_text(c->o, s);
		}
	}
	free(ips);
	bts_call_history_free(h);
	return 0;
}
