// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-fork: forks a child that crashes in child_crash() (SIGSEGV at
 * address 0x20); the parent waits for it, prints "child PID signal N" and
 * exits 7.  No core files.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void child_crash(volatile int *p)
{
	*p = 1;
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	struct rlimit none = { 0, 0 };
	int status = 0;
	pid_t pid;

	setrlimit(RLIMIT_CORE, &none);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_crash((volatile int *)(uintptr_t)0x20);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	printf("child %d signal %d\n", (int)pid,
	       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 7;
}
