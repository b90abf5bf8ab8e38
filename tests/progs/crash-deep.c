// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Crashes three calls deep after a known path: main -> level1 -> level2
 * -> level3, which stores to address 0x10 (SIGSEGV, SEGV_MAPERR, fault
 * address 0x10).  The empty asm after each call keeps it a call (no tail
 * jump), so that each level has a frame of its own.  No core file.
 */
#include <stdint.h>
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

int main(void)
{
	struct rlimit none = { 0, 0 };

	setrlimit(RLIMIT_CORE, &none);	/* no core file in the test's directory */
	level1((volatile int *)(uintptr_t)0x10);
	return 0;
}
