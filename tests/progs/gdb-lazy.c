// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb-lazy: runs a loop of 100000 iterations, counting the context
 * switches it cost (from /proc/self/status: a ptrace stop is one), into
 * lazy_switches, then calls lazy_done() and a short recorded part,
 * lazy_after().  Under a stub that steps it, the loop costs at least one
 * stop per iteration; at full speed, a handful of switches.
 */
#include <stdio.h>
#include <string.h>

volatile long lazy_switches;
volatile int lazy_sink;

static long switches(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long n = 0, v;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

__attribute__((noinline)) void lazy_done(void)
{
	asm volatile("");
}

__attribute__((noinline)) int lazy_after(int x)
{
	return x * 3 + lazy_sink;
}

int main(void)
{
	long before = switches();

	for (int i = 0; i < 100000; i++)
		lazy_sink += i;
	lazy_switches = switches() - before;
	lazy_done();
	return lazy_after(1) == 3 + lazy_sink ? 0 : 1;
}
