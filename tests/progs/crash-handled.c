// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-handled: signals that kill no one.  SIGUSR1 is ignored, SIGTERM is
 * caught, and a SIGSEGV (a store to address 0x40) is caught by a handler
 * that leaves with _exit(3).  Prints "usr1 ignored", "term caught".
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static void on_segv(int sig)
{
	(void)sig;
	_exit(3);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_term };

	signal(SIGUSR1, SIG_IGN);
	raise(SIGUSR1);
	printf("usr1 ignored\n");
	sigaction(SIGTERM, &sa, NULL);
	raise(SIGTERM);
	if (got_term)
		printf("term caught\n");
	fflush(stdout);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	*(volatile int *)(uintptr_t)0x40 = 1;
	return 0;
}
