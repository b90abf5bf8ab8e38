// SPDX-License-Identifier: GPL-2.0-or-later
/* dump's filters: which entries of a view are printed. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "dump-filter.h"
#include "names.h"

bool filter_active(const struct dump_filter *f)
{
	return f->function || f->object || f->grep || f->addr;
}

bool filter_needs_addr(const struct dump_filter *f)
{
	return f->object || f->addr;
}

/* People type the name they read; scripts may type the symbol. */
static bool name_matches(const struct dump_filter *f, const char *raw)
{
	const char *shown = name_shown(raw);

	if (!raw)
		return false;
	if (f->function && fnmatch(f->function, shown, 0) &&
	    fnmatch(f->function, raw, 0))
		return false;
	if (f->grep && regexec(&f->re, shown, 0, NULL, 0) &&
	    regexec(&f->re, raw, 0, NULL, 0))
		return false;
	return true;
}

static bool object_matches(const char *glob, const char *path)
{
	const char *base;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !fnmatch(glob, path, 0) || !fnmatch(glob, base, 0);
}

bool filter_match(const struct dump_filter *f, uint64_t addr, const char *name,
		  const char *object)
{
	if ((f->function || f->grep) && !name_matches(f, name))
		return false;
	if (f->object && !object_matches(f->object, object))
		return false;
	if (f->addr && (!addr || addr < f->lo || addr > f->hi))
		return false;
	return true;
}

bool filter_addr(const struct dump_filter *f, struct bts_symbolizer *sym,
		 uint64_t addr)
{
	const char *name = NULL;
	uint64_t off;

	if (sym && (f->function || f->grep) &&
	    bts_symbolize(sym, addr, &name, &off) < 0)
		name = NULL;
	return filter_match(f, addr, name,
			    sym && f->object ? bts_symbolize_object(sym, addr) : NULL);
}

const char *parse_filter_grep(const char *arg, void *filter)
{
	struct dump_filter *f = filter;

	if (f->grep)
		return "given twice";
	if (regcomp(&f->re, arg, REG_EXTENDED | REG_NOSUB))
		return "not a regular expression";
	f->grep = true;
	return NULL;
}

static bool parse_hex(const char *s, const char *end, uint64_t *out)
{
	char *stop;

	if (s == end || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*out = strtoull(s, &stop, 16);
	return !errno && stop == end;
}

const char *parse_filter_addr(const char *arg, void *filter)
{
	struct dump_filter *f = filter;
	const char *dash = strchr(arg, '-');

	if (!dash || !parse_hex(arg, dash, &f->lo) ||
	    !parse_hex(dash + 1, dash + 1 + strlen(dash + 1), &f->hi))
		return "not an address range LO-HI (hexadecimal)";
	if (f->lo > f->hi)
		return "the range ends before it starts";
	f->addr = true;
	return NULL;
}

void filter_free(struct dump_filter *f)
{
	if (f->grep)
		regfree(&f->re);
	f->grep = false;
}
