// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A thread's registers as the program has them.  kmod-step keeps the trap
 * flag set in the user registers of every thread it records, and ptrace
 * shows it (the module, not ptrace, set it): a debugger or a crash file
 * would show a flag the program never set.  Every register value libbts
 * reports comes through here, with the module's flag masked.  A flag the
 * program sets itself while the module records is the module's anyway:
 * the module ends recording with a gap marker when it is cleared.
 */
#include <errno.h>
#include <sys/ptrace.h>

#include "session/session.h"

#define BTS_EFLAGS_TF 0x100ull

int bts_thread_getregs(struct bts_session *s, struct bts_thread *t,
		       struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, t->tid, 0, r))
		return -errno;
	if (t->kmod && t->kmod->attached &&
	    s->source == PTBTS_SOURCE_KMOD_STEP)
		r->eflags &= ~BTS_EFLAGS_TF;
	return 0;
}
