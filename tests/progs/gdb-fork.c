// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: children during a gdb session.  main forks a child that calls
 * in_both() and exits with 11, then calls in_both() itself; then it vforks
 * a child that execs PROG (argv[1], when given) or calls in_both() and
 * exits with 12.  gdb, breaking on in_both, stops in main only: the
 * children run free of its breakpoints.  Exit code 6 when both children
 * exited as they should.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void in_both(int v) { sink = v; }

static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	pid_t pid;
	int fork_code, vfork_code;

	pid = fork();
	if (pid == 0) {
		in_both(1);
		_exit(11);
	}
	fork_code = reap(pid);
	in_both(2);
	pid = vfork();
	if (pid == 0) {
		if (argc > 1)
			execv(argv[1], argv + 1);
		in_both(3);
		_exit(12);
	}
	vfork_code = reap(pid);
	in_both(4);
	return fork_code == 11 && vfork_code == (argc > 1 ? 0 : 12) ? 6 : 1;
}
