// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: two threads with histories of their own.  Both are running
 * (barrier @up) before main reaches ready(), so that gdb knows them when
 * it starts recording there; they wait at barrier @go until then.  Then
 * thread A calls leaf_a three times and done_a; thread B waits for that
 * (@a_done: the two breakpoints are hit one after the other) and calls
 * leaf_b five times and done_b.
 */
#include <pthread.h>
#include <semaphore.h>

static pthread_barrier_t up, go;
static sem_t a_done;
static volatile int sink;

__attribute__((noinline)) void leaf_a(int i) { sink = i; }
__attribute__((noinline)) void leaf_b(int i) { sink = -i; }
__attribute__((noinline)) void done_a(void) { sink = 100; }
__attribute__((noinline)) void done_b(void) { sink = 200; }
__attribute__((noinline)) void ready(void) { sink = 0; }

static void *thread_a(void *arg)
{
	pthread_barrier_wait(&up);
	pthread_barrier_wait(&go);
	for (int i = 0; i < 3; i++)
		leaf_a(i);
	done_a();
	sem_post(&a_done);
	return arg;
}

static void *thread_b(void *arg)
{
	pthread_barrier_wait(&up);
	pthread_barrier_wait(&go);
	while (sem_wait(&a_done))
		;
	for (int i = 0; i < 5; i++)
		leaf_b(i);
	done_b();
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_barrier_init(&up, NULL, 3);
	pthread_barrier_init(&go, NULL, 3);
	sem_init(&a_done, 0, 0);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_barrier_wait(&up);
	ready();
	pthread_barrier_wait(&go);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
