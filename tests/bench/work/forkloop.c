// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark workload: loop.c's tight loop run either by the process
 * itself or by a fork child it waits for, so that a tracer following
 * children can be timed on both (scripts/bench, section 8).  Both forms
 * fork once: "main" forks a child that exits at once, after the loop.
 * Usage: forkloop main|child [SCALE]   (30,000 iterations per unit)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long spin(unsigned long n)
{
	unsigned long acc = 1;

	for (unsigned long i = 0; i < n; i++) {
		acc = acc * 31 + i;
		/* Keeps the compiler from vectorising or folding the loop. */
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	int in_child = argc > 1 && !strcmp(argv[1], "child"), status;
	unsigned long n = 30000 * scale;
	pid_t pid;

	if (argc < 2 || (!in_child && strcmp(argv[1], "main"))) {
		fprintf(stderr, "usage: forkloop main|child [SCALE]\n");
		return 2;
	}
	if (!in_child)
		printf("%lu\n", spin(n));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (in_child)
			printf("%lu\n", spin(n));
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
