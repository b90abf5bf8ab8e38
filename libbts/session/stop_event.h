/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * One waitpid() report of a traced thread, decoded once: the wait status,
 * PTRACE_GETEVENTMSG of an event and PTRACE_GETSIGINFO of a signal stop
 * become one event.  Every client of ptrace stops (recording, the flight
 * recorder, attach and detach, a debugger's run control) takes these
 * events and never looks at a wait status itself.
 */
#ifndef BTS_STOP_EVENT_H
#define BTS_STOP_EVENT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

enum bts_ev_kind {
	BTS_EV_NONE,		/* no stop (a continue report): nothing to do */
	BTS_EV_EXITED,		/* gone: exit() */
	BTS_EV_KILLED,		/* gone: a signal ended it */
	BTS_EV_SIGNAL,		/* a signal-delivery-stop of the program's signal */
	BTS_EV_STEP,		/* a SIGTRAP the stepping itself caused */
	BTS_EV_TRAP,		/* a SIGTRAP of an int3 (a source's site maybe) */
	BTS_EV_GONE,		/* a signal stop whose siginfo is gone: killed */
	BTS_EV_SYSCALL,		/* a syscall-entry or -exit stop */
	BTS_EV_CLONE,		/* @msg: the new task */
	BTS_EV_FORK,		/* @msg: the child */
	BTS_EV_VFORK,		/* @msg: the child */
	BTS_EV_EXEC,		/* @msg: the former tid of the thread */
	BTS_EV_EXIT,		/* PTRACE_EVENT_EXIT: it is exiting */
	BTS_EV_GROUP_STOP,	/* a job-control stop (@sig the stop signal) */
	BTS_EV_INTERRUPT,	/* PTRACE_EVENT_STOP: first stop, interrupt, SIGCONT */
	BTS_EV_OTHER,		/* another ptrace event: nothing to do */
};

struct bts_stop_event {
	enum bts_ev_kind kind;
	pid_t tid;
	int status;		/* the wait status, for what reports it on */
	int sig;		/* the stop signal (SIGNAL/STEP/TRAP: to deliver) */
	unsigned long msg;	/* PTRACE_GETEVENTMSG; 0 when it failed */
	siginfo_t si;		/* SIGNAL, STEP, TRAP */
};

/*
 * Decodes @status of @tid into @ev: the kind from the status alone, and
 * for a signal stop its siginfo (BTS_EV_GONE when the thread is gone).
 */
void bts_stop_decode(pid_t tid, int status, struct bts_stop_event *ev);
/*
 * The kind of @status without asking the thread anything: a signal stop
 * is BTS_EV_SIGNAL (not told apart from STEP or TRAP), no @msg is read.
 */
enum bts_ev_kind bts_stop_kind(int status);

static inline bool bts_ev_gone(const struct bts_stop_event *ev)
{
	return ev->kind == BTS_EV_EXITED || ev->kind == BTS_EV_KILLED;
}

/* A stop: the thread waits for a resume (a report of its end does not). */
static inline bool bts_ev_stopped(const struct bts_stop_event *ev)
{
	return ev->kind != BTS_EV_NONE && !bts_ev_gone(ev);
}

/* A signal-delivery-stop of any kind: the signal is pending delivery. */
static inline bool bts_ev_sigstop(const struct bts_stop_event *ev)
{
	return ev->kind == BTS_EV_SIGNAL || ev->kind == BTS_EV_STEP ||
	       ev->kind == BTS_EV_TRAP;
}

/* Whether a waitpid() status is a stop (the thread waits for a resume). */
bool bts_status_stopped(int status);

#endif /* BTS_STOP_EVENT_H */
