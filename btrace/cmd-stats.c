// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace stats: what a trace holds, per thread: records, instructions,
 * function segments, functions, gaps, and the functions called most and
 * run most (by instructions).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "btrace.h"
#include "names.h"
#include "options.h"

#define TOP 10

static const struct command_help stats_help = {
	.name = "stats",
	.usage = { "FILE" },
	.summary = "Prints what a trace file holds, thread by thread.",
	.details =
	"Output, per thread:\n"
	"  thread TID (process PID)\n"
	"    records       R (M markers)\n"
	"    instructions  I\n"
	"    segments      S (function visits, as in 'dump --calls')\n"
	"    functions     F\n"
	"    gaps          G (holes: lost records, undecodable code, ...)\n"
	"    filtered      F (regions left out on purpose, e.g. by --skip)\n"
	"    pebs          P (kmod-pebs's samples; in a trace with any)\n"
	"    most called:\n"
	"      CALLS  FUNCTION\n"
	"    hottest (instructions):\n"
	"      INSNS  PERCENT%  FUNCTION\n"
	"Up to 10 functions in each list; ?? is code without a symbol.\n"
	"After the threads, in a trace whose PEBS records were overwritten\n"
	"before kmod-pebs read them:\n"
	"  pebs lost         L\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read; 2 for a bad command line.\n",
};

struct func_stat {
	const char *name;	/* "??" for unknown */
	uint64_t calls, insns;
};

struct func_table {
	struct func_stat *v;
	size_t n, cap;		/* open addressing, cap a power of two */
};

static size_t hash_str(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct func_stat *lookup(struct func_table *t, const char *name);

static int grow(struct func_table *t)
{
	struct func_table n = { .cap = t->cap ? 2 * t->cap : 256 };

	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].name)
			*lookup(&n, t->v[i].name) = t->v[i];
	free(t->v);
	n.n = t->n;
	*t = n;
	return 0;
}

/* The slot of @name: an empty one (name NULL) when it is new. */
static struct func_stat *lookup(struct func_table *t, const char *name)
{
	size_t i = hash_str(name) & (t->cap - 1);

	while (t->v[i].name && strcmp(t->v[i].name, name))
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

static struct func_stat *func_of(struct func_table *t, const char *name)
{
	struct func_stat *f;

	if (2 * (t->n + 1) > t->cap && grow(t))
		return NULL;
	f = lookup(t, name);
	if (!f->name) {
		f->name = name;
		t->n++;
	}
	return f;
}

static int by_calls(const void *a, const void *b)
{
	const struct func_stat *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_insns(const void *a, const void *b)
{
	const struct func_stat *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_tops(struct func_table *t, uint64_t insns)
{
	struct func_stat *v = malloc((t->n + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].name)
			v[n++] = t->v[i];
	qsort(v, n, sizeof(*v), by_calls);
	printf("    most called:\n");
	for (size_t i = 0; i < n && i < TOP && v[i].calls; i++)
		printf("      %10" PRIu64 "  %s\n", v[i].calls, v[i].name);
	qsort(v, n, sizeof(*v), by_insns);
	printf("    hottest (instructions):\n");
	for (size_t i = 0; i < n && i < TOP && v[i].insns; i++)
		printf("      %10" PRIu64 "  %5.1f%%  %s\n", v[i].insns,
		       insns ? 100.0 * v[i].insns / insns : 0.0, v[i].name);
	free(v);
}

static uint64_t count_markers(const struct bts_trace *t, size_t thread)
{
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	uint64_t n = 0;
	int ret;

	ret = bts_rec_iter_new(t, thread, &it);
	while (ret >= 0 && (ret = bts_rec_iter_next(it, &rec)) > 0)
		n += !rec.from;
	bts_rec_iter_free(it);
	if (ret < 0)
		error_bts(ret, "stats: thread %d", (int)bts_trace_thread(t, thread)->tid);
	return n;
}

/* What stats counts of a thread's segments, walked once. */
struct seg_counts {
	uint64_t segments, insns, gaps, filtered;
};

/* Counts @s in @n and in its function's line of @funcs; -1: no memory. */
static int count_segment(struct seg_counts *n, struct func_table *funcs,
			 const struct bts_segment *s)
{
	struct func_stat *f;

	n->segments++;
	if (s->entry == BTS_SEG_GAP) {
		n->gaps++;
		n->filtered += s->gap == BTS_GAP_FILTERED;
		return 0;
	}
	n->insns += s->last - s->first + 1;
	f = func_of(funcs, s->function ? name_shown(s->function) : "??");
	if (!f)
		return -1;
	f->calls += s->entry == BTS_SEG_CALL || s->entry == BTS_SEG_TAILCALL;
	f->insns += s->last - s->first + 1;
	return 0;
}

/* Walks @thread's segments into @n and @funcs: 0, or EXIT_FAILED said. */
static int count_segments(const struct bts_trace *t, size_t thread,
			  struct bts_symbolizer *sym, struct seg_counts *n,
			  struct func_table *funcs)
{
	BTS_OPTS(bts_calls_opts, opts, .sym = sym);
	struct bts_call_cursor *c;
	struct bts_segment s;
	int ret = bts_call_cursor_new(t, thread, &opts, &c);

	if (ret == 0) {
		while ((ret = bts_call_cursor_next(c, &s, sizeof(s))) > 0)
			if (count_segment(n, funcs, &s)) {
				bts_call_cursor_free(c);
				error("stats: out of memory");
				return EXIT_FAILED;
			}
		bts_call_cursor_free(c);
	}
	if (ret < 0) {
		error_bts(ret, "stats: thread %d",
			  (int)bts_trace_thread(t, thread)->tid);
		return EXIT_FAILED;
	}
	return 0;
}

/* kmod-pebs's samples of thread @tid. */
static uint64_t count_pebs(const struct bts_trace *t, pid_t tid)
{
	uint64_t n = 0;

	for (size_t i = 0; i < bts_trace_npebs(t); i++)
		n += bts_trace_pebs(t, i)->tid == tid;
	return n;
}

static int thread_stats(const struct bts_trace *t, size_t thread,
			struct bts_symbolizer *sym)
{
	const struct bts_thread_info *th = bts_trace_thread(t, thread);
	struct func_table funcs = { 0 };
	struct seg_counts n = { 0 };
	int ret = count_segments(t, thread, sym, &n, &funcs);

	if (ret) {
		free(funcs.v);
		return ret;
	}
	printf("thread %d (process %d)\n", (int)th->tid, (int)th->pid);
	printf("    records       %" PRIu64 " (%" PRIu64 " markers)\n",
	       th->nrecords, count_markers(t, thread));
	printf("    instructions  %" PRIu64 "\n", n.insns);
	printf("    segments      %" PRIu64 "\n", n.segments);
	printf("    functions     %zu\n", funcs.n);
	/* Filtered regions are what the user asked to leave out, not loss. */
	printf("    gaps          %" PRIu64 "\n", n.gaps - n.filtered);
	printf("    filtered      %" PRIu64 "\n", n.filtered);
	if (bts_trace_npebs(t) || bts_trace_pebs_lost(t))
		printf("    pebs          %" PRIu64 "\n", count_pebs(t, th->tid));
	print_tops(&funcs, n.insns);
	free(funcs.v);
	return 0;
}

struct proc_sym {
	pid_t pid;
	struct bts_symbolizer *sym;
};

static struct bts_symbolizer *symbolizer(const struct bts_trace *t, pid_t pid,
					 struct proc_sym *syms, size_t *n)
{
	struct bts_symbolizer *sym = NULL;
	const char *w;

	for (size_t i = 0; i < *n; i++)
		if (syms[i].pid == pid)
			return syms[i].sym;
	if (bts_symbolizer_new(t, pid, &sym) < 0) {
		error("warning: process %d: no symbols", (int)pid);
		sym = NULL;
	}
	for (size_t i = 0; sym && (w = bts_symbolizer_warning(sym, i)); i++)
		error("warning: %s", w);
	syms[(*n)++] = (struct proc_sym){ pid, sym };
	return sym;
}

static int stats_file(const char *path)
{
	struct proc_sym *syms;
	struct bts_trace *t;
	size_t nsyms = 0;
	int ret = open_trace(path, false, &t);

	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_FAILED;
	}
	syms = calloc(bts_trace_nprocesses(t) + 1, sizeof(*syms));
	if (!syms) {
		bts_trace_free(t);
		error("stats: out of memory");
		return EXIT_FAILED;
	}
	signal(SIGPIPE, SIG_DFL);
	for (size_t i = 0; !ret && i < bts_trace_nthreads(t); i++) {
		pid_t pid = bts_trace_thread(t, i)->pid;

		ret = thread_stats(t, i, symbolizer(t, pid, syms, &nsyms));
	}
	if (!ret && bts_trace_pebs_lost(t))
		printf("pebs lost         %" PRIu64 "\n", bts_trace_pebs_lost(t));
	for (size_t i = 0; i < nsyms; i++)
		bts_symbolizer_free(syms[i].sym);
	free(syms);
	bts_trace_free(t);
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return 128 + SIGPIPE;
		error("stats: cannot write the output: %s", strerror(errno));
		return EXIT_FAILED;
	}
	return ret;
}

int cmd_stats(int argc, char **argv)
{
	bool raw_names = false;
	const struct option opts[] = {
		OPT_NO_DEMANGLE(&raw_names),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &stats_help, opts, 0);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (argc - first != 1) {
		error("stats: %s", first == argc ? "no trace file given (see "
		      "'btrace stats --help')" : "one trace file at a time");
		return EXIT_USAGE;
	}
	names_keep_raw(raw_names);
	return stats_file(argv[first]);
}
