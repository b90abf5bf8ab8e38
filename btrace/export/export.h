/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrace export: the function-call history as the stacks of frames that
 * profile viewers read.  The walker (export.c) turns the segments into
 * frames opened and closed at instruction positions; one table of
 * operations per format writes them.
 */
#ifndef BTRACE_EXPORT_H
#define BTRACE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A function on the stack; the strings belong to the thread's history. */
struct export_frame {
	const char *function;	/* NULL: unknown */
	const char *object;	/* the file of an unknown function, or NULL */
	const char *file;	/* source file, or NULL */
	int line;
};

struct export_out;

/*
 * Positions count instructions from 0 in each thread: a segment with
 * instructions N..M (numbered from 1, as dump --calls numbers them) runs
 * from N - 1 to M.
 */
struct export_ops {
	int (*begin)(struct export_out *x, const char *path);	/* -1: no memory */
	void (*thread_begin)(struct export_out *x, pid_t pid, pid_t tid,
			     uint64_t at);
	void (*open)(struct export_out *x, const struct export_frame *f,
		     uint64_t at);
	void (*close)(struct export_out *x, const struct export_frame *f,
		      uint64_t at);
	/* The whole stack while one segment runs, @weight instructions. */
	void (*sample)(struct export_out *x, const struct export_frame *stack,
		       size_t depth, uint64_t weight);
	void (*thread_end)(struct export_out *x, uint64_t at);
	void (*end)(struct export_out *x);
};

/* Formats write to stdout. */
struct export_out {
	const struct export_ops *ops;
	pid_t pid, tid;
	size_t nthreads;	/* threads exported (before this one) */
	bool many_threads;	/* more than one to export */
	void *priv;		/* the format's own state */
};

extern const struct export_ops export_folded, export_chrome,
	export_speedscope, export_perfetto;

/* A frame's name as dump --calls prints it: func, "??", "?? from FILE". */
const char *export_frame_name(const struct export_frame *f, char *buf,
			      size_t len);
struct dump_ctx;
struct dump_opts;
/*
 * The history of trace file @path, as @o selects it, to stdout in the
 * format of @ops; an exit code, its errors said on stderr.
 */
int export_write(const char *path, const struct dump_opts *o,
		 const struct export_ops *ops);
/* Every thread of c->trace (or c->o->thread only), in c->o's range. */
int export_trace(struct dump_ctx *c, struct export_out *x);

/* What every file says about its clock. */
#define EXPORT_CLOCK_NOTE \
	"btrace records carry no timestamps: the clock counts instructions"

#endif /* BTRACE_EXPORT_H */
