// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speed-spin: what SPEED_SPIN says (environment, as the test harness
 * passes no arguments):
 *   spin   (default) a loop of 10 million taken branches, then exit 0;
 *   sleep  sleeps 30 seconds without a branch to record, then exit 0;
 *   cpus   prints "cpus N" (how many CPUs its affinity mask holds), exit 0.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *mode = getenv("SPEED_SPIN");
	volatile unsigned long n = 0;
	cpu_set_t set;

	if (mode && !strcmp(mode, "sleep")) {
		sleep(30);
		return 0;
	}
	if (mode && !strcmp(mode, "cpus")) {
		if (sched_getaffinity(0, sizeof(set), &set))
			return 1;
		printf("cpus %d\n", CPU_COUNT(&set));
		return 0;
	}
	while (n < 10000000)
		n++;
	return 0;
}
