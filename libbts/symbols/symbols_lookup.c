// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Names and source lines of addresses, through a cache: views ask about
 * the same few thousand addresses millions of times, and a libdwfl lookup
 * (a scan of the symbol table, a search of the line table) is slow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

#define SYM_CACHE_SLOTS	(1u << SYM_CACHE_BITS)

/*
 * The slot of @addr, emptied for it when another address held it; NULL
 * when the cache cannot be had (out of memory: every lookup is fresh).
 */
static struct sym_slot *slot_of(struct bts_symbolizer *s, uint64_t addr)
{
	struct sym_slot *slot;

	if (!s->cache)
		s->cache = calloc(SYM_CACHE_SLOTS, sizeof(*s->cache));
	if (!s->cache)
		return NULL;
	slot = &s->cache[(addr * 0x9e3779b97f4a7c15ULL) >> (64 - SYM_CACHE_BITS)];
	if (slot->addr != addr)
		*slot = (struct sym_slot){ .addr = addr };
	return slot;
}

/*
 * "NAME@@VERSION" is the default version of NAME: every caller that does
 * not ask for a version gets it, so it reads as plain NAME (as gdb shows
 * it).  "NAME@VERSION" is an old version, kept apart.
 */
static const char *plain_name(struct bts_symbolizer *s, const char *name)
{
	const char *at = strstr(name, "@@");
	const char *plain = at ? bts_sym_keep(s, name, at - name, NULL) : NULL;

	return plain ? plain : name;
}

static void lookup_name(struct bts_symbolizer *s, struct sym_slot *slot)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, slot->addr);
	GElf_Addr bias;
	Elf *elf;

	slot->have_name = true;
	if (!mod)
		return;
	slot->name = bts_sym_table_find(s, mod, slot->addr, &slot->offset);
	if (slot->name) {
		slot->name = plain_name(s, slot->name);
		return;
	}
	elf = dwfl_module_getelf(mod, &bias);
	if (elf)
		slot->name = bts_plt_name(s, elf, slot->addr - bias, &slot->offset);
}

/*
 * A path relative to the compilation's directory, made whole to be opened.
 * A relative directory is not joined, as gdb does not: Debian's libc says
 * comp_dir "./elf" and file "./elf/rtld.c" (or "../sysdeps/..."), and
 * "./elf/./elf/rtld.c" is neither openable nor what gdb shows.
 */
static const char *whole_path(struct bts_symbolizer *s, Dwfl_Line *line,
			      const char *file)
{
	const char *dir = file[0] == '/' ? NULL : dwfl_line_comp_dir(line);
	const char *path;
	char *tmp;

	if (!dir || dir[0] != '/' || asprintf(&tmp, "%s/%s", dir, file) < 0)
		return file;
	path = bts_sym_keep(s, tmp, strlen(tmp), NULL);
	free(tmp);
	return path ? path : file;
}

/* Line 0 is DWARF's "no source line": code the compiler made up. */
static void lookup_line(struct bts_symbolizer *s, struct sym_slot *slot)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, slot->addr);
	Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, slot->addr) : NULL;
	Dwarf_Addr at;
	int lineno = 0;
	const char *file;

	slot->have_line = true;
	if (!line)
		return;
	file = dwfl_lineinfo(line, &at, &lineno, NULL, NULL, NULL);
	if (file && lineno > 0) {
		slot->file = whole_path(s, line, file);
		slot->line = lineno;
	}
}

int bts_symbolize(struct bts_symbolizer *s, uint64_t addr, const char **name,
		  uint64_t *offset)
{
	struct sym_slot tmp = { .addr = addr }, *slot;

	if (!s || !addr || !name || !offset)
		return bts_fail(BTS_E_INVAL, "no symbol at 0x%llx",
				(unsigned long long)addr);
	slot = slot_of(s, addr);
	if (!slot)
		slot = &tmp;
	if (!slot->have_name)
		lookup_name(s, slot);
	if (!slot->name)
		return -BTS_E_INVAL;
	*name = slot->name;
	*offset = slot->offset;
	return 0;
}

int bts_symbolize_line(struct bts_symbolizer *s, uint64_t addr,
		       const char **file, int *line)
{
	struct sym_slot tmp = { .addr = addr }, *slot;

	if (!s || !addr || !file || !line)
		return bts_fail(BTS_E_INVAL, "no source line at 0x%llx",
				(unsigned long long)addr);
	slot = slot_of(s, addr);
	if (!slot)
		slot = &tmp;
	if (!slot->have_line)
		lookup_line(s, slot);
	if (!slot->file)
		return -BTS_E_INVAL;
	*file = slot->file;
	*line = slot->line;
	return 0;
}

const char *bts_symbolize_object(const struct bts_symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s ? s->nobjs : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < s->objs[mid].start)
			hi = mid;
		else if (addr >= s->objs[mid].end)
			lo = mid + 1;
		else
			return s->objs[mid].path;
	}
	return NULL;
}
