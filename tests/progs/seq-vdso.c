// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seq-vdso: finds __vdso_clock_gettime in the vDSO image the kernel mapped
 * (its ELF section headers are part of the mapping), prints it and the
 * labels of seq-vdso-asm.S ("label NAME 0xADDR"), then reads the clock
 * twice: once through libc, once by calling the vDSO directly from asm.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

int seq_vdso_run(void *fn, struct timespec *ts);
extern char seq_vdso_call[], seq_vdso_back[], seq_vdso_ret[];

/* Load bias of the vDSO: where it is minus where it was linked. */
static unsigned long vdso_bias(const Elf64_Ehdr *eh)
{
	const Elf64_Phdr *ph = (const void *)((const char *)eh + eh->e_phoff);

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			return (unsigned long)eh - ph[i].p_vaddr + ph[i].p_offset;
	return 0;
}

static void *vdso_sym(const char *name)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const char *base = (const char *)eh;
	const Elf64_Shdr *sh;

	if (!eh)
		return NULL;
	sh = (const void *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym = (const void *)(base + sh[i].sh_offset);
		const char *str = base + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (sym[j].st_shndx != SHN_UNDEF &&
			    !strcmp(str + sym[j].st_name, name))
				return (void *)(vdso_bias(eh) + sym[j].st_value);
	}
	return NULL;
}

int main(void)
{
	void *fn = vdso_sym("__vdso_clock_gettime");
	struct timespec a, b;

	if (!fn)
		return 2;
	printf("label vdso_base %p\n", (void *)getauxval(AT_SYSINFO_EHDR));
	printf("label vdso_clock_gettime %p\n", fn);
	printf("label seq_vdso_run %p\n", (void *)seq_vdso_run);
	printf("label seq_vdso_call %p\n", (void *)seq_vdso_call);
	printf("label seq_vdso_back %p\n", (void *)seq_vdso_back);
	printf("label seq_vdso_ret %p\n", (void *)seq_vdso_ret);
	if (clock_gettime(CLOCK_MONOTONIC, &a) || seq_vdso_run(fn, &b))
		return 3;
	return b.tv_sec > a.tv_sec ||
	       (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec) ? 0 : 4;
}
