// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A sorted table of each module's symbols, made on its first lookup, so
 * that finding the function of an address is a binary search rather than
 * libdwfl's scan of the whole symbol table (tens of thousands of symbols
 * in a libc debug file: far too slow for a view that asks about every
 * instruction).  The choice follows dwfl_module_addrinfo(): a sized symbol
 * that holds the address, the closest one, GLOBAL before WEAK before
 * LOCAL, the first in the table among equals; failing that the closest
 * sizeless symbol of the address's section, if no sized one ends between
 * it and the address.
 */
#include <stdlib.h>

#include <gelf.h>

#include "symbols/symbols.h"
#include "util/array.h"

struct sym_fn {
	uint64_t lo, hi;	/* hi == lo: a sizeless symbol */
	const char *name;
	uint32_t rank;		/* binding: higher is better */
	uint32_t index;		/* in the module's symbol table */
};

struct sym_table {
	Dwfl_Module *mod;
	struct sym_fn *sized, *sizeless;
	size_t nsized, nsizeless;
};

static uint32_t binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_GNU_UNIQUE:
		return 2;
	case STB_WEAK:
		return 1;
	default:
		return 0;
	}
}

/* By address; at one address the best last, as a backward walk wants. */
static int fn_cmp(const void *pa, const void *pb)
{
	const struct sym_fn *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->index > b->index ? -1 : a->index < b->index;
}

static bool names_code(const GElf_Sym *sym, GElf_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return name && *name && shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

/* Symbol @i of @tab's module, when it names code; false otherwise. */
static bool get_fn(const struct sym_table *tab, int i, struct sym_fn *fn)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	const char *name = dwfl_module_getsym_info(tab->mod, i, &sym, &addr,
						   &shndx, NULL, NULL);

	if (!names_code(&sym, shndx, name))
		return false;
	*fn = (struct sym_fn){
		.lo = addr, .hi = addr + sym.st_size, .name = name,
		.rank = binding_rank(&sym), .index = (uint32_t)i,
	};
	return true;
}

/* Two passes: count, then fill arrays of the exact size. */
static int table_fill(struct sym_table *tab)
{
	int n = dwfl_module_getsymtab(tab->mod);
	size_t nsized = 0, nsizeless = 0;
	struct sym_fn fn;

	for (int i = 1; i < n; i++)
		if (get_fn(tab, i, &fn))
			fn.hi > fn.lo ? nsized++ : nsizeless++;
	tab->sized = calloc(nsized + 1, sizeof(fn));
	tab->sizeless = calloc(nsizeless + 1, sizeof(fn));
	if (!tab->sized || !tab->sizeless)
		return -1;
	for (int i = 1; i < n; i++) {
		if (!get_fn(tab, i, &fn))
			continue;
		if (fn.hi > fn.lo && tab->nsized < nsized)
			tab->sized[tab->nsized++] = fn;
		else if (fn.hi == fn.lo && tab->nsizeless < nsizeless)
			tab->sizeless[tab->nsizeless++] = fn;
	}
	qsort(tab->sized, tab->nsized, sizeof(fn), fn_cmp);
	qsort(tab->sizeless, tab->nsizeless, sizeof(fn), fn_cmp);
	return 0;
}

/* The number of entries of @arr with lo <= @addr. */
static size_t upto(const struct sym_fn *arr, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (arr[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Walks back from the closest start: nested and overlapping symbols are
 * rare, so a few steps find the holder; 64 bounds a pathological table.
 */
static const struct sym_fn *sized_at(const struct sym_table *tab,
				     uint64_t addr, uint64_t *ended)
{
	size_t i = upto(tab->sized, tab->nsized, addr);

	*ended = 0;
	for (size_t steps = 0; i > 0 && steps < 64; i--, steps++) {
		const struct sym_fn *fn = &tab->sized[i - 1];

		if (addr < fn->hi)
			return fn;
		if (fn->hi > *ended)
			*ended = fn->hi;
	}
	return NULL;
}

/* Where the section holding @addr starts, or addr + 1 when none does. */
static uint64_t section_start(Dwfl_Module *mod, uint64_t addr)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    addr - bias >= sh.sh_addr && addr - bias < sh.sh_addr + sh.sh_size)
			return sh.sh_addr + bias;
	return addr + 1;
}

static const struct sym_fn *table_find(const struct sym_table *tab,
				       uint64_t addr)
{
	uint64_t ended;
	const struct sym_fn *fn = sized_at(tab, addr, &ended);
	size_t i;

	if (fn)
		return fn;
	i = upto(tab->sizeless, tab->nsizeless, addr);
	if (!i || tab->sizeless[i - 1].lo < ended)
		return NULL;
	/* A label names what follows it in its own section only. */
	if (tab->sizeless[i - 1].lo < section_start(tab->mod, addr))
		return NULL;
	return &tab->sizeless[i - 1];
}

static void table_free(struct sym_table *tab)
{
	free(tab->sized);
	free(tab->sizeless);
	free(tab);
}

static int push_table(struct bts_symbolizer *s, struct sym_table *tab)
{
	if (BTS_ARRAY_RESERVE(s->tables, s->cap_tables, s->ntables + 1))
		return -1;
	s->tables[s->ntables++] = tab;
	return 0;
}

/* The table of @mod, made on first use; NULL when out of memory. */
static struct sym_table *table_of(struct bts_symbolizer *s, Dwfl_Module *mod)
{
	struct sym_table *tab;

	for (size_t i = 0; i < s->ntables; i++)
		if (s->tables[i]->mod == mod)
			return s->tables[i];
	tab = calloc(1, sizeof(*tab));
	if (!tab)
		return NULL;
	tab->mod = mod;
	if (table_fill(tab) || push_table(s, tab)) {
		table_free(tab);
		return NULL;
	}
	return tab;
}

const char *bts_sym_table_find(struct bts_symbolizer *s, Dwfl_Module *mod,
			       uint64_t addr, uint64_t *offset)
{
	struct sym_table *tab = table_of(s, mod);
	const struct sym_fn *fn;
	GElf_Off off;
	GElf_Sym sym;

	/* Out of memory: libdwfl's own (slow) search still answers. */
	if (!tab) {
		const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym,
							NULL, NULL, NULL);

		*offset = off;
		return name;
	}
	fn = table_find(tab, addr);
	if (!fn)
		return NULL;
	*offset = addr - fn->lo;
	return fn->name;
}

void bts_sym_tables_free(struct bts_symbolizer *s)
{
	for (size_t i = 0; i < s->ntables; i++)
		table_free(s->tables[i]);
	free(s->tables);
}
