// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash-exec: forks a child that execs this program again with the
 * argument "abort", which calls abort() from do_abort() (SIGABRT); the
 * parent waits, prints "child signal N" and exits 0.  No core files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void do_abort(void)
{
	abort();
}

int main(int argc, char **argv)
{
	struct rlimit none = { 0, 0 };
	int status = 0;
	pid_t pid;

	setrlimit(RLIMIT_CORE, &none);
	if (argc > 1 && !strcmp(argv[1], "abort")) {
		do_abort();
		return 3;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "abort", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	printf("child signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 0;
}
