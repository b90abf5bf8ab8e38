/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The symbolizer's parts:
 *
 * symbols.c         the files of a process's maps (and its vDSO copy)
 *                   reported to libdwfl, each checked against its build-id
 * symbols_debug.c   where separate debug files are looked for
 * symbols_strings.c the strings the symbolizer makes up
 * symbols_table.c   a sorted table of each module's functions
 * symbols_plt.c     "FUNC@plt" names for PLT stubs, which have no symbol
 * symbols_lookup.c  bts_symbolize() and bts_symbolize_line(), cached
 */
#ifndef BTS_SYMBOLS_H
#define BTS_SYMBOLS_H

#include <elfutils/libdwfl.h>

#include "internal.h"
#include "util/warnings.h"

/*
 * One cached answer per address.  The cache is direct-mapped: a lookup
 * costs one probe and the memory stays fixed however many addresses a
 * view asks about; a colliding address just replaces the older answer.
 */
#define SYM_CACHE_BITS	15

struct sym_slot {
	uint64_t addr;		/* 0: empty (no code lives at 0) */
	const char *name;	/* NULL: no symbol there */
	uint64_t offset;
	const char *file;	/* NULL: no source line there */
	int line;
	bool have_name;		/* name and offset are looked up */
	bool have_line;		/* file and line are looked up */
};

/* A mapped file's address range, for bts_symbolize_object(). */
struct sym_obj {
	uint64_t start, end;
	const char *path;	/* bts_sym_keep()'s */
};

struct bts_symbolizer {
	Dwfl *dwfl;
	struct sym_obj *objs;	/* sorted by start, none overlapping */
	size_t nobjs;
	struct bts_warnings warnings;
	struct sym_slot *cache;	/* 1 << SYM_CACHE_BITS slots, or NULL */
	struct sym_table **tables;	/* per module, made on first use */
	size_t ntables, cap_tables;
	/* Strings made up here ("NAME@plt", paths): a set, one copy each. */
	char **strs;		/* open addressing, a power of two */
	size_t strs_cap, nstrs;
};

/* The find_debuginfo callback and search path (symbols_debug.c). */
extern char *bts_sym_debuginfo_path;
int bts_sym_find_debuginfo(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name);

void bts_sym_warn(struct bts_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The function holding @addr in @mod, as dwfl_module_addrinfo() would
 * name it, and @addr's offset into it; NULL when no symbol holds it.
 */
const char *bts_sym_table_find(struct bts_symbolizer *s, Dwfl_Module *mod,
			       uint64_t addr, uint64_t *offset);
void bts_sym_tables_free(struct bts_symbolizer *s);

/*
 * The string @alen bytes of @a followed by @b (may be NULL), kept as long
 * as @s; NULL when out of memory.
 */
const char *bts_sym_keep(struct bts_symbolizer *s, const char *a, size_t alen,
			 const char *b);

/*
 * The name of the PLT stub holding @addr (the file's own address) in
 * @elf, "FUNC@plt", and @addr's offset into the stub; NULL when @addr is
 * not in a stub.  The name lives as long as @s.
 */
const char *bts_plt_name(struct bts_symbolizer *s, Elf *elf, uint64_t addr,
			 uint64_t *offset);

#endif /* BTS_SYMBOLS_H */
