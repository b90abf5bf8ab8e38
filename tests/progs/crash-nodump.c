// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-nodump 0|1: as root, becomes nobody first (a /proc that shows
 * whether it is dumpable); then sets PR_SET_DUMPABLE to its argument and
 * stores to address 0x10 (SIGSEGV).  No core file.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rlimit none = { 0, 0 };

	if (argc != 2)
		return 2;
	setrlimit(RLIMIT_CORE, &none);
	if (geteuid() == 0 && setresuid(65534, 65534, 65534))
		return 3;
	if (prctl(PR_SET_DUMPABLE, atoi(argv[1]), 0, 0, 0))
		return 4;
	*(volatile int *)0x10 = 1;
	return 0;
}
