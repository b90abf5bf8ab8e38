// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark workload: libc's qsort with a comparison function, so that most
 * branches are indirect calls, returns and libc's own jumps.
 * Usage: qsort [SCALE]   (sorts 700 pseudo-random ints, SCALE times)
 */
#include <stdio.h>
#include <stdlib.h>

#define COUNT 700

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The same numbers every run: a fixed linear congruential generator. */
static void fill(int *v, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (int)(seed >> 8);
	}
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	static int v[COUNT];
	long sum = 0;

	for (unsigned long r = 0; r < scale; r++) {
		fill(v, COUNT, 12345 + r);
		qsort(v, COUNT, sizeof(*v), cmp);
		for (size_t i = 0; i < COUNT; i++)
			sum += v[i] * (long)(i + 1);
	}
	printf("%ld\n", sum);
	return 0;
}
