// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-threads OUT N: writes the address of session_target to OUT, then
 * four threads each call it N times.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile int session_sink;

__attribute__((noinline)) void session_target(int i)
{
	__atomic_add_fetch(&session_sink, i, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	int i, n = *(int *)arg;

	for (i = 0; i < n; i++)
		session_target(i);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	FILE *f;
	int i, n;

	if (argc < 3)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%p\n", (void *)session_target);
	fclose(f);
	n = atoi(argv[2]);
	for (i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, worker, &n))
			return 3;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return 0;
}
