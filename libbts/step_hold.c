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
 */
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "session.h"

void bts_lift_hold_others(struct bts_session *s, struct bts_thread *lifter)
{
	struct bts_thread *u;
	int status;
	size_t i;
	pid_t r;

	for (i = 0; i < s->nthreads; i++) {
		u = s->threads[i];
		if (u == lifter || !u->running || u->lift_held)
			continue;
		if (ptrace(PTRACE_INTERRUPT, u->tid, 0, 0) && errno != ESRCH)
			continue;
		do
			r = waitpid(u->tid, &status, __WALL);
		while (r < 0 && errno == EINTR);
		if (r != u->tid)
			continue;
		u->running = false;
		u->lift_held = true;
		u->lift_status = status;
		s->lift_nheld++;
	}
}

bool bts_lift_next(struct bts_session *s, pid_t *tid, int *status)
{
	size_t i;

	if (!s->lift_nheld)
		return false;
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->lifted)
			return false;	/* still out: the others wait */
	for (i = 0; i < s->nthreads; i++) {
		struct bts_thread *u = s->threads[i];

		if (!u->lift_held)
			continue;
		u->lift_held = false;
		s->lift_nheld--;
		*tid = u->tid;
		*status = u->lift_status;
		return true;
	}
	s->lift_nheld = 0;	/* the held ones are gone */
	return false;
}
