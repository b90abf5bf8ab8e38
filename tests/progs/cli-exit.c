// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-exit CODE: exits with CODE.
 * cli-exit segv: dies of SIGSEGV (without a core file).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "segv")) {
		struct rlimit none = { 0, 0 };

		setrlimit(RLIMIT_CORE, &none);
		*(volatile int *)0 = 1;
	}
	return argc > 1 ? atoi(argv[1]) : 0;
}
