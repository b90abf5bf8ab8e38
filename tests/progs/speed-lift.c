// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speed-lift: one thread passes the jmp at speed_hop_jmp 5000 times, while
 * another makes that very jmp fault again and again (its pointer is on a
 * PROT_NONE page; a SIGSEGV handler jumps back out), until the first is
 * done.  Prints the labels, "passes N" and "faults M"; exits 0.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

#define PASSES 5000

void speed_hop(const void *p);
void speed_lift_handler(int sig);
extern char speed_hop_jmp[], speed_hop_back[];

static sigjmp_buf env;
static volatile int done;

void speed_lift_handler(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

static void *passer(void *arg)
{
	void *table[1] = { speed_hop_back };
	int i;

	(void)arg;
	for (i = 0; i < PASSES; i++)
		speed_hop(table);
	done = 1;
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = speed_lift_handler };
	pthread_t th;
	void *bad;
	volatile int faults = 0;

	printf("label speed_hop_jmp %p\nlabel speed_hop_back %p\n"
	       "label speed_lift_handler %p\n", (void *)speed_hop_jmp,
	       (void *)speed_hop_back, (void *)speed_lift_handler);
	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad == MAP_FAILED)
		return 1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	if (sigaction(SIGSEGV, &sa, NULL) ||
	    pthread_create(&th, NULL, passer, NULL))
		return 1;
	while (!done || !faults) {
		if (!sigsetjmp(env, 1))
			speed_hop(bad);
		faults++;
	}
	pthread_join(th, NULL);
	printf("passes %d\nfaults %d\n", PASSES, faults);
	return 0;
}
