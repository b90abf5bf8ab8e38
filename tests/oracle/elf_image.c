// SPDX-License-Identifier: GPL-2.0-or-later
/* An executable's code bytes and symbols, read with libelf for the oracle. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle.h"

static int slurp(const char *path, struct oracle_image *img,
		 char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	img->file_size = st.st_size;
	img->file = malloc(img->file_size);
	for (size_t got = 0; img->file && got < img->file_size; ) {
		ssize_t n = read(fd, img->file + got, img->file_size - got);

		if (n <= 0) {
			snprintf(err, errlen, "%s: short read", path);
			close(fd);
			return -1;
		}
		got += n;
	}
	close(fd);
	return img->file ? 0 : -1;
}

static int read_segments(Elf *elf, struct oracle_image *img,
			 char *err, size_t errlen)
{
	size_t n;

	if (elf_getphdrnum(elf, &n)) {
		snprintf(err, errlen, "no program headers: %s", elf_errmsg(-1));
		return -1;
	}
	img->segs = calloc(n ? n : 1, sizeof(*img->segs));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (ph.p_offset > img->file_size ||
		    ph.p_filesz > img->file_size - ph.p_offset) {
			snprintf(err, errlen, "segment %zu past the file", i);
			return -1;
		}
		img->segs[img->nsegs++] = (struct oracle_seg){
			ph.p_vaddr, ph.p_offset, ph.p_filesz,
			img->file + ph.p_offset
		};
	}
	return 0;
}

static void add_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			struct oracle_image *img)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	img->syms = realloc(img->syms, (img->nsyms + n) * sizeof(*img->syms));
	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if ((type != STT_FUNC && type != STT_NOTYPE) || !name || !*name)
			continue;
		img->syms[img->nsyms++] = (struct oracle_sym){
			strdup(name), sym.st_value, sym.st_size,
			type == STT_FUNC
		};
	}
}

static int by_value(const void *a, const void *b)
{
	const struct oracle_sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Functions before labels at the same address: better names. */
	return (int)y->func - (int)x->func;
}

static void read_symbols(Elf *elf, struct oracle_image *img)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			add_symbols(elf, scn, &sh, img);
	}
	if (img->nsyms)
		qsort(img->syms, img->nsyms, sizeof(*img->syms), by_value);
}

int oracle_image_open(const char *path, struct oracle_image *img,
		      char *err, size_t errlen)
{
	Elf *elf;
	int ret;

	memset(img, 0, sizeof(*img));
	elf_version(EV_CURRENT);
	if (slurp(path, img, err, errlen))
		return -1;
	elf = elf_memory((char *)img->file, img->file_size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		if (elf)
			elf_end(elf);
		return -1;
	}
	img->is32 = gelf_getclass(elf) == ELFCLASS32;
	ret = read_segments(elf, img, err, errlen);
	if (!ret)
		read_symbols(elf, img);
	elf_end(elf);
	if (!ret && !img->nsegs) {
		snprintf(err, errlen, "%s: no executable segment", path);
		ret = -1;
	}
	return ret;
}

void oracle_image_close(struct oracle_image *img)
{
	for (size_t i = 0; i < img->nsyms; i++)
		free(img->syms[i].name);
	free(img->syms);
	free(img->segs);
	free(img->file);
	memset(img, 0, sizeof(*img));
}

size_t oracle_image_read(const struct oracle_image *img, uint64_t vaddr,
			 void *buf, size_t len)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct oracle_seg *s = &img->segs[i];
		uint64_t off = vaddr - s->vaddr;

		if (vaddr < s->vaddr || off >= s->size)
			continue;
		if (len > s->size - off)
			len = s->size - off;
		memcpy(buf, s->bytes + off, len);
		return len;
	}
	return 0;
}

uint64_t oracle_image_symbol(const struct oracle_image *img, const char *name)
{
	for (size_t i = 0; i < img->nsyms; i++)
		if (!strcmp(img->syms[i].name, name))
			return img->syms[i].value;
	return 0;
}

bool oracle_image_in_func(const struct oracle_image *img, uint64_t vaddr)
{
	for (size_t i = 0; i < img->nsyms; i++) {
		const struct oracle_sym *s = &img->syms[i];

		if (s->func && vaddr >= s->value && vaddr - s->value < s->size)
			return true;
	}
	return false;
}

const char *oracle_image_name(const struct oracle_image *img, uint64_t vaddr,
			      char *buf, size_t len)
{
	const struct oracle_sym *best = NULL;

	for (size_t i = 0; i < img->nsyms && img->syms[i].value <= vaddr; i++)
		if (!best || img->syms[i].value > best->value)
			best = &img->syms[i];
	if (best)
		snprintf(buf, len, "%s+0x%" PRIx64, best->name,
			 vaddr - best->value);
	else
		snprintf(buf, len, "?");
	return buf;
}

int oracle_libc_bias(const char *out, const struct oracle_image *img,
		     uint64_t *bias)
{
	const char *p = strstr(out, "oracle-libc main 0x");
	uint64_t main_at, main_sym = oracle_image_symbol(img, "main");

	if (!p || sscanf(p, "oracle-libc main 0x%" SCNx64, &main_at) != 1 ||
	    !main_sym || main_at < main_sym)
		return -1;
	*bias = main_at - main_sym;
	return 0;
}
