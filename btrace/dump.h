/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the views of `btrace dump` share (cmd-dump.c, dump-*.c). */
#ifndef BTRACE_DUMP_H
#define BTRACE_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <bts.h>

#include "dump-filter.h"

enum dump_view { VIEW_BRANCHES, VIEW_INSNS, VIEW_CALLS, VIEW_PEBS };

struct dump_opts {
	enum dump_view view;
	bool raw;		/* --raw: the stable record format */
	bool json;
	bool raw_bytes;		/* --insns: raw bytes, like gdb's /r */
	bool source;		/* --insns: source lines, like /s */
	bool insn_range;	/* --calls: like /i */
	bool line_range;	/* --calls: like /l */
	bool indent;		/* --calls: like /c */
	int syntax;		/* --insns: enum disasm_syntax */
	uint64_t last;		/* --last N; 0: not given */
	uint64_t from, to;	/* --from/--to; 0: not given */
	pid_t thread;		/* --thread TID; 0: every thread */
	bool incomplete;	/* --incomplete: a file cut short is read */
	struct dump_filter filter;	/* --function, --object, --grep, --addr */
};

struct dump_proc {
	pid_t pid;
	struct bts_symbolizer *sym;	/* NULL when none could be made */
	bool warned;			/* decoder warnings printed */
};

struct dump_ctx {
	const char *path;
	const struct bts_trace *trace;
	const struct dump_opts *o;
	struct dump_proc *procs;
	size_t nprocs;
};

/* The symbolizer of @pid, made (and its warnings printed) on first use. */
struct bts_symbolizer *dump_symbolizer(struct dump_ctx *c, pid_t pid);
/* Prints the decoder's warnings, once per process. */
void dump_decoder_warnings(struct dump_ctx *c, pid_t pid,
			   const struct bts_insn_decoder *d);
void dump_ctx_free(struct dump_ctx *c);

/*
 * The numbers to print, of the @total numbered from 1 (@first): from the
 * options' --last or --from/--to.  False when the range is empty.
 */
bool dump_range(const struct dump_opts *o, uint64_t first, uint64_t total,
		uint64_t *lo, uint64_t *hi);

/* A gap's text, as gdb puts it after "decode error (N): ". */
void dump_gap_text(int reason, uint64_t arg, char *buf, size_t len);

/* JSON: a string (escaped, quoted) or null. */
void json_str(const char *s);

int dump_insns(struct dump_ctx *c, size_t thread);
/* --pebs: the trace's PEBS records (of c->o->thread's only, if given). */
int dump_pebs(struct dump_ctx *c);
/* An address as --branches prints it: 0x%016x and <function+offset>. */
void dump_addr(struct bts_symbolizer *sym, uint64_t addr);
int dump_calls(struct dump_ctx *c, size_t thread);
/*
 * A cursor over the segments of @thread (with source lines if @lines),
 * the decoder's warnings printed; NULL when it cannot be made (said).
 */
struct bts_call_cursor *dump_calls_cursor(struct dump_ctx *c, size_t thread,
					  bool lines);
/*
 * The outermost level of @thread's history and its number of segments,
 * from a pass of a cursor of its own: 0, or EXIT_FAILED said.
 */
int dump_calls_outermost(struct dump_ctx *c, size_t thread, int *level,
			 uint64_t *count);
/* 0 for @ret >= 0, else EXIT_FAILED with the error said. */
int dump_calls_failed(struct dump_ctx *c, size_t thread, int ret);

/*
 * Single lines of the views, for the commands that show parts of a trace
 * (replay, report): an instruction as --insns prints it (with c->o's
 * source, raw_bytes and json; @current marks it "=> " as gdb marks the
 * replay position), a function segment as --calls does, a record as
 * --branches does.
 */
void dump_insn_line(struct dump_ctx *c, pid_t tid, struct bts_symbolizer *sym,
		    const struct bts_insn_entry *e, bool current);
void dump_call_text(const struct dump_opts *o, const struct bts_segment *s);
void dump_call_json(pid_t tid, const struct bts_segment *s);
void dump_branch_text(struct bts_symbolizer *sym, uint64_t index,
		      const struct ptbts_record *rec, int kind);
void dump_branch_json(struct bts_symbolizer *sym, pid_t tid, uint64_t index,
		      const struct ptbts_record *rec, int kind);

/*
 * Where the source lines come from for --source: line @line of @file, its
 * control characters escaped (shown_text()); NULL when @file is not a
 * readable regular file or has no such line.
 */
const char *source_line(const char *file, int line);
void source_cache_free(void);

#endif /* BTRACE_DUMP_H */
