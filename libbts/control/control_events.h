/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The debugger's events kept for later (session_control.c), as gdbserver
 * keeps a "pending status" per thread: when every thread is stopped for
 * one thread's event, another that had an event of its own by then keeps
 * it, and it is reported at a later resume of that thread, one at a time,
 * without running anything.  Also the resumes a debugger asks for, which
 * are carried out only once it is known that no pending event is due.
 */
#ifndef BTS_CONTROL_EVENTS_H
#define BTS_CONTROL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ctl_event {
	pid_t tid;
	int kind;		/* enum bts_stop_kind */
	int sig;
	uint64_t pc;		/* BTS_STOP_BREAKPOINT: the int3's address */
	uint64_t seq;		/* arrival order */
	bool due;		/* its thread was resumed: report it now */
};

struct ctl_resume {
	pid_t tid;
	int action;
	int sig;
};

struct ctl_queues {
	struct ctl_event *ev;
	size_t nev, capev;
	uint64_t seq;
	struct ctl_resume *rs;
	size_t nrs, caprs;
	struct ctl_resume *inj;	/* signals sent for the debugger (tid, sig) */
	size_t ninj, capinj;
};

/* A thread's event (@due set); a thread keeps its first one.  -ENOMEM. */
int ctl_event_add(struct ctl_queues *q, pid_t tid, int kind, int sig,
		  uint64_t pc);
struct ctl_event *ctl_event_find(struct ctl_queues *q, pid_t tid);
void ctl_event_drop(struct ctl_queues *q, pid_t tid);
/*
 * The due event to report (copied to @out and taken off the queue): a
 * completed step first, as gdbserver does (gdb would take a later one for
 * a random SIGTRAP), else the oldest.  False: none is due.
 */
bool ctl_event_take(struct ctl_queues *q, struct ctl_event *out);
/* A new round of resumes: no event is due until its thread is resumed. */
void ctl_event_undue(struct ctl_queues *q);

/* A resume to carry out at the next wait.  -ENOMEM. */
int ctl_resume_add(struct ctl_queues *q, pid_t tid, int action, int sig);

/*
 * A signal the debugger gives a thread, sent with tgkill: its delivery
 * stop is the program's own, not an event.  -ENOMEM.
 */
int ctl_inject_add(struct ctl_queues *q, pid_t tid, int sig);
/* Whether @sig at @tid is one of those (then forgotten). */
bool ctl_inject_take(struct ctl_queues *q, pid_t tid, int sig);

void ctl_queues_clear(struct ctl_queues *q);
void ctl_queues_free(struct ctl_queues *q);

#endif /* BTS_CONTROL_EVENTS_H */
