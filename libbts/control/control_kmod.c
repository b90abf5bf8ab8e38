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
 *   - its trap flag: masked in every register read (the source's getregs),
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

#include "control/control_source.h"
#include "session/session.h"
#include "sources/kmod/kmod.h"

#define REC sizeof(struct ptbts_record)
#define EFLAGS_TF 0x100ull

static bool recording(const struct bts_thread *t)
{
	return bts_kmod_thr(t) && bts_kmod_thr(t)->attached;
}

/*
 * No thread records until the debugger enables it; any thread attached so
 * far is let go.
 */
static void init(struct bts_control *c)
{
	struct bts_session *s = bts_control_session(c);
	size_t i;

	bts_kmod_of(s)->lazy = true;
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
		r = bts_kmod_ioctl(bts_kmod_of(s), PTBTS_IOC_STATUS, (unsigned long)&st);
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

static int trace(struct bts_control *c, struct bts_thread *t,
		 uint64_t *oldest, uint64_t *written)
{
	struct bts_session *s = bts_control_session(c);
	struct bts_kmod_thread *kt = bts_kmod_thr(t);
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

static int record(struct bts_control *c, struct bts_thread *t, uint64_t n,
		  struct ptbts_record *rec)
{
	struct bts_session *s = bts_control_session(c);
	struct bts_kmod_thread *kt = bts_kmod_thr(t);
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

static int resume_thread(struct bts_thread *t, int action, int sig)
{
	struct user_regs_struct regs;
	int op = action == BTS_RESUME_STEP ? PTRACE_SINGLESTEP : PTRACE_CONT;

	if (action != BTS_RESUME_STEP && action != BTS_RESUME_CONT)
		return bts_fail(BTS_E_INVAL, "resume action %d", action);
	if (op == PTRACE_SINGLESTEP) {
		if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs))
			return bts_fail_errno(BTS_E_SRCH, "registers of %d",
					      (int)t->tid);
		/* In a syscall, the step reports at its end: see below. */
		t->ctl_pc = regs.rip;
		t->ctl_fresh = (long)regs.orig_rax >= 0;
	}
	t->ctl_step = op == PTRACE_SINGLESTEP;
	t->held = false;
	t->held_sig = 0;
	if (bts_kmod_thr(t))
		bts_kmod_thr(t)->count_ok = false;
	if (ptrace(op, t->tid, 0, (void *)(long)sig) && errno != ESRCH)
		return bts_fail_errno(BTS_E_SRCH, "resuming %d", (int)t->tid);
	t->running = true;	/* ESRCH: killed meanwhile, its exit is on the way */
	return 0;
}

/* The module records: the debugger's resume is ptrace's, as asked. */
static void resume(struct bts_control *c, struct bts_thread *t, int action,
		   int sig)
{
	(void)c;
	resume_thread(t, action, sig);
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

/* The module records: a step's trap is the debugger's only. */
static bool stepped(struct bts_control *c, struct bts_thread *t,
		    bool *to_session)
{
	struct bts_session *s = bts_control_session(c);
	struct user_regs_struct regs;
	bool ours = t->ctl_step;

	*to_session = false;
	t->running = false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0) {
		if (ours && t->ctl_fresh && regs.rip == t->ctl_pc) {
			/*
			 * Stepped from inside a syscall (an exec's, an
			 * interrupted one's): the report came as it ended,
			 * before the instruction ran.  The step goes on.
			 */
			t->ctl_fresh = false;
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
	t->ctl_fresh = false;
	t->held = true;
	t->held_sig = 0;
	return true;
}

/* ---------------------------------------------------------- registers */

/* The thread records again from where it stands: see the top. */
static int reattach(struct bts_session *s, struct bts_thread *t,
		    const struct user_regs_struct *regs)
{
	struct bts_kmod_thread *kt = bts_kmod_thr(t);
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
	bts_kmod_thr(t)->base = n;
	return 0;
}

static int setregs(struct bts_control *c, struct bts_thread *t,
		   struct user_regs_struct *r)
{
	struct bts_session *s = bts_control_session(c);
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

static int enable(struct bts_control *c, struct bts_thread *t, uint64_t size,
		  uint64_t *actual)
{
	struct bts_session *s = bts_control_session(c);
	int err;

	if (!recording(t)) {
		bts_kmod_forget(s, t);
		err = bts_kmod_attach(s, t, size ? size : 1);
		if (!err && !recording(t))
			err = bts_fail(BTS_E_SRCH, "thread %d is gone", (int)t->tid);
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
	*actual = bts_kmod_thr(t)->size;
	return 0;
}

/* Stopped: the module drops its flag, the pages are unpinned. */
static void disable(struct bts_control *c, struct bts_thread *t)
{
	bts_kmod_forget(bts_control_session(c), t);
}

const struct bts_ctl_source bts_ctl_kmod_step = {
	.id = PTBTS_SOURCE_KMOD_STEP,
	.init = init,
	.stepped = stepped,
	.resume = resume,
	.setregs = setregs,
	.trace = trace,
	.record = record,
	.enable = enable,
	.disable = disable,
};
