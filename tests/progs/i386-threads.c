// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-threads: three threads of a dynamic i386 program, each
 * running the same loop a different number of times (2000, 2001, 2002),
 * so that each thread's records are known apart by their count and are
 * the same under branch stops and single steps (tests/e2e/test_i386_fast.c).
 * Prints "i386-threads N".
 */
#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
	long n = 2000 + (long)arg, s = 0;

	for (long i = 0; i < n; i++)
		s += i % 7;
	return (void *)s;
}

int main(void)
{
	pthread_t t[3];
	long sum = 0;
	void *r;

	for (long i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i))
			return 1;
	for (int i = 0; i < 3; i++) {
		if (pthread_join(t[i], &r))
			return 1;
		sum += (long)r;
	}
	printf("i386-threads %ld\n", sum);
	return 0;
}
