// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speed-core: runs speed_core_spin (under btrace the tracer plants its
 * int3s in that code), counts the bytes of its code page that differ from
 * the same bytes of its file (a program sees the int3s when it reads its
 * own code: ptrace cannot hide them from it), prints "label page 0xADDR",
 * "label base 0xADDR" (where the file starts in memory: the page's file
 * offset is page - base) and "changed N", and dies of SIGABRT (a core).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PAGE 4096

extern char __executable_start[];

__attribute__((noinline)) int speed_core_spin(int n)
{
	volatile int s = 0;
	int i;

	for (i = 0; i < n; i++)
		if (i & 1)
			s += i;
		else
			s -= 1;
	return s;
}

int main(void)
{
	static unsigned char orig[PAGE];
	const unsigned char *page = (const unsigned char *)
		((uintptr_t)speed_core_spin & ~(uintptr_t)(PAGE - 1));
	size_t i, changed = 0;
	int fd;

	speed_core_spin(1000);
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || pread(fd, orig, PAGE, page - (unsigned char *)__executable_start) != PAGE)
		return 1;
	close(fd);
	for (i = 0; i < PAGE; i++)
		changed += page[i] != orig[i];
	printf("label page %p\nlabel base %p\nchanged %zu\n", (const void *)page,
	       (void *)__executable_start, changed);
	fflush(stdout);
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
	return 2;
}
