// SPDX-License-Identifier: GPL-2.0-or-later
/* Synthetic traces repeating a cycle of a recorded one (synth_trace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_trace.h"

/* The records of thread 0, all of them; NULL when out of memory. */
static struct ptbts_record *load(const struct bts_trace *t, size_t *n)
{
	struct ptbts_record *v = malloc(bts_trace_thread(t, 0)->nrecords * sizeof(*v) + 1);
	struct bts_rec_iter *it = NULL;

	*n = 0;
	if (v && bts_rec_iter_new(t, 0, &it)) {
		free(v);
		return NULL;
	}
	while (v && bts_rec_iter_next(it, &v[*n]) > 0)
		(*n)++;
	bts_rec_iter_free(it);
	return v;
}

/* [*lo, *hi): the longest stretch from a record to its last repetition. */
static int longest_cycle(const struct ptbts_record *r, size_t n, size_t *lo,
			 size_t *hi)
{
	size_t cap = 1, best = 0;
	size_t *first;

	while (cap < 2 * n)
		cap *= 2;
	first = malloc(cap * sizeof(*first));
	if (!first)
		return -1;
	memset(first, 0xff, cap * sizeof(*first));
	*lo = *hi = 0;
	for (size_t i = 0; i < n; i++) {
		size_t h = (size_t)((r[i].from * 31 + r[i].to) * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);

		if (!r[i].from)
			continue;
		while (first[h] != SIZE_MAX &&
		       (r[first[h]].from != r[i].from || r[first[h]].to != r[i].to))
			h = (h + 1) & (cap - 1);
		if (first[h] == SIZE_MAX) {
			first[h] = i;
		} else if (i - first[h] > best) {
			best = i - first[h];
			*lo = first[h];
			*hi = i;
		}
	}
	free(first);
	return 0;
}

/* The process of @src's first thread: its maps and code copies. */
static int write_process(const struct bts_trace *src, struct bts_writer *w)
{
	const struct bts_thread_info *th = bts_trace_thread(src, 0);
	const struct bts_map *maps;
	const struct bts_code *code;
	size_t nmaps = bts_trace_maps(src, th->pid, &maps);
	size_t ncode = bts_trace_code(src, th->pid, &code);
	int err = bts_writer_process(w, th->pid, 1, bts_trace_process(src, 0)->exe);

	for (size_t i = 0; !err && i < nmaps; i++)
		err = bts_writer_map(w, th->pid, &maps[i]);
	for (size_t i = 0; !err && i < ncode; i++)
		err = bts_writer_code(w, th->pid, code[i].addr, code[i].bytes,
				      code[i].len);
	return err ? err : bts_writer_thread(w, th->pid, th->tid);
}

static int write_cycles(const struct bts_trace *src, struct bts_writer *w,
			const struct ptbts_record *r, size_t len, uint64_t want)
{
	const struct bts_thread_info *th = bts_trace_thread(src, 0);
	int err = 0;

	for (uint64_t done = 0; !err && done < want;) {
		size_t k = len < want - done ? len : want - done;

		err = bts_writer_records(w, th->pid, th->tid, r, k);
		done += k;
	}
	return err;
}

long synth_trace_write(const struct bts_trace *src, const char *path,
		       uint64_t want)
{
	struct bts_writer *w;
	size_t n, lo, hi;
	struct ptbts_record *r = load(src, &n);
	int err;

	if (!r || longest_cycle(r, n, &lo, &hi)) {
		fprintf(stderr, "synth_trace: out of memory\n");
		free(r);
		return -1;
	}
	if (hi - lo < 2) {
		fprintf(stderr, "synth_trace: no repeated record in the source trace\n");
		free(r);
		return -1;
	}
	err = bts_writer_new(path, &w);
	if (!err) {
		err = write_process(src, w);
		if (!err)
			err = write_cycles(src, w, r + lo, hi - lo, want);
		if (!err)
			err = bts_writer_finish(w);
		bts_writer_free(w);
	}
	free(r);
	if (err) {
		fprintf(stderr, "synth_trace: %s: %s (%s)\n", path, bts_errstr(err),
			bts_errdetail());
		return -1;
	}
	return hi - lo;
}
