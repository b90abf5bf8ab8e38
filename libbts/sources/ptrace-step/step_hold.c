// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * While a branch site's int3 is lifted (an emulation that would fault:
 * the real instruction is single-stepped so that it faults as it would
 * untraced), no other thread may run: it could pass the site unseen.  So
 * every other running thread is interrupted and waited for first; the
 * report each one gives (the interrupt's stop, or whatever stop it had
 * already reached) is kept, and handed to the event loop once the int3
 * is back (bts_lift_next), as if it had just arrived.  This costs two
 * syscalls per thread, and only on these rare faulting branches.
 *
 * A thread blocked in vfork() is not waited for: it runs no code until its
 * child execs or exits, and no stop can come before that, so waiting would
 * wait on the child, which may well be the thread that lifted the int3 (a
 * vfork child runs through its parent's int3s, the debugger's too).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "sources/ptrace-step/step.h"

/* The syscalls that block their caller until a vfork child lets go. */
#define I386_CLONE	120
#define I386_VFORK	190

static bool in_vfork(pid_t tid)
{
	unsigned long flags = 0;
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* "NR ARG0 ...", or "running" / "-1 ..." when not in a syscall. */
	if (fscanf(f, "%ld %lx", &nr, &flags) != 2)
		nr = -1;
	fclose(f);
	if (nr == SYS_vfork || nr == I386_VFORK || nr == SYS_clone3)
		return true;
	return (nr == SYS_clone || nr == I386_CLONE) && (flags & CLONE_VFORK);
}

/* Its report, or false when it is held up in vfork(). */
static bool wait_stopped(pid_t tid, int *status)
{
	struct timespec nap = { 0, 20 * 1000 };
	pid_t r;

	for (;;) {
		r = waitpid(tid, status, __WALL | WNOHANG);
		if (r == tid)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
		if (r == 0 && in_vfork(tid))
			return false;	/* its interrupt stop comes later */
		nanosleep(&nap, NULL);
	}
}

void bts_lift_hold_others(struct bts_session *s, struct bts_thread *lifter)
{
	struct bts_step_session *ss = bts_step_of(s);
	int status;
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		struct bts_thread *u = s->threads[i];
		struct bts_step_thread *su = bts_step_thr(u);

		if (u == lifter || !u->running || su->lift_held)
			continue;
		if (ptrace(PTRACE_INTERRUPT, u->tid, 0, 0) && errno != ESRCH)
			continue;
		if (!wait_stopped(u->tid, &status))
			continue;
		u->running = false;
		su->lift_held = true;
		su->lift_status = status;
		ss->lift_nheld++;
	}
}

bool bts_lift_next(struct bts_session *s, pid_t *tid, int *status)
{
	struct bts_step_session *ss = bts_step_of(s);
	size_t i;

	if (!ss->lift_nheld)
		return false;
	for (i = 0; i < s->nthreads; i++)
		if (bts_step_thr(s->threads[i])->lifted)
			return false;	/* still out: the others wait */
	for (i = 0; i < s->nthreads; i++) {
		struct bts_step_thread *su = bts_step_thr(s->threads[i]);

		if (!su->lift_held)
			continue;
		su->lift_held = false;
		ss->lift_nheld--;
		*tid = s->threads[i]->tid;
		*status = su->lift_status;
		return true;
	}
	ss->lift_nheld = 0;	/* the held ones are gone */
	return false;
}
