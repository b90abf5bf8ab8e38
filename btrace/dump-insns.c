// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace dump --insns: the instruction history, laid out as gdb's
 * `record instruction-history` lays it out:
 *	N\t   0x0000000000401667 <main+8>:\tmovl   $0x0,-0x4(%rbp)
 * in gdb's text (disasm.c), AT&T or Intel,
 * with /r's raw bytes and /s's source lines as options.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "btrace.h"
#include "disasm.h"
#include "dump.h"
#include "names.h"

/* gdb pads the raw bytes of up to 7-byte instructions to one width. */
#define RAW_WIDTH 7

struct insn_view {
	struct dump_ctx *c;
	struct bts_symbolizer *sym;
	pid_t tid;
	struct disasm dis;
	const char *file;	/* of the last source line shown */
	int line;
	bool mark;		/* the current instruction: "=> " as gdb marks it */
};

static void disassemble(struct insn_view *v, const struct bts_insn_entry *e,
			char *out, size_t len)
{
	disasm_format(&v->dis, e->raw, e->size, e->ip, v->sym, out, len);
}

static void raw_bytes(const struct bts_insn_entry *e, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (unsigned int i = 0; i < e->size && n + 4 < len; i++)
		n += snprintf(out + n, len - n, "%s%02x", i ? " " : "", e->raw[i]);
	/* gdb 13's width: one column short for the shorter ones. */
	for (unsigned int i = e->size; i < RAW_WIDTH && n + 4 < len; i++)
		n += snprintf(out + n, len - n, i + 1 < RAW_WIDTH ? "   " : "  ");
}

static void print_source(struct insn_view *v, uint64_t ip)
{
	const char *file, *text;
	int line;

	if (!v->sym || bts_symbolize_line(v->sym, ip, &file, &line) < 0)
		return;
	if (v->file && line == v->line && !strcmp(file, v->file))
		return;
	v->file = file;
	v->line = line;
	text = source_line(file, line);
	printf("%s:%d\t%s\n", shown(file), line, text ? text : "");
}

static void print_gap_text(const struct bts_insn_entry *e)
{
	char gap[128];

	dump_gap_text(e->gap, e->gap_arg, gap, sizeof(gap));
	printf("%" PRIu64 "\t[decode error (%u): %s]\n", e->index, e->gap, gap);
}

static void print_text(struct insn_view *v, const struct bts_insn_entry *e)
{
	char dis[320], raw[64];
	const char *name;
	uint64_t off;

	if (e->iclass == BTS_ICLASS_GAP) {
		v->file = NULL;
		print_gap_text(e);
		return;
	}
	if (v->c->o->source)
		print_source(v, e->ip);
	disassemble(v, e, dis, sizeof(dis));
	printf("%" PRIu64 "\t%s0x%016" PRIx64, e->index, v->mark ? "=> " : "   ",
	       e->ip);
	if (v->sym && symbolize_shown(v->sym, e->ip, &name, &off) == 0)
		printf(" <%s+%" PRIu64 ">", name, off);
	else if ((name = bts_symbolize_object(v->sym, e->ip)))
		printf(" <?? from %s>", shown(name));
	if (v->c->o->raw_bytes) {
		raw_bytes(e, raw, sizeof(raw));
		printf(":\t%s\t%s\n", raw, dis);
	} else {
		printf(":\t%s\n", dis);
	}
}

static const char *const class_names[] = {
	[BTS_ICLASS_OTHER] = "other", [BTS_ICLASS_COND] = "cond",
	[BTS_ICLASS_JUMP] = "jump", [BTS_ICLASS_CALL] = "call",
	[BTS_ICLASS_RETURN] = "return", [BTS_ICLASS_FAR] = "far",
	[BTS_ICLASS_SYSCALL] = "syscall", [BTS_ICLASS_GAP] = "gap",
};

static void print_json_flags(uint16_t flags)
{
	static const char *const names[] = {
		"taken", "signal", "sigreturn", "resync", "tail",
	};
	bool first = true;

	fputs(",\"flags\":[", stdout);
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & (1u << i)))
			continue;
		printf("%s\"%s\"", first ? "" : ",", names[i]);
		first = false;
	}
	putchar(']');
}

static void print_json(struct insn_view *v, const struct bts_insn_entry *e)
{
	char dis[320], gap[128];
	const char *name, *file;
	uint64_t off;
	int line;

	printf("{\"tid\":%d,\"n\":%" PRIu64, (int)v->tid, e->index);
	if (e->iclass == BTS_ICLASS_GAP) {
		dump_gap_text(e->gap, e->gap_arg, gap, sizeof(gap));
		printf(",\"gap\":\"%s\",\"arg\":%" PRIu64 ",\"text\":",
		       bts_gap_name(e->gap), e->gap_arg);
		json_str(gap);
		puts("}");
		return;
	}
	printf(",\"ip\":\"0x%" PRIx64 "\",\"size\":%u,\"bytes\":\"", e->ip, e->size);
	for (unsigned int i = 0; i < e->size; i++)
		printf("%02x", e->raw[i]);
	printf("\",\"class\":\"%s\"", class_names[e->iclass]);
	print_json_flags(e->flags);
	if (v->sym && symbolize_shown(v->sym, e->ip, &name, &off) == 0) {
		fputs(",\"func\":", stdout);
		json_str(name);
		printf(",\"off\":%" PRIu64, off);
	} else if ((name = bts_symbolize_object(v->sym, e->ip))) {
		fputs(",\"object\":", stdout);
		json_str(name);
	}
	if (v->c->o->source && v->sym &&
	    bts_symbolize_line(v->sym, e->ip, &file, &line) == 0) {
		fputs(",\"file\":", stdout);
		json_str(file);
		printf(",\"line\":%d", line);
	}
	disassemble(v, e, dis, sizeof(dis));
	fputs(",\"asm\":", stdout);
	json_str(dis);
	puts("}");
}

/* An i386 program's code is disassembled as 32-bit code. */
static void view_init(struct insn_view *v, pid_t pid)
{
	int bits = v->c->trace && pid ? bts_trace_process_bits(v->c->trace, pid) : 64;

	disasm_init(&v->dis, bits == 32 ? 32 : 64, v->c->o->syntax);
}

/* One entry on its own (btrace replay, report): the view of c->o. */
void dump_insn_line(struct dump_ctx *c, pid_t tid, struct bts_symbolizer *sym,
		    const struct bts_insn_entry *e, bool current)
{
	struct insn_view v = { .c = c, .sym = sym, .tid = tid, .mark = current };
	long ti = c->trace ? bts_trace_thread_index(c->trace, tid) : -1;

	view_init(&v, ti >= 0 ? bts_trace_thread(c->trace, (size_t)ti)->pid : 0);
	if (c->o->json)
		print_json(&v, e);
	else
		print_text(&v, e);
}

/*
 * The index that takes --from/--to/--last to their first entry: the
 * file's, or for --last one built by the pass that counts the entries
 * (which --last needs anyway).  NULL: none, the walk starts at the start.
 */
static int get_index(struct dump_ctx *c, size_t thread, struct bts_index **ix)
{
	struct bts_index_opts o = { .sz = sizeof(o), .file_only = !c->o->last };

	*ix = NULL;
	if (!c->o->last && !c->o->from)
		return 0;
	return bts_index_new(c->trace, thread, &o, ix);
}

static int walk(struct insn_view *v, size_t thread, const struct bts_index *ix,
		uint64_t lo, uint64_t hi)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	int ret = bts_insn_decoder_new(v->c->trace, thread, NULL, &d);

	if (ret < 0)
		return ret;
	dump_decoder_warnings(v->c, bts_trace_thread(v->c->trace, thread)->pid, d);
	if (ix && lo > 1 && (ret = bts_insn_decoder_seek(d, ix, lo)) < 0) {
		bts_insn_decoder_free(d);
		return ret;
	}
	while ((ret = bts_insn_next(d, &e, sizeof(e))) > 0 && e.index <= hi) {
		if (e.index < lo)
			continue;
		/* A gap is code of no function and no file. */
		if (filter_active(&v->c->o->filter) &&
		    (e.iclass == BTS_ICLASS_GAP ||
		     !filter_addr(&v->c->o->filter, v->sym, e.ip)))
			continue;
		if (v->c->o->json)
			print_json(v, &e);
		else
			print_text(v, &e);
	}
	bts_insn_decoder_free(d);
	return ret;
}

int dump_insns(struct dump_ctx *c, size_t thread)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, thread);
	struct insn_view v = { .c = c, .tid = th->tid };
	uint64_t total = UINT64_MAX - 1, lo, hi;
	struct bts_index *ix;
	int ret;

	v.sym = dump_symbolizer(c, th->pid);
	view_init(&v, th->pid);
	ret = get_index(c, thread, &ix);
	if (ret == 0 && c->o->last)
		total = bts_index_entries(ix);
	if (!c->o->json)
		printf("thread %d (process %d)\n", (int)th->tid, (int)th->pid);
	if (ret == 0 && dump_range(c->o, 1, total, &lo, &hi))
		ret = walk(&v, thread, ix, lo, hi);
	bts_index_free(ix);
	if (ret < 0) {
		error_bts(ret, "%s: thread %d", c->path, (int)th->tid);
		return EXIT_FAILED;
	}
	return 0;
}
