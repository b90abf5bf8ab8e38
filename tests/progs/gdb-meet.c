// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: simultaneous breakpoint hits.  Two threads meet ROUNDS times:
 * each says it is ready and spins until main lets the round go; right then
 * thread A calls hit_a and thread B hit_b, and both call hit_both.  Spinning
 * (not a futex) lets both leave at once, so that with breakpoints on the
 * three functions the two threads often trap together: gdb must hear of
 * 4 * ROUNDS hits however they overlap (a hit that comes while the stub
 * stops everything for another is kept for a later resume).  Then each
 * sends itself SIGUSR1, again at about the same time: gdb must see every
 * one, and pass it on.  Exit code 7 when the handler ran 2 * ROUNDS times.
 */
#include <pthread.h>
#include <signal.h>

#define ROUNDS 16

static volatile int go, ready, sink, handled;

__attribute__((noinline)) void hit_a(int i) { sink = i; }
__attribute__((noinline)) void hit_b(int i) { sink = -i; }
__attribute__((noinline)) void hit_both(int i) { sink = 2 * i; }

static void on_usr1(int sig)
{
	__atomic_add_fetch(&handled, sig == SIGUSR1, __ATOMIC_SEQ_CST);
}

static void meet(int round)
{
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	while (go != round)
		;
}

static void *thread_a(void *arg)
{
	for (int i = 1; i <= ROUNDS; i++) {
		meet(i);
		hit_a(i);
		hit_both(i);
		pthread_kill(pthread_self(), SIGUSR1);
	}
	return arg;
}

static void *thread_b(void *arg)
{
	for (int i = 1; i <= ROUNDS; i++) {
		meet(i);
		hit_b(i);
		hit_both(i);
		pthread_kill(pthread_self(), SIGUSR1);
	}
	return arg;
}

int main(void)
{
	pthread_t a, b;

	signal(SIGUSR1, on_usr1);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	for (int i = 1; i <= ROUNDS; i++) {
		while (ready != 2 * i)
			;
		go = i;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return handled == 2 * ROUNDS ? 7 : 3;
}
