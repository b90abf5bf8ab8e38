// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * threads-count: four worker threads; worker k runs thr_loop(ITERS(k)), a
 * loop of ITERS(k) calls to thr_leaf.  Prints the labels of
 * threads-count-asm.S ("label NAME 0xADDR"), then one line per worker
 * "worker K tid TID iters N" and "main tid PID", for tests/e2e/test_threads.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NWORKERS 4
#define ITERS(k) (300 * ((k) + 1))

void thr_loop(int n);
void thr_leaf(void);
extern char thr_top[], thr_call[], thr_after[], thr_jnz[], thr_loop_ret[],
	thr_leaf_ret[];

static pid_t tids[NWORKERS];

static void *worker(void *arg)
{
	int k = (int)(long)arg;

	tids[k] = gettid();
	thr_loop(ITERS(k));
	return NULL;
}

#define PRINT(n) printf("label %s %p\n", #n, (void *)n)

int main(void)
{
	pthread_t th[NWORKERS];

	PRINT(thr_loop); PRINT(thr_leaf); PRINT(thr_top); PRINT(thr_call);
	PRINT(thr_after); PRINT(thr_jnz); PRINT(thr_loop_ret);
	PRINT(thr_leaf_ret);
	for (long k = 0; k < NWORKERS; k++)
		if (pthread_create(&th[k], NULL, worker, (void *)k))
			return 2;
	for (int k = 0; k < NWORKERS; k++)
		if (pthread_join(th[k], NULL))
			return 3;
	for (int k = 0; k < NWORKERS; k++)
		printf("worker %d tid %d iters %d\n", k, (int)tids[k], ITERS(k));
	printf("main tid %d\n", (int)getpid());
	return 0;
}
