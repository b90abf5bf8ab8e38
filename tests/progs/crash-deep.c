// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Crashes three calls deep after a known path: main -> level1 -> level2
 * -> level3, which stores to address 0x10 (SIGSEGV, SEGV_MAPERR, fault
 * address 0x10).  The empty asm after each call keeps it a call (no tail
 * jump), so that each level has a frame of its own.  No core file; with
 * the argument keep-core, RLIMIT_CORE is left as it is (qemu-user's crash
 * traces take the registers from the guest core QEMU writes).
 */
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

__attribute__((noinline)) static void level3(volatile int *p)
{
	*p = 42;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level2(volatile int *p)
{
	level3(p);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level1(volatile int *p)
{
	level2(p);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct rlimit none = { 0, 0 };

	/* no core file in the test's directory */
	if (argc < 2 || strcmp(argv[1], "keep-core"))
		setrlimit(RLIMIT_CORE, &none);
	level1((volatile int *)(uintptr_t)0x10);
	return 0;
}
