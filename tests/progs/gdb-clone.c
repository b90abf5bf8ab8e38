// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: a thread just created.  main creates a thread and calls
 * created() at once, before the thread can have done anything of note;
 * the thread waits for main's word (a pipe) and returns 4, which main
 * returns as its exit code.
 */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

static int word[2];
static volatile int sink;

__attribute__((noinline)) void created(void) { sink = 1; }

static void *worker(void *arg)
{
	char c = 0;

	(void)arg;
	while (read(word[0], &c, 1) < 0)
		;
	return (void *)(intptr_t)(c + 4);
}

int main(void)
{
	pthread_t t;
	void *ret;

	if (pipe(word) || pthread_create(&t, NULL, worker, NULL))
		return 1;
	created();
	if (write(word[1], "", 1) != 1)
		return 2;
	pthread_join(t, &ret);
	return (int)(intptr_t)ret;
}
