// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-rejit: code rewritten in place, as a JIT does.  A function in
 * anonymous executable memory is rewritten 50 times, "mov $i, %eax; ret"
 * for i = 0..49, and called after each rewrite; then rewritten as "xor
 * %rax, %rax; mov (%rax), %eax; ret" (its ret where the others' is), whose
 * load faults (SIGSEGV).  Prints "jit 0x..." and "sum N" before the last
 * call.  No core file.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#define RUNS 50

int main(void)
{
	static const unsigned char faulting[] = {
		0x48, 0x31, 0xc0,	/* xor %rax, %rax */
		0x8b, 0x00,		/* mov (%rax), %eax */
		0xc3,			/* ret */
	};
	struct rlimit none = { 0, 0 };
	int (*volatile fn)(void);
	unsigned char *mem;
	int sum = 0;

	setrlimit(RLIMIT_CORE, &none);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	fn = (int (*)(void))mem;
	printf("jit %p\n", (void *)mem);
	for (int i = 0; i < RUNS; i++) {
		unsigned char v[] = { 0xb8, (unsigned char)i, 0, 0, 0, 0xc3 };

		memcpy(mem, v, sizeof(v));	/* mov $i, %eax; ret */
		sum += fn();
	}
	printf("sum %d\n", sum);
	fflush(stdout);
	memcpy(mem, faulting, sizeof(faulting));
	return fn();
}
