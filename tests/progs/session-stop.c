// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-stop: stops itself with SIGSTOP (a group-stop) and is continued
 * by a forked helper, then execs itself once ("session-stop again") and
 * exits 7.  The helper sends SIGCONT until the parent says it runs again,
 * so nothing depends on timing.
 */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void helper(pid_t parent, int go, int done)
{
	struct pollfd p = { .fd = done, .events = POLLIN };
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	do
		kill(parent, SIGCONT);
	while (poll(&p, 1, 10) == 0);
	_exit(0);
}

int main(int argc, char **argv)
{
	int go[2], done[2];
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "again"))
		return 7;
	if (pipe(go) || pipe(done))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		helper(getppid(), go[0], done[0]);
	if (write(go[1], "x", 1) != 1)
		return 2;
	raise(SIGSTOP);
	if (write(done[1], "x", 1) != 1)
		return 2;
	execl("/proc/self/exe", argv[0], "again", (char *)NULL);
	return 3;
}
