// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Function names and source lines for the addresses of a traced process,
 * from the files its maps name and the vDSO image the trace carries
 * (elfutils libdwfl, offline: nothing is read from a live process).
 *
 * Each file is reported once, at the load bias its map implies, and only if
 * it is the file that was traced: when the build-id differs, a name from it
 * would be a wrong name, which is worse than none.  Separate debug files
 * are found and checked the same way (symbols_debug.c).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "symbols/symbols.h"

/*
 * Every file is reported with its descriptor: libdwfl never has to look
 * for one (and must not: dwfl_build_id_find_elf would ask debuginfod).
 */
static int no_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base;
	(void)file_name, (void)elfp;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = no_find_elf,
	.find_debuginfo = bts_sym_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &bts_sym_debuginfo_path,
};

void bts_sym_warn(struct bts_symbolizer *s, const char *fmt, ...)
{
	va_list ap;

	/* A file mapped by several images is one warning. */
	va_start(ap, fmt);
	bts_warnings_vadd(&s->warnings, true, fmt, ap);
	va_end(ap);
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
		bts_sym_warn(s, "%s: not an ELF file: no symbols from it", m->path);
	else if (!same_build_id(elf, m))
		bts_sym_warn(s, "%s: not the file that was traced (build-id differs): "
		     "no symbols from it", m->path);
	else if (load_bias(elf, m, bias))
		bts_sym_warn(s, "%s: no segment at file offset 0x%llx: no symbols from it",
		     m->path, (unsigned long long)m->offset);
	else
		ok = true;
	elf_end(elf);
	return ok;
}

/* A copy of .symtab: a stripped file has none, its debug file has it. */
static bool has_all_symbols(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return true;
		/* MiniDebugInfo: a compressed .symtab that libdwfl reads. */
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata"))
			return true;
	}
	return false;
}

/* Names come from .dynsym alone: say so, they miss every local function. */
static void check_stripped(struct bts_symbolizer *s, Dwfl_Module *mod,
			   const char *path)
{
	const char *debugfile = NULL;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	if (!elf || has_all_symbols(elf))
		return;
	dwfl_module_getsymtab(mod);	/* makes libdwfl look for a debug file */
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (!debugfile)
		bts_sym_warn(s, "%s: stripped, and no debug file found: "
			     "names from its dynamic symbols only", path);
}

/* Takes @fd: libdwfl keeps it, or it is closed. */
static Dwfl_Module *report_fd(struct bts_symbolizer *s, int fd,
			      const struct bts_map *m)
{
	Dwfl_Module *mod;
	uint64_t bias;

	if (!check_file(s, fd, m, &bias)) {
		close(fd);
		return NULL;
	}
	/* add_p_vaddr: @bias is added to the file's addresses. */
	mod = dwfl_report_elf(s->dwfl, m->path, m->path, fd, bias, true);
	if (!mod) {
		bts_sym_warn(s, "%s: %s: no symbols from it", m->path,
			     dwfl_errmsg(-1));
		close(fd);
	}
	return mod;
}

#define DELETED " (deleted)"

static bool is_deleted(const char *path)
{
	size_t n = strlen(path), d = strlen(DELETED);

	return n > d && !strcmp(path + n - d, DELETED);
}

/*
 * A file deleted or replaced while it was mapped has a path ending in
 * " (deleted)".  The file now at the path may be the same one again
 * (reinstalled); its build-id tells (check_file()).
 */
static int open_file(struct bts_symbolizer *s, const struct bts_map *m)
{
	const char *path = m->path;

	if (is_deleted(path))
		path = bts_sym_keep(s, path, strlen(path) - strlen(DELETED), NULL);
	return path ? bts_open_regular(path) : -1;
}

static void report_file(struct bts_symbolizer *s, const struct bts_map *m)
{
	Dwfl_Module *mod;
	int fd;

	if (is_deleted(m->path) && !m->build_id_len) {
		bts_sym_warn(s, "%s: no build-id was recorded to know the file by: "
			     "no symbols from it", m->path);
		return;
	}
	fd = open_file(s, m);
	if (fd == BTS_NOT_REGULAR) {
		bts_sym_warn(s, "%s: not a regular file: no symbols from it", m->path);
		return;
	}
	if (fd < 0) {
		bts_sym_warn(s, "%s: cannot open (%m): no symbols from it", m->path);
		return;
	}
	mod = report_fd(s, fd, m);
	if (mod)
		check_stripped(s, mod, m->path);
}

/* The trace's copy of the code at @m, as much of it as there is. */
static const uint8_t *code_copy(const struct bts_trace *t, pid_t pid,
				const struct bts_map *m, size_t *len)
{
	const struct bts_code *code;
	size_t n = bts_trace_code(t, pid, &code);

	for (size_t i = 0; i < n; i++) {
		uint64_t end = code[i].addr + code[i].len;

		if (m->start < code[i].addr || m->start >= end)
			continue;
		*len = (end < m->end ? end : m->end) - m->start;
		return code[i].bytes + (m->start - code[i].addr);
	}
	return NULL;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The vDSO has no file: the trace carries its image, which libdwfl reads
 * through a memory file as it would the file itself (its build-id finds
 * the kernel's vdso*.so.dbg when that is installed).
 */
static void report_vdso(struct bts_symbolizer *s, const struct bts_trace *t,
			pid_t pid, const struct bts_map *m)
{
	size_t len = 0;
	const uint8_t *img = code_copy(t, pid, m, &len);
	int fd;

	if (!img) {
		bts_sym_warn(s, "%s: the trace holds no copy of it: no symbols from it",
			     m->path);
		return;
	}
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0 || write_all(fd, img, len)) {
		bts_sym_warn(s, "%s: cannot make a memory file (%m): no symbols from it",
			     m->path);
		if (fd >= 0)
			close(fd);
		return;
	}
	report_fd(s, fd, m);
}

/*
 * The image (exec) a map of the process belongs to: the last one that
 * mapped this file over these addresses.  A file is reported once per
 * image: a library the process mapped again after an exec is another copy
 * at another address, with its own names.
 */
static size_t image_of(const struct bts_trace *t, pid_t pid,
		       const struct bts_map *m)
{
	size_t n = bts_trace_nimages(t, pid), k = n;

	while (k-- > 0) {
		const struct bts_image_info *im = bts_trace_image(t, pid, k);

		for (size_t j = 0; j < im->nmaps; j++)
			if (im->maps[j].start < m->end && m->start < im->maps[j].end &&
			    !strcmp(im->maps[j].path, m->path))
				return k;
	}
	return 0;
}

/* One report (and one warning) per file and image, however many maps. */
static bool seen_file(const struct bts_trace *t, pid_t pid,
		      const struct bts_map *maps, size_t i)
{
	size_t img = SIZE_MAX;

	for (size_t j = 0; j < i; j++) {
		if (strcmp(maps[j].path, maps[i].path))
			continue;
		if (img == SIZE_MAX)
			img = image_of(t, pid, &maps[i]);
		if (image_of(t, pid, &maps[j]) == img)
			return true;
	}
	return false;
}

/* The files of the maps, named even where no symbol is: "?? from FILE". */
static int keep_objects(struct bts_symbolizer *s, const struct bts_map *maps,
			size_t n)
{
	s->objs = calloc(n ? n : 1, sizeof(*s->objs));
	if (!s->objs)
		return bts_fail(BTS_E_NOMEM, "symbolizer");
	for (size_t i = 0; i < n; i++) {
		const struct bts_map *m = &maps[i];
		const char *path;

		if (m->path[0] != '/' && strcmp(m->path, "[vdso]"))
			continue;
		path = bts_sym_keep(s, m->path, strlen(m->path), NULL);
		if (!path)
			return bts_fail(BTS_E_NOMEM, "symbolizer");
		s->objs[s->nobjs++] = (struct sym_obj){ m->start, m->end, path };
	}
	return 0;
}

static int report_maps(struct bts_symbolizer *s, const struct bts_trace *t,
		       pid_t pid)
{
	const struct bts_map *maps;
	size_t n = bts_trace_maps(t, pid, &maps);

	if (keep_objects(s, maps, n))
		return -BTS_E_NOMEM;
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct bts_map *m = &maps[i];

		if (seen_file(t, pid, maps, i))
			continue;
		if (m->path[0] == '/')
			report_file(s, m);
		else if (!strcmp(m->path, "[vdso]"))
			report_vdso(s, t, pid, m);
		/* Anonymous memory (JIT code) has nothing to name it. */
	}
	if (dwfl_report_end(s->dwfl, NULL, NULL))
		return bts_fail(BTS_E_INTERNAL, "dwfl_report_end: %s",
				dwfl_errmsg(-1));
	return 0;
}

int bts_symbolizer_new(const struct bts_trace *t, pid_t pid,
		       struct bts_symbolizer **out)
{
	struct bts_symbolizer *s;
	int ret;

	if (!t || !out)
		return bts_fail(BTS_E_INVAL, "symbolizer: bad argument");
	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (!s)
		return bts_fail(BTS_E_NOMEM, "symbolizer");
	s->dwfl = dwfl_begin(&offline_callbacks);
	if (!s->dwfl) {
		free(s);
		return bts_fail(BTS_E_NOMEM, "dwfl_begin: %s", dwfl_errmsg(-1));
	}
	ret = report_maps(s, t, pid);
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
	bts_sym_tables_free(s);
	dwfl_end(s->dwfl);
	bts_warnings_free(&s->warnings);
	for (size_t i = 0; i < s->strs_cap; i++)
		free(s->strs[i]);
	free(s->strs);
	free(s->objs);
	free(s->cache);
	free(s);
}

const char *bts_symbolizer_warning(const struct bts_symbolizer *s, size_t i)
{
	return s ? bts_warnings_get(&s->warnings, i) : NULL;
}
