// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agree-libc: a dynamic libc program whose every thread runs the same
 * branches in every run, whatever the timing, so that independent branch
 * sources can be compared record for record: a signal handler, two
 * threads, a forked child, an exec of itself ("agree-libc again").
 *
 * What would make a thread's branches depend on timing is avoided: the
 * threads are never joined (a join that finds its thread still running
 * waits in a loop), each tells the main thread it is done through a pipe
 * of its own and ends in one asm block, write then exit with no branch
 * between, so that wherever the exec's kill finds it, its records are the
 * same.  Output goes through write(2) only.  Exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define OWN __attribute__((noinline))

static volatile int sum;

static OWN int step(int i)
{
	return i % 3 ? i * 2 : i + 1;
}

static OWN void work(int n)
{
	int i;

	for (i = 0; i < n; i++)
		sum += step(i);
}

static void on_usr1(int sig)
{
	(void)sig;
	work(5);
}

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(3);
}

/* Writes one byte to @fd and exits the thread: no branch in between. */
static void __attribute__((noreturn)) done_and_exit(int fd)
{
	static const char byte = 1;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "mov %[exit], %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(&byte),
			   "d"(1L), [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}

static void *thread_main(void *arg)
{
	int fd = (int)(long)arg;

	work(20);
	done_and_exit(fd);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int p[2][2], i, st;
	pthread_t t;
	pid_t pid;
	char c;

	if (argc > 1 && !strcmp(argv[1], "again")) {
		work(10);
		say("agree-libc again\n");
		return 0;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL) || raise(SIGUSR1))
		return 1;
	for (i = 0; i < 2; i++) {
		if (pipe(p[i]) ||
		    pthread_create(&t, NULL, thread_main, (void *)(long)p[i][1]))
			return 1;
		if (read(p[i][0], &c, 1) != 1)
			return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		work(15);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	say("agree-libc ok\n");
	execl("/proc/self/exe", argv[0], "again", (char *)NULL);
	return 2;
}
