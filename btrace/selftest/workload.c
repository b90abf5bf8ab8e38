// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workloads of btrace selftest: calls, returns, loops, a switch,
 * recursion and a signal handler, in btrace's own code, so that the same
 * addresses run under every source (each run is a fork of the same
 * process).  Nothing in them depends on timing, addresses or input.
 */
#include <signal.h>
#include <string.h>

#include "selftest.h"

#define OWN __attribute__((noinline))

static volatile unsigned int sink;

static OWN unsigned int pick(unsigned int i)
{
	switch (i % 5) {
	case 0:
		return i * 3;
	case 1:
		return i ^ 0x55;
	case 2:
		return i + 7;
	case 3:
		return i >> 1;
	default:
		return ~i;
	}
}

static OWN unsigned int fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static OWN void branches(void)
{
	unsigned int i;

	for (i = 0; i < 200; i++)
		sink += pick(i);
	sink += fib(12);
}

static void on_signal(int sig)
{
	(void)sig;
	sink += fib(6);
}

static OWN void signal_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (sigaction(SIGUSR2, &sa, NULL) == 0)
		raise(SIGUSR2);
	sink += pick(3);
}

const struct selftest_workload selftest_workloads[] = {
	{ "branches", branches },
	{ "signal", signal_handler },
};
const size_t selftest_nworkloads =
	sizeof(selftest_workloads) / sizeof(selftest_workloads[0]);
