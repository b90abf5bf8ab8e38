// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * PLT stubs have no symbols, yet every library call starts in one: name
 * them "FUNC@plt" as objdump and gdb do.  Each stub (in .plt, .plt.sec or
 * .plt.got, with or without endbr64 and bnd) jumps through a GOT slot with
 * `jmp *disp32(%rip)`; the dynamic relocation of that slot names FUNC.
 * Relocations and dynamic symbols survive strip, so stripped files get
 * these names too.  A slot filled by an IFUNC resolver (R_X86_64_IRELATIVE,
 * libc's own calls to its string functions) has no symbol, only the
 * resolver's address: "*ABS*+0xADDR@plt", as objdump and gdb say.
 */
#include <stdio.h>
#include <string.h>

#include <gelf.h>

#include "symbols/symbols.h"

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

/* "FUNC@plt" for the relocation of @slot in @scn, or NULL. */
static const char *reloc_name(struct bts_symbolizer *s, Elf *elf, Elf_Scn *scn,
			      const GElf_Shdr *sh, uint64_t slot)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	GElf_Shdr symsh;

	if (!data || !sh->sh_entsize)
		return NULL;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		const char *func;
		char abs[32];
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(data, i, &r) || r.r_offset != slot)
			continue;
		if (!GELF_R_SYM(r.r_info)) {
			if (GELF_R_TYPE(r.r_info) != R_X86_64_IRELATIVE)
				return NULL;
			snprintf(abs, sizeof(abs), "*ABS*+0x%llx",
				 (unsigned long long)r.r_addend);
			return bts_sym_keep(s, abs, strlen(abs), "@plt");
		}
		if (!syms || !gelf_getshdr(symscn, &symsh) ||
		    !gelf_getsym(syms, GELF_R_SYM(r.r_info), &sym))
			return NULL;
		func = elf_strptr(elf, symsh.sh_link, sym.st_name);
		return func ? bts_sym_keep(s, func, strlen(func), "@plt") : NULL;
	}
	return NULL;
}

static const char *got_slot_name(struct bts_symbolizer *s, Elf *elf,
				 uint64_t slot)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		name = reloc_name(s, elf, scn, &sh, slot);
		if (name)
			return name;
	}
	return NULL;
}

const char *bts_plt_name(struct bts_symbolizer *s, Elf *elf, uint64_t addr,
			 uint64_t *offset)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *secname, *name;
		Elf_Data *data;
		uint64_t entsize, entry, got;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		secname = elf_strptr(elf, shstrndx, sh.sh_name);
		data = elf_getdata(scn, NULL);
		if (!secname || strncmp(secname, ".plt", 4) || !data ||
		    data->d_size < sh.sh_size)
			return NULL;
		entsize = sh.sh_entsize ? sh.sh_entsize : 16;
		entry = (addr - sh.sh_addr) / entsize * entsize;
		if (entry + entsize > sh.sh_size)
			return NULL;
		got = stub_got_slot((const uint8_t *)data->d_buf + entry, entsize,
				    sh.sh_addr + entry);
		name = got ? got_slot_name(s, elf, got) : NULL;
		if (name)
			*offset = addr - (sh.sh_addr + entry);
		return name;
	}
	return NULL;
}
