// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Demangling through libiberty's cplus_demangle (what c++filt, binutils
 * and gdb use), with every answer kept: a view asks for the same few
 * names again and again.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "names.h"

struct name_entry {
	char *raw;
	char *shown;		/* NULL: shown as it is */
};

static struct {
	struct name_entry *v;
	size_t n, cap;		/* cap: a power of two, or 0 */
} cache;

static bool keep_raw;

void names_keep_raw(bool raw)
{
	keep_raw = raw;
}

static size_t hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static bool grow(void)
{
	size_t cap = cache.cap ? 2 * cache.cap : 256;
	struct name_entry *v = calloc(cap, sizeof(*v));

	if (!v)
		return false;
	for (size_t i = 0; i < cache.cap; i++) {
		size_t j;

		if (!cache.v[i].raw)
			continue;
		j = hash(cache.v[i].raw) & (cap - 1);
		while (v[j].raw)
			j = (j + 1) & (cap - 1);
		v[j] = cache.v[i];
	}
	free(cache.v);
	cache.v = v;
	cache.cap = cap;
	return true;
}

/*
 * "_ZN1a1fEv@plt" and "_ZN1a1fEv@GLIBCXX_3.4": the name before the '@'
 * demangled, the suffix kept, as gdb shows PLT entries and versions.
 */
static char *demangle(const char *raw)
{
	const char *at = strchr(raw, '@');
	char *base, *d, *out;
	size_t n;

	if (!at)
		return cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI);
	base = strndup(raw, at - raw);
	d = base ? cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI) : NULL;
	free(base);
	if (!d)
		return NULL;
	n = strlen(d) + strlen(at) + 1;
	out = malloc(n);
	if (out) {
		strcpy(out, d);
		strcat(out, at);
	}
	free(d);
	return out;
}

static struct name_entry *lookup(const char *raw)
{
	size_t j;

	if (2 * (cache.n + 1) > cache.cap && !grow())
		return NULL;
	j = hash(raw) & (cache.cap - 1);
	while (cache.v[j].raw && strcmp(cache.v[j].raw, raw))
		j = (j + 1) & (cache.cap - 1);
	if (cache.v[j].raw)
		return &cache.v[j];
	cache.v[j].raw = strdup(raw);
	if (!cache.v[j].raw)
		return NULL;
	cache.v[j].shown = demangle(raw);
	cache.n++;
	return &cache.v[j];
}

const char *name_shown(const char *raw)
{
	struct name_entry *e;

	/* Only C++ (_Z) and Rust (_R, or _ZN...17h<hash>E) names are mangled. */
	if (!raw || keep_raw || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	e = lookup(raw);
	return e && e->shown ? e->shown : raw;
}

int symbolize_shown(struct bts_symbolizer *sym, uint64_t addr,
		    const char **name, uint64_t *off)
{
	int ret = bts_symbolize(sym, addr, name, off);

	if (ret == 0)
		*name = name_shown(*name);
	return ret;
}
