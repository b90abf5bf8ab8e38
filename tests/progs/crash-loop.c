// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-loop N: runs a loop of N iterations (a branch each), then prints
 * the VmHWM line of its parent (btrace, when it runs under it): the peak
 * resident memory of the tracer, for the flight recorder's bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}

int main(int argc, char **argv)
{
	char path[64], line[256];
	unsigned long x;
	FILE *f;

	x = spin(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)getppid());
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			fputs(line, stdout);
	fclose(f);
	return x == 1;	/* uses x: the loop must run */
}
