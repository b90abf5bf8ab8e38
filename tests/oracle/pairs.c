// SPDX-License-Identifier: GPL-2.0-or-later
/* Lists of (from, to) pairs: building, filtering, comparing, reporting. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

void oracle_pairs_add(struct oracle_pairs *p, uint64_t from, uint64_t to)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		if (!p->v)
			abort();
	}
	p->v[p->n++] = (struct oracle_pair){ from, to };
}

void oracle_pairs_free(struct oracle_pairs *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

size_t oracle_pairs_count_from(const struct oracle_pairs *p, uint64_t from)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->v[i].from == from;
	return n;
}

void oracle_filter_funcs(const struct oracle_pairs *in,
			 const struct oracle_image *img, uint64_t bias,
			 struct oracle_pairs *out)
{
	for (size_t i = 0; i < in->n; i++) {
		uint64_t from = in->v[i].from - bias, to = in->v[i].to - bias;

		if (oracle_image_in_func(img, from) &&
		    oracle_image_in_func(img, to))
			oracle_pairs_add(out, from, to);
	}
}

long oracle_first_diff(const struct oracle_pairs *want,
		       const struct oracle_pairs *got)
{
	size_t i;

	for (i = 0; i < want->n && i < got->n; i++)
		if (want->v[i].from != got->v[i].from ||
		    want->v[i].to != got->v[i].to)
			return i;
	return want->n == got->n ? -1 : (long)i;
}

static void pair_line(FILE *f, const char *who, const struct oracle_pairs *p,
		      size_t i, const struct oracle_image *img, uint64_t bias)
{
	char a[128], b[128], insn[96];

	if (i >= p->n) {
		fprintf(f, "    %-6s (none)\n", who);
		return;
	}
	fprintf(f, "    %-6s 0x%" PRIx64 " %s  [%s] -> 0x%" PRIx64 " %s\n", who,
		p->v[i].from,
		oracle_image_name(img, p->v[i].from - bias, a, sizeof(a)),
		oracle_disasm(img, p->v[i].from - bias, insn, sizeof(insn)),
		p->v[i].to,
		oracle_image_name(img, p->v[i].to - bias, b, sizeof(b)));
}

char *oracle_report(const struct oracle_pairs *want,
		    const struct oracle_pairs *got, long idx,
		    const struct oracle_image *img, uint64_t bias)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	size_t lo = idx > 5 ? idx - 5 : 0;

	if (!f)
		abort();
	fprintf(f, "first difference at record %ld (qemu has %zu records, "
		"btrace %zu):\n", idx, want->n, got->n);
	for (size_t i = lo; i <= (size_t)idx + 5; i++) {
		if (i >= want->n && i >= got->n)
			break;
		fprintf(f, "  [%zu]%s\n", i, i == (size_t)idx ? "  <<<" : "");
		pair_line(f, "qemu", want, i, img, bias);
		pair_line(f, "btrace", got, i, img, bias);
	}
	fclose(f);
	return text;
}
