// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Function names for the addresses of a traced process, from the files its
 * maps name (elfutils libdwfl, offline: nothing is read from a live process).
 *
 * Each file is reported once, at the load bias its map implies, and only if
 * it is the file that was traced: when the build-id differs, a name from it
 * would be a wrong name, which is worse than none.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "internal.h"

struct sym_slot {
	uint64_t addr;		/* 0: empty (no code lives at 0) */
	const char *name;	/* NULL: no symbol there */
	uint64_t offset;
};

struct bts_symbolizer {
	Dwfl *dwfl;
	char **warnings;
	size_t nwarnings;
	struct sym_slot *cache;	/* open addressing, a power of two */
	size_t cache_cap;
	size_t cache_used;
	char **names;		/* the "NAME@plt" names made up here */
	size_t nnames;
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static void warn(struct bts_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct bts_symbolizer *s, const char *fmt, ...)
{
	char **w = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*w));
	va_list ap;
	char *msg;
	int n;

	if (!w)
		return;
	s->warnings = w;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n >= 0)
		s->warnings[s->nwarnings++] = msg;
}

/* -------------------------------------------------------- reporting */

/*
 * The load bias of the file mapped at @m: find the PT_LOAD segment that
 * holds the map's file offset; within it, address - file offset is
 * p_vaddr - p_offset, so bias = start - offset - (p_vaddr - p_offset).
 * For an ET_EXEC file that is 0.
 */
static int load_bias(Elf *elf, const struct bts_map *m, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_offset & ~(page - 1)) > m->offset ||
		    m->offset >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - m->offset - (ph.p_vaddr - ph.p_offset);
		return 0;
	}
	return -1;
}

static bool same_build_id(Elf *elf, const struct bts_map *m)
{
	const void *id;
	ssize_t len;

	if (!m->build_id_len)
		return true;	/* nothing was recorded to compare with */
	len = dwelf_elf_gnu_build_id(elf, &id);
	return len == (ssize_t)m->build_id_len &&
	       !memcmp(id, m->build_id, m->build_id_len);
}

/* Checks that @fd holds the file traced at @m; its load bias in *bias. */
static bool check_file(struct bts_symbolizer *s, int fd,
		       const struct bts_map *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool ok = false;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		warn(s, "%s: not an ELF file: no symbols from it", m->path);
	else if (!same_build_id(elf, m))
		warn(s, "%s: not the file that was traced (build-id differs): "
		     "no symbols from it", m->path);
	else if (load_bias(elf, m, bias))
		warn(s, "%s: no segment at file offset 0x%llx: no symbols from it",
		     m->path, (unsigned long long)m->offset);
	else
		ok = true;
	elf_end(elf);
	return ok;
}

static void report_map(struct bts_symbolizer *s, const struct bts_map *m)
{
	uint64_t bias;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		warn(s, "%s: cannot open (%m): no symbols from it", m->path);
		return;
	}
	if (!check_file(s, fd, m, &bias)) {
		close(fd);
		return;
	}
	/* add_p_vaddr: @bias is added to the file's addresses. */
	if (!dwfl_report_elf(s->dwfl, m->path, m->path, fd, bias, true)) {
		warn(s, "%s: %s: no symbols from it", m->path, dwfl_errmsg(-1));
		close(fd);
	}
}

/* One report (and one warning) per file, however many maps it has. */
static bool seen_path(const struct bts_map *maps, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(maps[j].path, maps[i].path))
			return true;
	return false;
}

static int report_maps(struct bts_symbolizer *s, const struct bts_map *maps,
		       size_t n)
{
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct bts_map *m = &maps[i];

		/* Anonymous memory and [vdso] have no file to read. */
		if (!m->path || m->path[0] != '/')
			continue;
		if (seen_path(maps, i))
			continue;
		report_map(s, m);
	}
	if (dwfl_report_end(s->dwfl, NULL, NULL))
		return bts_fail(BTS_E_INTERNAL, "dwfl_report_end: %s",
				dwfl_errmsg(-1));
	return 0;
}

int bts_symbolizer_new(const struct bts_trace *t, pid_t pid,
		       struct bts_symbolizer **out)
{
	const struct bts_map *maps;
	size_t n = bts_trace_maps(t, pid, &maps);
	struct bts_symbolizer *s;
	int ret;

	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (!s)
		return bts_fail(BTS_E_NOMEM, "symbolizer");
	s->dwfl = dwfl_begin(&offline_callbacks);
	if (!s->dwfl) {
		free(s);
		return bts_fail(BTS_E_NOMEM, "dwfl_begin: %s", dwfl_errmsg(-1));
	}
	ret = report_maps(s, maps, n);
	if (ret < 0) {
		bts_symbolizer_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void bts_symbolizer_free(struct bts_symbolizer *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->cache);
	free(s);
}

const char *bts_symbolizer_warning(const struct bts_symbolizer *s, size_t i)
{
	return s && i < s->nwarnings ? s->warnings[i] : NULL;
}

/* ---------------------------------------------------------------- PLT */

/*
 * PLT stubs have no symbols, yet every library call starts in one: name
 * them "FUNC@plt" as objdump and gdb do.  Each stub (in .plt, .plt.sec or
 * .plt.got, with or without endbr64 and bnd) jumps through a GOT slot with
 * `jmp *disp32(%rip)`; the dynamic relocation of that slot names FUNC.
 */
static uint64_t stub_got_slot(const uint8_t *code, size_t len, uint64_t vaddr)
{
	for (size_t i = 0; i + 6 <= len; i++) {
		int32_t disp;

		if (code[i] != 0xff || code[i + 1] != 0x25)
			continue;
		memcpy(&disp, code + i + 2, sizeof(disp));
		return vaddr + i + 6 + (int64_t)disp;
	}
	return 0;
}

static const char *reloc_symbol(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
				uint64_t slot)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	GElf_Shdr symsh;

	if (!data || !syms || !sh->sh_entsize || !gelf_getshdr(symscn, &symsh))
		return NULL;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(data, i, &r) || r.r_offset != slot)
			continue;
		if (!GELF_R_SYM(r.r_info) ||
		    !gelf_getsym(syms, GELF_R_SYM(r.r_info), &sym))
			return NULL;
		return elf_strptr(elf, symsh.sh_link, sym.st_name);
	}
	return NULL;
}

static const char *got_slot_name(Elf *elf, uint64_t slot)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		name = reloc_symbol(elf, scn, &sh, slot);
		if (name)
			return name;
	}
	return NULL;
}

static const char *keep_name(struct bts_symbolizer *s, const char *func)
{
	char **names = realloc(s->names, (s->nnames + 1) * sizeof(*names));
	char *name;

	if (!names)
		return NULL;
	s->names = names;
	if (asprintf(&name, "%s@plt", func) < 0)
		return NULL;
	return s->names[s->nnames++] = name;
}

/* @addr in the file's addresses; fills @slot when it lies in a PLT stub. */
static void plt_lookup(struct bts_symbolizer *s, Elf *elf, uint64_t addr,
		       struct sym_slot *slot)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *secname, *func;
		Elf_Data *data;
		uint64_t entsize, entry, got;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		secname = elf_strptr(elf, shstrndx, sh.sh_name);
		data = elf_getdata(scn, NULL);
		if (!secname || strncmp(secname, ".plt", 4) || !data ||
		    data->d_size < sh.sh_size)
			return;
		entsize = sh.sh_entsize ? sh.sh_entsize : 16;
		entry = (addr - sh.sh_addr) / entsize * entsize;
		if (entry + entsize > sh.sh_size)
			return;
		got = stub_got_slot((const uint8_t *)data->d_buf + entry, entsize,
				    sh.sh_addr + entry);
		func = got ? got_slot_name(elf, got) : NULL;
		if (func && (slot->name = keep_name(s, func)))
			slot->offset = addr - (sh.sh_addr + entry);
		return;
	}
}

/* ------------------------------------------------------------ lookups */

static size_t slot_of(const struct bts_symbolizer *s, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (s->cache_cap - 1);

	while (s->cache[i].addr && s->cache[i].addr != addr)
		i = (i + 1) & (s->cache_cap - 1);
	return i;
}

/* Keeps the table at most half full, so that a probe ends quickly. */
static int cache_grow(struct bts_symbolizer *s)
{
	struct sym_slot *old = s->cache;
	size_t old_cap = s->cache_cap;

	if (2 * (s->cache_used + 1) <= s->cache_cap)
		return 0;
	s->cache_cap = old_cap ? 2 * old_cap : 1024;
	s->cache = calloc(s->cache_cap, sizeof(*s->cache));
	if (!s->cache) {
		s->cache = old;
		s->cache_cap = old_cap;
		return -1;
	}
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].addr)
			s->cache[slot_of(s, old[i].addr)] = old[i];
	free(old);
	return 0;
}

static void lookup(struct bts_symbolizer *s, struct sym_slot *slot)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, slot->addr);
	GElf_Off off = 0;
	GElf_Addr bias;
	GElf_Sym sym;
	Elf *elf;

	slot->name = NULL;
	if (!mod)
		return;
	slot->name = dwfl_module_addrinfo(mod, slot->addr, &off, &sym,
					  NULL, NULL, NULL);
	slot->offset = off;
	if (slot->name)
		return;
	elf = dwfl_module_getelf(mod, &bias);
	if (elf)
		plt_lookup(s, elf, slot->addr - bias, slot);
}

int bts_symbolize(struct bts_symbolizer *s, uint64_t addr, const char **name,
		  uint64_t *offset)
{
	struct sym_slot tmp = { .addr = addr }, *slot = &tmp;

	if (!s || !addr)
		return bts_fail(BTS_E_INVAL, "no symbol at 0x%llx",
				(unsigned long long)addr);
	if (!cache_grow(s)) {
		slot = &s->cache[slot_of(s, addr)];
		if (!slot->addr) {
			slot->addr = addr;
			s->cache_used++;
			lookup(s, slot);
		}
	} else {
		lookup(s, slot);	/* out of memory: just do not cache */
	}
	if (!slot->name)
		return -BTS_E_INVAL;
	*name = slot->name;
	*offset = slot->offset;
	return 0;
}
