// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The strings a symbolizer makes up ("NAME@plt", a name without its symbol
 * version, a source path joined to its directory) live as long as it does.
 * One copy of each, found by hash: the cache forgets answers and asks
 * again, and each asking must not cost memory.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

/* FNV-1a over @a[0..alen) and @b. */
static size_t str_hash(const char *a, size_t alen, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < alen; i++)
		h = (h ^ (uint8_t)a[i]) * 0x100000001b3ULL;
	for (; b && *b; b++)
		h = (h ^ (uint8_t)*b) * 0x100000001b3ULL;
	return (size_t)h;
}

static bool str_is(const char *s, const char *a, size_t alen, const char *b)
{
	return !strncmp(s, a, alen) && !strcmp(s + alen, b ? b : "");
}

/* The slot of the string, or the free slot where it belongs. */
static size_t str_slot(char **strs, size_t cap, const char *a, size_t alen,
		       const char *b)
{
	size_t i = str_hash(a, alen, b) & (cap - 1);

	while (strs[i] && !str_is(strs[i], a, alen, b))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Keeps the set at most half full. */
static int strs_grow(struct bts_symbolizer *s)
{
	size_t cap = s->strs_cap ? 2 * s->strs_cap : 64;
	char **strs;

	if (2 * (s->nstrs + 1) <= s->strs_cap)
		return 0;
	strs = calloc(cap, sizeof(*strs));
	if (!strs)
		return -1;
	for (size_t i = 0; i < s->strs_cap; i++)
		if (s->strs[i])
			strs[str_slot(strs, cap, s->strs[i], strlen(s->strs[i]),
				      NULL)] = s->strs[i];
	free(s->strs);
	s->strs = strs;
	s->strs_cap = cap;
	return 0;
}

const char *bts_sym_keep(struct bts_symbolizer *s, const char *a, size_t alen,
			 const char *b)
{
	size_t blen = b ? strlen(b) : 0, i;
	char *str;

	if (strs_grow(s))
		return NULL;
	i = str_slot(s->strs, s->strs_cap, a, alen, b);
	if (s->strs[i])
		return s->strs[i];
	str = malloc(alen + blen + 1);
	if (!str)
		return NULL;
	memcpy(str, a, alen);
	memcpy(str + alen, b ? b : "", blen + 1);
	s->strs[i] = str;
	s->nstrs++;
	return str;
}
