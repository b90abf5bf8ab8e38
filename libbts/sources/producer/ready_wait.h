/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The event loop's wait for a source whose records are written by someone
 * else into pages of ours (the module: kmod-step, kmod-bts; the qemu-user
 * plugin): waitpid reports, and in BLOCK mode records as the producer says
 * they are ready, through a descriptor that polls readable then (the
 * module's session fd, the plugin's eventfd).
 */
#ifndef BTS_READY_WAIT_H
#define BTS_READY_WAIT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct bts_session;
struct bts_thread;

/*
 * A source's records of @t to the writer.  @final: the thread produces
 * no more for now (a stop, its exit).  Otherwise BLOCK mode only: the
 * ready records, acknowledged; 1 when there were any.
 */
typedef int (*bts_ready_drain_fn)(struct bts_session *s, struct bts_thread *t,
				  bool final);

struct bts_ready_wait {
	int fd;			/* polls readable when records are ready */
	bts_ready_drain_fn drain;
	int sfd;		/* signalfd for SIGCHLD, or -1 */
	bool watched;		/* the signalfd was set up (or found useless) */
	bool masked;		/* SIGCHLD blocked by us: @oldmask to restore */
	sigset_t oldmask;
	bool quiet;		/* @fd was ready for no record: poll it not */
	bool any_mode;		/* poll @fd in every mode, not BLOCK's only */
	/* Called once @fd polled readable, before the records are taken. */
	void (*ready)(int fd);
};

/* For @fd and @drain; nothing is set up before the first wait. */
void bts_ready_wait_init(struct bts_ready_wait *rw, int fd,
			 bts_ready_drain_fn drain);
/* The signalfd closed, SIGCHLD's mask as it was. */
void bts_ready_wait_end(struct bts_ready_wait *rw);
/*
 * waitpid(-1, status, __WALL), taking BLOCK-mode records (any mode's
 * with @any_mode) as they are ready while no report is there.  Returns the tid, or -1 with errno
 * (EINTR: a signal, look at s->stop).
 */
pid_t bts_ready_wait(struct bts_session *s, struct bts_ready_wait *rw,
		     int *status);

#endif /* BTS_READY_WAIT_H */
