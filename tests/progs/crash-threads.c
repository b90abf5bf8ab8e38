// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-threads: two threads wait in sleeper() while a third, in
 * crasher(), stores to address 0x30 (SIGSEGV) once all three have
 * started.  No core files.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

static pthread_barrier_t ready;

__attribute__((noinline)) static void *sleeper(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) static void *crasher(void *arg)
{
	pthread_barrier_wait(&ready);
	*(volatile int *)arg = 1;
	__asm__ volatile("" ::: "memory");
	return NULL;
}

int main(void)
{
	struct rlimit none = { 0, 0 };
	pthread_t t[3];

	setrlimit(RLIMIT_CORE, &none);
	pthread_barrier_init(&ready, NULL, 3);
	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, sleeper, NULL);
	pthread_create(&t[2], NULL, crasher, (void *)(uintptr_t)0x30);
	pthread_join(t[2], NULL);
	return 0;
}
