// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-spin: four threads turn in spin_loop (crash-spin-asm.S) while the
 * main thread, once each has turned a thousand times, prints the run-time
 * address of every label of the loop ("label NAME 0xADDR") and stores to
 * address 0x40 (SIGSEGV).  At the crash a spinner has usually just
 * stopped at a branch that its recorder has not yet seen.  No core files.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#define SPINNERS 4

#define SPIN_LABELS(X) \
	X(spin_loop) X(spin_inc) X(spin_test) X(spin_jz) X(spin_nop) X(spin_jmp)

#define DECL_LABEL(n) extern char n[];
SPIN_LABELS(DECL_LABEL)
void spin_loop_run(unsigned long *turns) __asm__("spin_loop");

static unsigned long turns[SPINNERS];

static void *spinner(void *arg)
{
	spin_loop_run(arg);
	return NULL;
}

__attribute__((noinline)) static void crasher(uintptr_t addr)
{
	*(volatile int *)addr = 1;
}

int main(void)
{
	struct rlimit none = { 0, 0 };
	pthread_t t;
	int i;

	setrlimit(RLIMIT_CORE, &none);
	for (i = 0; i < SPINNERS; i++)
		pthread_create(&t, NULL, spinner, &turns[i]);
	for (i = 0; i < SPINNERS; i++)
		while (__atomic_load_n(&turns[i], __ATOMIC_RELAXED) < 1000)
			;
#define PRINT_LABEL(n) printf("label %s %p\n", #n, (void *)n);
	SPIN_LABELS(PRINT_LABEL)
	fflush(stdout);
	crasher(0x40);
	return 0;
}
