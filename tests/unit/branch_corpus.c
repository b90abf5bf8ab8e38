// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Instruction streams for the classifier's comparisons (branch_corpus.h).
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "branch_corpus.h"

bool branch_zydis_init(ZydisDecoder *zd, bool m64)
{
	ZyanStatus s;

	if (m64)
		s = ZydisDecoderInit(zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	else
		s = ZydisDecoderInit(zd, ZYDIS_MACHINE_MODE_LONG_COMPAT_32,
				     ZYDIS_STACK_WIDTH_32);
	return ZYAN_SUCCESS(s);
}

bool branch_zydis_knc(const ZydisDecodedInstruction *z)
{
	return !strncmp(ZydisISAExtGetString(z->meta.isa_ext), "KNC", 3);
}

static void sweep(const ZydisDecoder *zd, const unsigned char *p, size_t n,
		  bool m64, branch_insn_fn *fn, void *ctx)
{
	size_t off = 0;

	while (off < n) {
		unsigned int len = fn(zd, p + off, n - off, m64, off, ctx);

		off += len ? len : 1;
	}
}

const char *branch_elf_sweep(const char *path, bool *m64, branch_insn_fn *fn,
			     void *ctx)
{
	static char err[512];
	Elf_Scn *scn = NULL;
	ZydisDecoder zd;
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return "libelf: wrong version";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, sizeof(err), "%s: %m", path);
		return err;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		snprintf(err, sizeof(err), "%s: %s", path, elf_errmsg(-1));
		elf_end(e);
		close(fd);
		return err;
	}
	*m64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	if (eh.e_machine != (*m64 ? EM_X86_64 : EM_386)) {
		snprintf(err, sizeof(err), "%s: not an x86 ELF file", path);
		elf_end(e);
		close(fd);
		return err;
	}
	if (!branch_zydis_init(&zd, *m64)) {
		elf_end(e);
		close(fd);
		return "Zydis: cannot set the decoder up";
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			sweep(&zd, d->d_buf, d->d_size, *m64, fn, ctx);
	}
	elf_end(e);
	close(fd);
	return NULL;
}

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

void branch_random_insn(unsigned char b[16], uint32_t *seed)
{
	static const unsigned char pfx[] = {
		0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x0f, 0x48, 0x41, 0xc4, 0xc5, 0x62, 0x8f,
	};
	unsigned int i, np = xorshift(seed) % 4;

	for (i = 0; i < 16; i++)
		b[i] = xorshift(seed);
	for (i = 0; i < np; i++)
		b[i] = pfx[xorshift(seed) % sizeof(pfx)];
	switch (xorshift(seed) % 8) {
	case 0:
		b[np] = 0x0f, b[np + 1] = 0x38;
		break;
	case 1:
		b[np] = 0x0f, b[np + 1] = 0x3a;
		break;
	case 2:
		b[np] = 0xc4, b[np + 1] = (b[np + 1] & 0xe0) | (1 + xorshift(seed) % 3);
		break;
	case 3:
		b[np] = 0x62, b[np + 1] = (b[np + 1] & 0xf0) | (1 + xorshift(seed) % 6);
		b[np + 2] |= 0x04;
		break;
	case 4:
		b[np] = 0x8f, b[np + 1] = (b[np + 1] & 0xe0) | (8 + xorshift(seed) % 3);
		break;
	case 5:
		for (i = 0; i < 14; i++)
			b[i] = pfx[xorshift(seed) % 6];
		break;
	case 6:
		b[np] = 0x0f;
		break;
	}
}

void branch_hex(char out[3 * 16 + 1], const unsigned char *p, unsigned int n)
{
	unsigned int i;

	out[0] = 0;
	for (i = 0; i < n && i < 16; i++)
		sprintf(out + 3 * i, " %02x", p[i]);
}
