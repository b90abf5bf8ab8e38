// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: an exec during a gdb session.  Run without arguments, main
 * calls before_exec() and execs itself with the argument "again"; the new
 * image calls after_exec(N) with N = 3 and exits with N + 1.
 */
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void before_exec(void) { sink = 1; }
__attribute__((noinline)) int after_exec(int n) { sink = n; return n + 1; }

int main(int argc, char **argv)
{
	char *again[] = { argv[0], "again", NULL };

	if (argc > 1 && !strcmp(argv[1], "again"))
		return after_exec(3);
	before_exec();
	execv("/proc/self/exe", again);
	return 1;
}
