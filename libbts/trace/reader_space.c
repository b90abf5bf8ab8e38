// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Address spaces of a trace's processes: the maps and code copies of one
 * image, and the view of all images the decoder reads.  As mmap() does
 * it, a new map replaces what it covers of older ones, which keep their
 * parts outside it (the right part's file offset moves along), and so does
 * a code copy (a trimmed copy keeps the bytes of its part).  Each set stays
 * sorted and free of overlaps, so the ones a new entry overlaps are the
 * run [i, j) and one insertion costs a search and a move.
 */
#include <stdlib.h>

#include "trace/reader.h"

/* Room for @more entries after the @n of the array *@arrp. */
static int reserve(void *arrp, size_t *cap, size_t n, size_t more, size_t size)
{
	while (n + more > *cap)
		if (bts_reader_grow(arrp, cap, *cap, size))
			return -BTS_E_NOMEM;
	return 0;
}

int bts_space_add_map(struct trace_space *s, const struct bts_map *m)
{
	struct bts_map repl[3];
	size_t i = 0, j, n = 0;

	while (i < s->nmaps && s->maps[i].end <= m->start)
		i++;
	for (j = i; j < s->nmaps && s->maps[j].start < m->end; j++)
		;
	if (i < j && s->maps[i].start < m->start) {
		repl[n] = s->maps[i];
		repl[n++].end = m->start;
	}
	repl[n++] = *m;
	if (i < j && s->maps[j - 1].end > m->end) {
		repl[n] = s->maps[j - 1];
		repl[n].offset += m->end - repl[n].start;
		repl[n++].start = m->end;
	}
	if (reserve(&s->maps, &s->capmaps, s->nmaps, n, sizeof(*s->maps)))
		return -BTS_E_NOMEM;
	memmove(&s->maps[i + n], &s->maps[j], (s->nmaps - j) * sizeof(*s->maps));
	memcpy(&s->maps[i], repl, n * sizeof(*repl));
	s->nmaps = s->nmaps - (j - i) + n;
	return 0;
}

int bts_space_add_code(struct trace_space *s, const struct bts_code *c)
{
	struct bts_code repl[3];
	size_t i = 0, j, n = 0;

	while (i < s->ncode && s->code[i].addr + s->code[i].len <= c->addr)
		i++;
	for (j = i; j < s->ncode && s->code[j].addr < c->addr + c->len; j++)
		;
	if (i < j && s->code[i].addr < c->addr) {
		repl[n] = s->code[i];
		repl[n++].len = c->addr - s->code[i].addr;
	}
	repl[n++] = *c;
	if (i < j && s->code[j - 1].addr + s->code[j - 1].len > c->addr + c->len) {
		uint64_t cut = c->addr + c->len - s->code[j - 1].addr;

		repl[n] = s->code[j - 1];
		repl[n].addr += cut;
		repl[n].bytes += cut;
		repl[n++].len -= cut;
	}
	if (reserve(&s->code, &s->capcode, s->ncode, n, sizeof(*s->code)))
		return -BTS_E_NOMEM;
	memmove(&s->code[i + n], &s->code[j], (s->ncode - j) * sizeof(*s->code));
	memcpy(&s->code[i], repl, n * sizeof(*repl));
	s->ncode = s->ncode - (j - i) + n;
	return 0;
}

/*
 * The entries of @from cover exactly what its chunks covered, each with
 * what the last chunk there said, so laying them over @to one by one
 * gives what laying the chunks would have.
 */
int bts_space_merge(struct trace_space *to, const struct trace_space *from)
{
	for (size_t i = 0; i < from->nmaps; i++)
		if (bts_space_add_map(to, &from->maps[i]))
			return -BTS_E_NOMEM;
	for (size_t i = 0; i < from->ncode; i++)
		if (bts_space_add_code(to, &from->code[i]))
			return -BTS_E_NOMEM;
	return 0;
}

void bts_space_free(struct trace_space *s)
{
	free(s->maps);
	free(s->code);
	*s = (struct trace_space){ 0 };
}
