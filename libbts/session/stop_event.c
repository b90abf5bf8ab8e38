// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The decoder of ptrace stops (stop_event.h).  The event in a stop
 * status' high bits tells the ptrace events apart; PTRACE_EVENT_STOP is a
 * group-stop when its signal is a stop signal, else a new thread's first
 * stop, an interrupt or the end of a group-stop.  A SIGTRAP is told apart
 * by its siginfo: the debug trap (TRAP_TRACE), the syscall-exit report
 * (TRAP_BRKPT on x86) and the stop at a signal handler's entry
 * (ptrace_notify: TRAP_UNK) are the stepping's own; an int3 gives
 * SI_KERNEL; a SIGTRAP sent by kill() is a signal of the program's.
 */
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "session/stop_event.h"

#ifndef TRAP_UNK
#define TRAP_UNK 5
#endif

/* PTRACE_O_TRACESYSGOOD marks syscall stops with this bit. */
#define SYSCALL_STOP (SIGTRAP | 0x80)

static bool group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

bool bts_status_stopped(int status)
{
	return WIFSTOPPED(status);
}

enum bts_ev_kind bts_stop_kind(int status)
{
	int sig;

	if (WIFEXITED(status))
		return BTS_EV_EXITED;
	if (WIFSIGNALED(status))
		return BTS_EV_KILLED;
	if (!WIFSTOPPED(status))
		return BTS_EV_NONE;
	sig = WSTOPSIG(status);
	switch (status >> 16) {
	case 0:
		return sig == SYSCALL_STOP ? BTS_EV_SYSCALL : BTS_EV_SIGNAL;
	case PTRACE_EVENT_STOP:
		return group_stop_sig(sig) ? BTS_EV_GROUP_STOP : BTS_EV_INTERRUPT;
	case PTRACE_EVENT_CLONE:
		return BTS_EV_CLONE;
	case PTRACE_EVENT_FORK:
		return BTS_EV_FORK;
	case PTRACE_EVENT_VFORK:
		return BTS_EV_VFORK;
	case PTRACE_EVENT_EXEC:
		return BTS_EV_EXEC;
	case PTRACE_EVENT_EXIT:
		return BTS_EV_EXIT;
	default:
		return BTS_EV_OTHER;
	}
}

static enum bts_ev_kind sig_kind(const siginfo_t *si)
{
	if (si->si_signo != SIGTRAP)
		return BTS_EV_SIGNAL;
	if (si->si_code == TRAP_TRACE || si->si_code == TRAP_BRKPT ||
	    si->si_code == TRAP_UNK)
		return BTS_EV_STEP;
	return si->si_code == SI_KERNEL ? BTS_EV_TRAP : BTS_EV_SIGNAL;
}

void bts_stop_decode(pid_t tid, int status, struct bts_stop_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->tid = tid;
	ev->status = status;
	ev->kind = bts_stop_kind(status);
	if (WIFSTOPPED(status))
		ev->sig = WSTOPSIG(status);
	switch (ev->kind) {
	case BTS_EV_CLONE:
	case BTS_EV_FORK:
	case BTS_EV_VFORK:
	case BTS_EV_EXEC:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &ev->msg))
			ev->msg = 0;
		break;
	case BTS_EV_SIGNAL:
		if (ptrace(PTRACE_GETSIGINFO, tid, 0, &ev->si))
			ev->kind = BTS_EV_GONE;
		else
			ev->kind = sig_kind(&ev->si);
		break;
	default:
		break;
	}
}
