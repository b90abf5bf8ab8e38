// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks, as flamegraph.pl, inferno and speedscope read them:
 *	main;stage1;stage2 1234
 * one line per run of a stack, weighed in instructions.  Runs of the same
 * stack are merged as they follow each other; the readers merge the rest,
 * so memory stays flat.  With several threads each stack starts with
 * "thread TID".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../btrace.h"
#include "export.h"

struct folded {
	char *last;		/* the stack of the run not yet printed */
	uint64_t weight;
	bool threads;		/* name the thread first */
};

static void flush(struct folded *st)
{
	if (st->last && st->weight)
		printf("%s %" PRIu64 "\n", st->last, st->weight);
	free(st->last);
	st->last = NULL;
	st->weight = 0;
}

static int begin(struct export_out *x, const char *path)
{
	struct folded *st = calloc(1, sizeof(*st));

	(void)path;
	if (!st)
		return -1;
	st->threads = x->many_threads;
	x->priv = st;
	return 0;
}

static void thread_begin(struct export_out *x, pid_t pid, pid_t tid,
			 uint64_t at)
{
	(void)pid, (void)tid, (void)at, (void)x;
}

static void nothing(struct export_out *x, const struct export_frame *f,
		    uint64_t at)
{
	(void)x, (void)f, (void)at;
}

/*
 * ';' separates frames and ' ' ends the stack: a name keeps neither.  A
 * newline in a name from the trace would forge a stack, so its control
 * characters are escaped as in btrace's other text output.
 */
static void put_name(FILE *m, const char *name)
{
	for (name = shown_msg(name); *name; name++)
		fputc(*name == ';' ? ':' : *name, m);
}

static void sample(struct export_out *x, const struct export_frame *stack,
		   size_t depth, uint64_t weight)
{
	struct folded *st = x->priv;
	char *text = NULL, buf[4096];
	size_t len = 0;
	FILE *m;

	m = open_memstream(&text, &len);
	if (!m)
		return;
	if (st->threads)
		fprintf(m, "thread %d", (int)x->tid);
	for (size_t i = 0; i < depth; i++) {
		if (i || st->threads)
			fputc(';', m);
		put_name(m, export_frame_name(&stack[i], buf, sizeof(buf)));
	}
	fclose(m);
	if (st->last && !strcmp(st->last, text)) {
		st->weight += weight;
		free(text);
		return;
	}
	flush(st);
	st->last = text;
	st->weight = weight;
}

static void thread_end(struct export_out *x, uint64_t at)
{
	(void)at;
	flush(x->priv);
}

static void end(struct export_out *x)
{
	free(x->priv);
}

const struct export_ops export_folded = {
	.begin = begin, .thread_begin = thread_begin, .open = nothing,
	.close = nothing, .sample = sample, .thread_end = thread_end,
	.end = end,
};
