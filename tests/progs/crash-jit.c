// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-jit: code with no file.  Copies a loop into anonymous executable
 * memory, prints its address ("jit 0x..."), and calls it: the loop's jnz
 * (at +7) is taken four times, then the store at +9 to address 0x50
 * faults (SIGSEGV).  No core file.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static const unsigned char code[] = {
	0xb8, 0x05, 0x00, 0x00, 0x00,			/* mov eax, 5 */
	0xff, 0xc8,					/* 1: dec eax */
	0x75, 0xfc,					/* jnz 1b */
	0xc7, 0x04, 0x25, 0x50, 0x00, 0x00, 0x00,	/* mov dword [0x50], 1 */
	0x01, 0x00, 0x00, 0x00,
	0xc3,						/* ret */
};

int main(void)
{
	struct rlimit none = { 0, 0 };
	void (*fn)(void);
	void *mem;

	setrlimit(RLIMIT_CORE, &none);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	printf("jit %p\n", mem);
	fflush(stdout);
	fn = (void (*)(void))mem;
	fn();
	return 0;
}
