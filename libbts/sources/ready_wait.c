// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wait of a kmod session's event loop.  Two things can need the
 * tracer: a ptrace report (waitpid) and, in BLOCK mode, records the module
 * says are ready (poll on the session fd).  Neither call waits for both,
 * so the loop polls two fds: the session fd and a signalfd for SIGCHLD,
 * which the kernel sends the tracer at every ptrace stop and exit of a
 * tracee.  SIGCHLD is blocked in this thread from the first wait to
 * bts_session_free() (a signalfd reads only blocked signals, and the
 * tracee's SIGCHLDs are ours to take); a SIGCHLD that goes to another
 * thread of the process is covered by the poll's timeout, so a report is
 * late at worst, never lost.
 *
 * poll() on the session fd also reports a thread that is not running (a
 * ptrace stop, an exit): until waitpid hands that over, the fd stays
 * ready.  A wakeup that finds no record makes the next poll leave the fd
 * out ("quiet") until the next report; the timeout takes records then.
 */
#include <errno.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "session/session.h"
#include "sources/kmod/kmod.h"

/*
 * The timeouts stand in for what the poll cannot see: a SIGCHLD that went
 * to another thread (a report is then that late at most), and with no
 * signalfd or while the session fd is left out, every report and record
 * (the short one).
 */
#define KMOD_POLL_MS		1000
#define KMOD_POLL_SHORT_MS	50

/*
 * No SIGCHLD comes for a stop when the process ignores it or asked for
 * none (SA_NOCLDSTOP): then no signalfd, and short timeouts.
 */
static void watch_sigchld(struct bts_kmod *k)
{
	struct sigaction sa;
	sigset_t set;

	if (k->watched)
		return;
	k->watched = true;
	if (sigaction(SIGCHLD, NULL, &sa) || sa.sa_handler == SIG_IGN ||
	    (sa.sa_flags & SA_NOCLDSTOP))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (pthread_sigmask(SIG_BLOCK, &set, &k->oldmask))
		return;
	k->masked = true;
	k->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void read_sigchld(struct bts_kmod *k)
{
	struct signalfd_siginfo si[8];

	while (read(k->sfd, si, sizeof(si)) > 0)
		;
}

/* Every BLOCK-mode thread's ready records; whether there were any. */
static bool take_ready(struct bts_session *s)
{
	bool any = false;
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (bts_kmod_drain(s, s->threads[i], false) > 0)
			any = true;
	return any;
}

/*
 * A thread stopped at its exit still has its memory: its records now, so
 * that the maps they need can still be read.
 */
static void before_report(struct bts_session *s, pid_t tid, int status)
{
	struct bts_thread *t;

	if (bts_stop_kind(status) != BTS_EV_EXIT)
		return;
	t = bts_thread_find(s, tid);
	if (t)
		bts_kmod_drain(s, t, true);
}

/* One poll: 0, or -1 with errno. */
static int wait_once(struct bts_session *s, struct bts_kmod *k)
{
	bool block = s->mode == PTBTS_MODE_BLOCK;
	struct pollfd pfd[2];
	int r, timeout, kfd = -1;
	nfds_t n = 0;

	if (k->sfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = k->sfd, .events = POLLIN };
	if (block && !k->quiet) {
		kfd = (int)n;
		pfd[n++] = (struct pollfd){ .fd = k->fd, .events = POLLIN };
	}
	timeout = k->sfd >= 0 && !k->quiet ? KMOD_POLL_MS : KMOD_POLL_SHORT_MS;
	r = poll(pfd, n, timeout);
	if (r < 0)
		return -1;
	if (k->sfd >= 0 && pfd[0].revents)
		read_sigchld(k);
	if (!block)
		return 0;
	if (r == 0 || (kfd >= 0 && pfd[kfd].revents)) {
		bool got = take_ready(s);

		if (kfd >= 0 && pfd[kfd].revents && !got)
			k->quiet = true;
		else if (got)
			k->quiet = false;
	}
	return 0;
}

pid_t bts_kmod_wait(struct bts_session *s, int *status)
{
	struct bts_kmod *k = bts_kmod_of(s);
	pid_t tid;

	watch_sigchld(k);
	for (;;) {
		tid = waitpid(-1, status, __WALL | WNOHANG);
		if (tid > 0) {
			k->quiet = false;
			before_report(s, tid, *status);
		}
		if (tid)
			return tid;
		if (wait_once(s, k))
			return -1;
	}
}
