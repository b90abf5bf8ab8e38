// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Asking the stub to end: SIGTERM, SIGHUP or SIGQUIT, and the death of
 * btrace's own process (tracer-guard.c sends SIGTERM then).  The stub ends
 * as when gdb disconnects: an attached process is detached with its code
 * restored, a program it started is killed.  Dying of the signal instead
 * would leave an attached process its int3s (it would die of SIGTRAP).
 *
 * The handler writes to a pipe that is never drained: its read end stays
 * readable, so every wait that watches it (a read from gdb, an accept, the
 * program running) ends, however late it starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "stop.h"

static int stop_pipe[2] = { -1, -1 };

static void on_stop(int sig)
{
	int saved = errno;

	(void)sig;
	/* A full pipe is readable already: a failed write changes nothing. */
	(void)!write(stop_pipe[1], "", 1);
	errno = saved;
}

int stub_stop_init(void)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = on_stop };

	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK))
		return -1;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	return stop_pipe[0];
}

bool stub_stopping(void)
{
	struct pollfd p = { .fd = stop_pipe[0], .events = POLLIN };

	return stop_pipe[0] >= 0 && poll(&p, 1, 0) > 0;
}

int stub_wake_fd(int in)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return in;
	ev.data.fd = stop_pipe[0];
	if (stop_pipe[0] >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, stop_pipe[0], &ev);
	ev.data.fd = in;
	if (in >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev)) {
		close(ep);
		return in;
	}
	return ep;
}
