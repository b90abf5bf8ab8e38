// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * follow-kids MODE: a child runs child_work() and exits 5; the parent runs
 * parent_work(), waits for it, prints "child 5" and exits 0.  MODE says
 * how the child comes to be:
 *   fork    fork()
 *   vfork   vfork(), then the child execs this program with "child"
 *   clone   clone() of a process with no exit signal (PTRACE_EVENT_CLONE)
 *   exec    no child: the program execs itself with "child" (exits 5)
 *   child   run child_work() and exit 5
 * child_work() calls leaf() twice and parent_work() once: straight-line
 * code, so their records are the same in every run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int x)
{
	sink = x;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int child_work(void)
{
	leaf(1);
	leaf(2);
	__asm__ volatile("" ::: "memory");
	return 5;
}

__attribute__((noinline)) static void parent_work(void)
{
	leaf(3);
	__asm__ volatile("" ::: "memory");
}

static int clone_fn(void *arg)
{
	(void)arg;
	return child_work();
}

static pid_t start_child(const char *mode, const char *self)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	pid_t pid = -1;

	if (!strcmp(mode, "fork")) {
		pid = fork();
		if (pid == 0)
			_exit(child_work());
	} else if (!strcmp(mode, "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execl(self, self, "child", (char *)NULL);
			_exit(127);
		}
	} else if (!strcmp(mode, "clone")) {
		pid = clone(clone_fn, stack + sizeof(stack), 0, NULL);
	}
	return pid;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fork";
	int status = 0;
	pid_t pid;

	if (!strcmp(mode, "child"))
		return child_work();
	if (!strcmp(mode, "exec")) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		return 127;
	}
	pid = start_child(mode, "/proc/self/exe");
	if (pid < 0)
		return 1;
	parent_work();
	if (waitpid(pid, &status, __WALL) != pid)
		return 2;
	printf("child %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
