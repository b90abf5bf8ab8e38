// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-calls OUT N [EXIT]: writes the addresses of session_target and
 * session_handler to OUT, calls session_target N times, raises SIGUSR1
 * once (caught by session_handler), then exits with EXIT (default 0).
 * EXIT "kill" dies of SIGTERM instead.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int session_sink;

__attribute__((noinline)) void session_target(int i)
{
	session_sink += i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void session_handler(int sig)
{
	session_sink += sig;
}

int main(int argc, char **argv)
{
	FILE *f;
	int i, n;

	if (argc < 3)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%p %p\n", (void *)session_target, (void *)session_handler);
	fclose(f);
	signal(SIGUSR1, session_handler);
	n = atoi(argv[2]);
	for (i = 0; i < n; i++)
		session_target(i);
	raise(SIGUSR1);
	if (argc > 3 && !strcmp(argv[3], "kill")) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
	}
	return argc > 3 ? atoi(argv[3]) : 0;
}
