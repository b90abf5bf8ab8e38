// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A debugger's control of a kmod-step session (btrace gdbserver --source
 * kmod-step).  The module records in the kernel while the threads run
 * under ptrace; stops, breakpoints, registers and memory stay ptrace's
 * (session_control.c).  Recording follows the debugger, as gdb's own BTS
 * does: a thread is attached to the module only once the debugger enables
 * it, with a buffer of the size it asked for, and let go when it disables
 * it; records are numbered from that enable and read straight from the
 * module's buffer (the thread is stopped: nothing writes there).
 *
 * What the module keeps in the thread while it records, the debugger must
 * neither see nor undo:
 *   - its trap flag: masked in every register read (bts_thread_getregs),
 *     set again in every write;
 *   - the instruction it has pending (the one about to run, which it
 *     classifies at the next trap): a breakpoint hit leaves it at the
 *     int3's address, where the debugger's pc goes back to, and a single
 *     step (PTRACE_SINGLESTEP, which the module records and leaves to
 *     ptrace) completes it; but a write that moves the pc would make the
 *     module take the old instruction for what ran.  The thread is then
 *     attached anew, and a gap marker numbered between the two attachments
 *     ends the history there.
 */
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>

#include "control/control_kmod.h"
#include "session/session.h"

#define REC sizeof(struct ptbts_record)
#define EFLAGS_TF 0x100ull

static bool recording(const struct bts_thread *t)
{
	return t->kmod && t->kmod->attached;
}

void bts_kmod_ctl_init(struct bts_session *s)
{
	size_t i;

	s->kmod->lazy = true;
	/* Stopped (spawned, or seized and stopped): the module drops its flag. */
	for (i = 0; i < s->nthreads; i++)
		bts_kmod_forget(s, s->threads[i]);
}

/* Records written since the attach, from STATUS once per stop. */
static int count(struct bts_session *s, struct bts_kmod_thread *kt,
		 uint64_t *n)
{
	struct ptbts_status st = { .size = sizeof(st), .tid = (__u32)kt->ktid };
	long r;

	if (!kt->count_ok) {
		r = bts_kmod_ioctl(s->kmod, PTBTS_IOC_STATUS, (unsigned long)&st);
		if (r)
			return bts_fail(BTS_E_SRCH, "thread %d: status: %s",
					(int)kt->ktid, strerror((int)-r));
		kt->count = st.wraps * kt->nslots + st.head / REC;
		kt->count_ok = true;
	}
	*n = kt->count;
	return 0;
}

static int not_recording(const struct bts_thread *t)
{
	return bts_fail(BTS_E_INVAL, "thread %d: branch tracing is not enabled",
			(int)t->tid);
}

int bts_kmod_ctl_trace(struct bts_session *s, struct bts_thread *t,
		       uint64_t *oldest, uint64_t *written)
{
	struct bts_kmod_thread *kt = t->kmod;
	uint64_t n = 0;
	int err;

	if (!recording(t))
		return not_recording(t);
	kt->count_ok = false;	/* a new read: what ran since counts */
	err = count(s, kt, &n);
	if (err)
		return err;
	*written = kt->base + n;
	if (n > kt->nslots)
		*oldest = *written - kt->nslots;
	else
		*oldest = kt->base ? kt->base - 1 : 0;	/* the gap marker */
	return 0;
}

int bts_kmod_ctl_record(struct bts_session *s, struct bts_thread *t,
			uint64_t n, struct ptbts_record *rec)
{
	struct bts_kmod_thread *kt = t->kmod;
	uint64_t cnt = 0, oldest, written;
	int err;

	if (!recording(t))
		return not_recording(t);
	err = count(s, kt, &cnt);
	if (err)
		return err;
	written = kt->base + cnt;
	oldest = cnt > kt->nslots ? written - kt->nslots
				  : kt->base ? kt->base - 1 : 0;
	if (n < oldest || n >= written)
		return bts_fail(BTS_E_INVAL, "record %llu is not held",
				(unsigned long long)n);
	if (n < kt->base) {
		*rec = (struct ptbts_record){
			.to = PTBTS_GAP_UNKNOWN,
			.flags = PTBTS_MKKIND(PTBTS_KIND_GAP),
		};
		return 0;
	}
	*rec = kt->buf[(n - kt->base) % kt->nslots];
	return 0;
}

/* ------------------------------------------------------------ running */

int bts_kmod_ctl_resume(struct bts_session *s, struct bts_thread *t,
			int action, int sig)
{
	struct user_regs_struct regs;
	int op = action == BTS_RESUME_STEP ? PTRACE_SINGLESTEP : PTRACE_CONT;

	(void)s;
	if (action != BTS_RESUME_STEP && action != BTS_RESUME_CONT)
		return bts_fail(BTS_E_INVAL, "resume action %d", action);
	if (op == PTRACE_SINGLESTEP) {
		if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs))
			return bts_fail_errno(BTS_E_SRCH, "registers of %d",
					      (int)t->tid);
		/* In a syscall, the step reports at its end: see below. */
		t->pc = regs.rip;
		t->fresh = (long)regs.orig_rax >= 0;
	}
	t->ctl_step = op == PTRACE_SINGLESTEP;
	t->held = false;
	t->held_sig = 0;
	if (t->kmod)
		t->kmod->count_ok = false;
	if (ptrace(op, t->tid, 0, (void *)(long)sig) && errno != ESRCH)
		return bts_fail_errno(BTS_E_SRCH, "resuming %d", (int)t->tid);
	t->running = true;	/* ESRCH: killed meanwhile, its exit is on the way */
	return 0;
}

/*
 * ptrace keeps its own books on the trap flag (TIF_FORCED_TF): once the
 * module took the flag as the program's, a step after the module let the
 * thread go leaves the flag set, and the program would trap at its next
 * instruction.  No program here sets it itself (the module would have
 * ended its recording): a flag seen at a step stop of a thread that does
 * not record is cleared.
 */
static void drop_stray_tf(struct bts_thread *t, struct user_regs_struct *regs)
{
	if (recording(t) || !(regs->eflags & EFLAGS_TF))
		return;
	regs->eflags &= ~EFLAGS_TF;
	ptrace(PTRACE_SETREGS, t->tid, 0, regs);
}

bool bts_kmod_ctl_stepped(struct bts_session *s, struct bts_thread *t)
{
	struct user_regs_struct regs;
	bool ours = t->ctl_step;

	t->running = false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0) {
		if (ours && t->fresh && regs.rip == t->pc) {
			/*
			 * Stepped from inside a syscall (an exec's, an
			 * interrupted one's): the report came as it ended,
			 * before the instruction ran.  The step goes on.
			 */
			t->fresh = false;
			if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) == 0 ||
			    errno == ESRCH)
				t->running = true;
			return false;
		}
		drop_stray_tf(t, &regs);
	}
	if (!ours) {
		/* A trap of no step of the debugger's: nothing of the program's. */
		bts_resume(s, t, 0);
		return false;
	}
	t->ctl_step = false;
	t->fresh = false;
	t->held = true;
	t->held_sig = 0;
	return true;
}

/* ---------------------------------------------------------- registers */

/* The thread records again from where it stands: see the top. */
static int reattach(struct bts_session *s, struct bts_thread *t,
		    const struct user_regs_struct *regs)
{
	struct bts_kmod_thread *kt = t->kmod;
	uint64_t n = 0, size = kt->size;
	int err = count(s, kt, &n);

	if (err)
		return err;
	n += kt->base + 1;	/* the gap marker between the two */
	bts_kmod_forget(s, t);	/* it is stopped: the module drops its flag */
	if (ptrace(PTRACE_SETREGS, t->tid, 0, regs))
		return bts_fail_errno(BTS_E_INVAL, "registers of %d", (int)t->tid);
	err = bts_kmod_attach(s, t, size);
	if (!err && !recording(t))
		err = bts_fail(BTS_E_SRCH, "thread %d is gone", (int)t->tid);
	if (err) {
		bts_kmod_forget(s, t);
		return err;
	}
	t->kmod->base = n;
	return 0;
}

int bts_kmod_ctl_setregs(struct bts_session *s, struct bts_thread *t,
			 const struct user_regs_struct *r)
{
	struct user_regs_struct old, regs = *r;

	if (!recording(t)) {
		if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs))
			return bts_fail_errno(BTS_E_INVAL, "registers of %d",
					      (int)t->tid);
		return 0;
	}
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &old))
		return bts_fail_errno(BTS_E_SRCH, "registers of %d", (int)t->tid);
	if (regs.rip != old.rip)
		return reattach(s, t, &regs);
	regs.eflags |= EFLAGS_TF;	/* the module's, not the debugger's */
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs))
		return bts_fail_errno(BTS_E_INVAL, "registers of %d", (int)t->tid);
	return 0;
}

/* ------------------------------------------------ enabling, disabling */

static struct bts_thread *live(struct bts_session *s, pid_t tid)
{
	struct bts_thread *t = bts_thread_find(s, tid);

	return t && !t->shadow ? t : NULL;
}

int bts_control_btrace_enable(struct bts_control *c, pid_t tid, uint64_t size,
			      uint64_t *actual)
{
	struct bts_session *s = c ? bts_control_session(c) : NULL;
	struct bts_thread *t = s ? live(s, tid) : NULL;
	int err;

	if (!t || !actual)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	if (!s->kmod) {
		/* ptrace-step records every thread from the first enable on. */
		bts_step_unpause(s);
		*actual = size;
		return 0;
	}
	if (!recording(t)) {
		bts_kmod_forget(s, t);
		err = bts_kmod_attach(s, t, size ? size : 1);
		if (!err && !recording(t))
			err = bts_fail(BTS_E_SRCH, "thread %d is gone", (int)tid);
		if (err == -BTS_E_NOMEM)
			err = bts_fail(BTS_E_NOMEM, "a buffer of %llu bytes cannot be "
				       "locked in memory (RLIMIT_MEMLOCK: raise ulimit "
				       "-l, or set a smaller buffer-size)",
				       (unsigned long long)size);
		if (err) {
			bts_kmod_forget(s, t);
			return err;
		}
	}
	*actual = t->kmod->size;
	return 0;
}

int bts_control_btrace_disable(struct bts_control *c, pid_t tid)
{
	struct bts_session *s = c ? bts_control_session(c) : NULL;
	struct bts_thread *t = s ? live(s, tid) : NULL;

	if (!t)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	/* Stopped: the module drops its flag, the pages are unpinned. */
	if (s->kmod)
		bts_kmod_forget(s, t);
	return 0;
}
