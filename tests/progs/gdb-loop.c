// SPDX-License-Identifier: GPL-2.0-or-later
/* gdb tests: a process to attach to, calling tick() until it is killed. */
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void tick(int i)
{
	sink = i;
}

int main(void)
{
	for (int i = 0;; i++) {
		tick(i);
		usleep(1000);
	}
}
