// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-restart OUT: writes the address of session_after (the jmp right
 * after a read syscall) to OUT, then blocks in that read while a forked
 * helper sends it SIGWINCH three times (ignored by default: the kernel
 * restarts the read) and then writes the byte it waits for.  The jmp runs
 * exactly once.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

long session_read(int fd, void *buf);
extern const char session_after[];

__asm__(".text\n"
	".globl session_read\n"
	"session_read:\n"
	"	mov $0, %eax\n"		/* SYS_read */
	"	mov $1, %edx\n"
	"	syscall\n"
	".globl session_after\n"
	"session_after:\n"
	"	jmp 1f\n"
	"1:	ret\n");

/* Whether @pid sleeps in a pipe read. */
static int blocked(pid_t pid)
{
	char path[64], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "pipe_read") != NULL;
}

static void helper(pid_t parent, int fd)
{
	int i;

	for (i = 0; i < 3; i++) {
		while (!blocked(parent))
			usleep(1000);
		kill(parent, SIGWINCH);
		usleep(20000);
	}
	while (!blocked(parent))
		usleep(1000);
	if (write(fd, "x", 1) != 1)
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	int p[2];
	char c;
	FILE *f;

	if (argc < 2 || pipe(p))
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%p\n", (const void *)session_after);
	fclose(f);
	if (!fork())
		helper(getppid(), p[1]);
	return session_read(p[0], &c) == 1 ? 0 : 3;
}
