// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The wait of the event loop of a session whose records a producer writes
 * into our pages (the module, the qemu-user plugin).  Two things can need
 * the tracer: a ptrace report (waitpid) and, in BLOCK mode, records the
 * producer says are ready (poll on its fd: the module's session fd, the
 * plugin's eventfd).  Neither call waits for both,
 * so the loop polls two fds: the producer's fd and a signalfd for SIGCHLD,
 * which the kernel sends the tracer at every ptrace stop and exit of a
 * tracee.  SIGCHLD is blocked in this thread from the first wait to
 * bts_session_free() (a signalfd reads only blocked signals, and the
 * tracee's SIGCHLDs are ours to take); a SIGCHLD that goes to another
 * thread of the process is covered by the poll's timeout, so a report is
 * late at worst, never lost.
 *
 * poll() on the module's session fd also reports a thread that is not
 * running (a ptrace stop, an exit): until waitpid hands that over, the fd
 * stays ready.  A wakeup that finds no record makes the next poll leave the fd
 * out ("quiet") until the next report; the timeout takes records then.
 */
#include <errno.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "session/session.h"
#include "sources/producer/ready_wait.h"

/*
 * The timeouts stand in for what the poll cannot see: a SIGCHLD that went
 * to another thread (a report is then that late at most), and with no
 * signalfd or while the session fd is left out, every report and record
 * (the short one).
 */
#define READY_POLL_MS		1000
#define READY_POLL_SHORT_MS	50

/*
 * No SIGCHLD comes for a stop when the process ignores it or asked for
 * none (SA_NOCLDSTOP): then no signalfd, and short timeouts.
 */
static void watch_sigchld(struct bts_ready_wait *rw)
{
	struct sigaction sa;
	sigset_t set;

	if (rw->watched)
		return;
	rw->watched = true;
	if (sigaction(SIGCHLD, NULL, &sa) || sa.sa_handler == SIG_IGN ||
	    (sa.sa_flags & SA_NOCLDSTOP))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (pthread_sigmask(SIG_BLOCK, &set, &rw->oldmask))
		return;
	rw->masked = true;
	rw->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

void bts_ready_wait_init(struct bts_ready_wait *rw, int fd,
			 bts_ready_drain_fn drain)
{
	*rw = (struct bts_ready_wait){ .fd = fd, .drain = drain, .sfd = -1 };
}

void bts_ready_wait_end(struct bts_ready_wait *rw)
{
	if (rw->sfd >= 0)
		close(rw->sfd);
	rw->sfd = -1;
	if (rw->masked)
		pthread_sigmask(SIG_SETMASK, &rw->oldmask, NULL);
	rw->masked = false;
}

static void read_sigchld(struct bts_ready_wait *rw)
{
	struct signalfd_siginfo si[8];

	while (read(rw->sfd, si, sizeof(si)) > 0)
		;
}

/* Every BLOCK-mode thread's ready records; whether there were any. */
static bool take_ready(struct bts_session *s, struct bts_ready_wait *rw)
{
	bool any = false;
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (rw->drain(s, s->threads[i], false) > 0)
			any = true;
	return any;
}

/*
 * A thread stopped at its exit still has its memory: its records now, so
 * that the maps they need can still be read.
 */
static void before_report(struct bts_session *s, struct bts_ready_wait *rw,
			  pid_t tid, int status)
{
	struct bts_thread *t;

	if (bts_stop_kind(status) != BTS_EV_EXIT)
		return;
	t = bts_thread_find(s, tid);
	if (t)
		rw->drain(s, t, true);
}

/* One poll: 0, or -1 with errno. */
static int wait_once(struct bts_session *s, struct bts_ready_wait *rw)
{
	bool block = s->mode == PTBTS_MODE_BLOCK || rw->any_mode;
	struct pollfd pfd[2];
	int r, timeout, kfd = -1;
	nfds_t n = 0;

	if (rw->sfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = rw->sfd, .events = POLLIN };
	if (block && !rw->quiet) {
		kfd = (int)n;
		pfd[n++] = (struct pollfd){ .fd = rw->fd, .events = POLLIN };
	}
	timeout = rw->sfd >= 0 && !rw->quiet ? READY_POLL_MS : READY_POLL_SHORT_MS;
	r = poll(pfd, n, timeout);
	if (r < 0)
		return -1;
	if (rw->sfd >= 0 && pfd[0].revents)
		read_sigchld(rw);
	if (!block)
		return 0;
	if (kfd >= 0 && pfd[kfd].revents && rw->ready)
		rw->ready(rw->fd);
	if (r == 0 || (kfd >= 0 && pfd[kfd].revents)) {
		bool got = take_ready(s, rw);

		if (kfd >= 0 && pfd[kfd].revents && !got)
			rw->quiet = true;
		else if (got)
			rw->quiet = false;
	}
	return 0;
}

pid_t bts_ready_wait(struct bts_session *s, struct bts_ready_wait *rw,
		     int *status)
{
	pid_t tid;

	watch_sigchld(rw);
	for (;;) {
		tid = waitpid(-1, status, __WALL | WNOHANG);
		if (tid > 0) {
			rw->quiet = false;
			before_report(s, rw, tid, *status);
		}
		if (tid)
			return tid;
		if (wait_once(s, rw))
			return -1;
	}
}
