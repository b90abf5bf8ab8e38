// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark workload: a tight loop, one taken branch (the back edge) every
 * few instructions.  Usage: loop [SCALE]   (30,000 iterations per unit)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	unsigned long n = 30000 * scale, acc = 1;

	for (unsigned long i = 0; i < n; i++) {
		acc = acc * 31 + i;
		/* Keeps the compiler from vectorising or folding the loop. */
		__asm__ volatile("" : "+r"(acc));
	}
	printf("%lu\n", acc);
	return 0;
}
