// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: signal handlers in the branch trace.  main stops at spot(),
 * where gdb gives it SIGUSR1 (`signal SIGUSR1`); then it raises SIGUSR2
 * itself, which gdb passes on; done() is the last stop.  Exit code 5 when
 * both handlers ran once.
 */
#include <signal.h>

static volatile int got, sink;

__attribute__((noinline)) void on_usr1(int sig) { got += sig == SIGUSR1; }
__attribute__((noinline)) void on_usr2(int sig) { got += 2 * (sig == SIGUSR2); }
__attribute__((noinline)) void spot(void) { sink = 1; }
__attribute__((noinline)) void done(void) { sink = 2; }

int main(void)
{
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	spot();
	raise(SIGUSR2);
	done();
	return got == 3 ? 5 : 9;
}
