// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speedscope's file format: one "evented" profile per thread, frames
 * opened ("O") and closed ("C") at instruction positions, unit "none".
 * The frames are shared by every profile and known only at the end, so
 * "shared" follows "profiles" (JSON leaves the order of keys free); a
 * profile's "endValue" follows its events likewise.  Memory grows with
 * the number of distinct frames only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../dump.h"
#include "export.h"

struct frame_key {
	char *name, *file;
	int line;
};

struct speedscope {
	struct frame_key *frames;	/* in the order of their numbers */
	size_t n, cap;
	size_t *slots;			/* hash: frame number + 1, 0: free */
	size_t nslots;
	bool first_event;
	uint64_t start;
};

static size_t hash(const char *name, const char *file)
{
	size_t h = 5381;

	for (; *name; name++)
		h = h * 33 + (unsigned char)*name;
	for (; file && *file; file++)
		h = h * 33 + (unsigned char)*file;
	return h;
}

static bool rehash(struct speedscope *st)
{
	size_t n = st->nslots ? st->nslots * 2 : 1024;
	size_t *s = calloc(n, sizeof(*s));

	if (!s)
		return false;
	for (size_t i = 0; i < st->n; i++) {
		size_t h = hash(st->frames[i].name, st->frames[i].file) & (n - 1);

		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(st->slots);
	st->slots = s;
	st->nslots = n;
	return true;
}

static bool add(struct speedscope *st, const char *name,
		const struct export_frame *f)
{
	struct frame_key *k;
	size_t h;

	if (2 * (st->n + 1) > st->nslots && !rehash(st))
		return false;
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 256;

		k = realloc(st->frames, cap * sizeof(*k));
		if (!k)
			return false;
		st->frames = k;
		st->cap = cap;
	}
	k = &st->frames[st->n];
	k->name = strdup(name);
	k->file = f->file ? strdup(f->file) : NULL;
	k->line = f->line;
	if (!k->name || (f->file && !k->file)) {
		free(k->name);
		free(k->file);
		return false;
	}
	st->n++;
	for (h = hash(name, f->file) & (st->nslots - 1); st->slots[h];
	     h = (h + 1) & (st->nslots - 1))
		;
	st->slots[h] = st->n;
	return true;
}

/* The frame's number, made on first sight; -1: out of memory. */
static long frame_number(struct speedscope *st, const struct export_frame *f)
{
	char buf[4096];
	const char *name = export_frame_name(f, buf, sizeof(buf));
	size_t h;

	for (h = hash(name, f->file) & (st->nslots - 1); st->slots[h];
	     h = (h + 1) & (st->nslots - 1)) {
		const struct frame_key *k = &st->frames[st->slots[h] - 1];

		if (!strcmp(k->name, name) &&
		    (k->file == f->file ||
		     (k->file && f->file && !strcmp(k->file, f->file))))
			return st->slots[h] - 1;
	}
	if (!add(st, name, f))
		return -1;
	return st->n - 1;
}

static int begin(struct export_out *x, const char *path)
{
	struct speedscope *st = calloc(1, sizeof(*st));

	if (!st || !rehash(st)) {
		free(st);
		return -1;
	}
	x->priv = st;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"btrace (" EXPORT_CLOCK_NOTE ")\",\"name\":", stdout);
	json_str(path);
	fputs(",\"activeProfileIndex\":0,\"profiles\":[", stdout);
	return 0;
}

static void thread_begin(struct export_out *x, pid_t pid, pid_t tid,
			 uint64_t at)
{
	struct speedscope *st = x->priv;

	printf("%s\n{\"type\":\"evented\",\"name\":\"thread %d (process %d)\","
	       "\"unit\":\"none\",\"startValue\":%" PRIu64 ",\"events\":[",
	       x->nthreads ? "," : "", (int)tid, (int)pid, at);
	st->first_event = true;
}

static void event(struct export_out *x, char type,
		  const struct export_frame *f, uint64_t at)
{
	struct speedscope *st = x->priv;
	long n = frame_number(st, f);

	if (n < 0) {
		/* Out of memory: the file would lie; the reader sees it broken. */
		fputs("\nout of memory\n", stdout);
		exit(EXIT_FAILURE);
	}
	printf("%s\n{\"type\":\"%c\",\"frame\":%ld,\"at\":%" PRIu64 "}",
	       st->first_event ? "" : ",", type, n, at);
	st->first_event = false;
}

static void open_frame(struct export_out *x, const struct export_frame *f,
		       uint64_t at)
{
	event(x, 'O', f, at);
}

static void close_frame(struct export_out *x, const struct export_frame *f,
			uint64_t at)
{
	event(x, 'C', f, at);
}

static void thread_end(struct export_out *x, uint64_t at)
{
	printf("\n],\"endValue\":%" PRIu64 "}", at);
	(void)x;
}

static void end(struct export_out *x)
{
	struct speedscope *st = x->priv;

	fputs("\n],\"shared\":{\"frames\":[", stdout);
	for (size_t i = 0; i < st->n; i++) {
		printf("%s\n{\"name\":", i ? "," : "");
		json_str(st->frames[i].name);
		if (st->frames[i].file) {
			fputs(",\"file\":", stdout);
			json_str(st->frames[i].file);
			printf(",\"line\":%d", st->frames[i].line);
		}
		putchar('}');
		free(st->frames[i].name);
		free(st->frames[i].file);
	}
	fputs("\n]}}\n", stdout);
	free(st->frames);
	free(st->slots);
	free(st);
}

const struct export_ops export_speedscope = {
	.begin = begin, .thread_begin = thread_begin, .open = open_frame,
	.close = close_frame, .thread_end = thread_end, .end = end,
};
