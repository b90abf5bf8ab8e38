// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speed-jit: code that changes under the tracer.  One page of generated
 * code is called three times: first "mov $1,%eax; ret"; then, rewritten
 * whole, "xor %eax,%eax; jz +1; nop; mov $2,%eax; ret" (the first ret's
 * place now inside another instruction); then with only the immediate of
 * that mov patched to 3.  Prints "label NAME 0xADDR" for the page, the
 * call site and the return address; exits 0 when the results are 1, 2, 3.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int speed_jit_call(void *fn);
extern char speed_jit_site[], speed_jit_back[];

static const unsigned char code_a[] = { 0xb8, 1, 0, 0, 0, 0xc3 };
static const unsigned char code_b[] = {
	0x31, 0xc0, 0x74, 0x01, 0x90, 0xb8, 2, 0, 0, 0, 0xc3
};

int main(void)
{
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int a, b, c;

	if (page == MAP_FAILED)
		return 2;
	printf("label jit %p\n", (void *)page);
	printf("label jit_site %p\n", (void *)speed_jit_site);
	printf("label jit_back %p\n", (void *)speed_jit_back);
	fflush(stdout);
	memcpy(page, code_a, sizeof(code_a));
	a = speed_jit_call(page);
	memcpy(page, code_b, sizeof(code_b));
	b = speed_jit_call(page);
	page[6] = 3;
	c = speed_jit_call(page);
	return a == 1 && b == 2 && c == 3 ? 0 : 1;
}
