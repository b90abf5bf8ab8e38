// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark workload: recursion, a call and a return every few
 * instructions.  Usage: recurse [SCALE]   (fib(20) the slow way, SCALE times)
 */
#include <stdio.h>
#include <stdlib.h>

/* noipa: the caller cannot inline it or see what it computes. */
static __attribute__((noipa)) unsigned long fib(unsigned long n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	unsigned long sum = 0;

	for (unsigned long i = 0; i < scale; i++)
		sum += fib(20);
	printf("%lu\n", sum);
	return 0;
}
