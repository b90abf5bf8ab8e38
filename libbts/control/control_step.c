// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A debugger's control of a ptrace-step session.  Until the debugger
 * enables branch tracing the threads run untraced (PTRACE_CONT) and a
 * debugger's step is a plain PTRACE_SINGLESTEP; from then on every thread
 * records, and a debugger's step is one single step of the source's, a
 * resume lets the source run the thread to its next branch stop.  Records
 * are numbered in each thread's ring, as the trace has them.
 */
#include <errno.h>
#include <sys/ptrace.h>

#include "control/control_source.h"
#include "sources/ptrace-step/step.h"

/*
 * The trap of a thread stepped from inside a syscall (an exec's, an
 * interrupted one's) that comes as the syscall ends: the instruction has
 * not run yet, the debugger's step is still to be done.
 */
static bool step_not_run(struct bts_session *s, struct bts_thread *t)
{
	const struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;

	return st->has_pending && st->fresh && !st->fast &&
	       bts_thread_getregs(s, t, &regs) == 0 && regs.rip == st->pc;
}

/* step_not_run() for a thread that runs untraced (prepare_step()). */
static bool lazy_step_not_run(struct bts_session *s, struct bts_thread *t)
{
	struct user_regs_struct regs;
	bool fresh = t->ctl_fresh;

	t->ctl_fresh = false;
	return fresh && bts_thread_getregs(s, t, &regs) == 0 &&
	       regs.rip == t->ctl_pc;
}

static bool stepped(struct bts_control *c, struct bts_thread *t,
		    bool *to_session)
{
	struct bts_session *s = bts_control_session(c);

	*to_session = !(bts_step_of(s)->lazy && !bts_step_thr(t)->stepping);
	if (!*to_session) {
		/* Before the first enable: a step's trap is the debugger's. */
		t->running = false;
		if (t->ctl_step && lazy_step_not_run(s, t)) {
			bts_resume(s, t, 0);	/* the step is still to come */
			return false;
		}
		if (!t->ctl_step) {
			bts_resume(s, t, 0);
			return false;
		}
		t->ctl_step = false;
		t->held = true;
		t->held_sig = 0;
		return true;
	}
	if (!t->ctl_step || step_not_run(s, t))
		return false;
	t->ctl_step = false;
	t->held = true;
	return true;
}

/* Nothing ran since @t stopped: its source starts again from where it is. */
static void reenter(struct bts_session *s, struct bts_thread *t,
		    struct user_regs_struct *regs, bool gap)
{
	struct bts_step_thread *st = bts_step_thr(t);

	/* Untraced (before the first enable): no source state to renew. */
	if (!st->stepping)
		return;
	bts_fast_sync(s, t);
	bts_fast_relift(s, t);
	st->sig_entry = false;
	if (gap && !st->in_gap) {
		bts_thread_emit(s, t, 0, PTBTS_GAP_UNKNOWN, PTBTS_KIND_GAP);
		st->in_gap = true;
	}
	bts_fast_enter(s, t, regs, (long)regs->orig_rax >= 0, false, false);
}

static void drop_signal(struct bts_control *c, struct bts_thread *t)
{
	struct bts_session *s = bts_control_session(c);
	struct user_regs_struct regs;

	if (!bts_thread_getregs(s, t, &regs))
		reenter(s, t, &regs, false);
}

/* One instruction, for real: the source records it as a single step. */
static int prepare_step(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;
	int err = bts_thread_getregs(s, t, &regs);

	if (err)
		return err;
	bts_fast_sync(s, t);
	bts_fast_relift(s, t);
	if (bts_bp_lookup(&s->bps, regs.rip, NULL)) {
		bts_bp_remove(&s->bps, regs.rip);
		st->lifted = regs.rip;
	}
	if (st->stepping) {
		st->fast = false;
		st->resume_op = PTRACE_SINGLESTEP;
		bts_step_set_pending(s, t, &regs, (long)regs.orig_rax >= 0);
	} else {
		/* Untraced: where it is, to know a trap that comes first. */
		t->ctl_pc = regs.rip;
		t->ctl_fresh = (long)regs.orig_rax >= 0;
	}
	t->ctl_step = true;
	return 0;
}

static void resume(struct bts_control *c, struct bts_thread *t, int action,
		   int sig)
{
	struct bts_session *s = bts_control_session(c);

	if (t->held_sig && !sig)
		drop_signal(c, t);	/* the debugger drops the signal */
	if (sig && sig != t->held_sig) {
		bts_control_inject(c, t, sig);
		sig = 0;
	}
	if (action == BTS_RESUME_STEP && prepare_step(s, t))
		return;		/* gone meanwhile: it stays as it is */
	t->held = false;
	t->held_sig = 0;
	bts_resume(s, t, sig);
}

/*
 * A new pc is a jump the program did not make: a gap in the history,
 * never a branch.  Other registers are read where they matter (at a
 * branch site).
 */
static int setregs(struct bts_control *c, struct bts_thread *t,
		   struct user_regs_struct *regs)
{
	struct bts_session *s = bts_control_session(c);
	struct user_regs_struct old;

	if (bts_thread_getregs(s, t, &old))
		return bts_fail(BTS_E_SRCH, "registers of %d", (int)t->tid);
	bts_fast_sync(s, t);
	if (ptrace(PTRACE_SETREGS, t->tid, 0, regs))
		return bts_fail_errno(BTS_E_INVAL, "registers of %d", (int)t->tid);
	if (bts_thread_getregs(s, t, regs))
		return bts_fail(BTS_E_SRCH, "registers of %d", (int)t->tid);
	if (bts_step_thr(t)->stepping && regs->rip != old.rip)
		reenter(s, t, regs, true);
	return 0;
}

static int trace(struct bts_control *c, struct bts_thread *t,
		 uint64_t *oldest, uint64_t *written)
{
	uint64_t w = bts_ring_written(&t->ring);

	(void)c;
	*written = w;
	*oldest = w > t->ring.cap ? w - t->ring.cap : 0;
	return 0;
}

static int record(struct bts_control *c, struct bts_thread *t, uint64_t n,
		  struct ptbts_record *rec)
{
	uint64_t w = bts_ring_written(&t->ring);

	(void)c;
	if (n >= w || w - n > t->ring.cap)
		return bts_fail(BTS_E_INVAL, "record %llu is not held",
				(unsigned long long)n);
	*rec = t->ring.recs[n % t->ring.cap];
	return 0;
}

/* Full speed until the debugger enables branch tracing. */
static void ready(struct bts_control *c)
{
	bts_step_pause(bts_control_session(c));
}

/* ptrace-step records every thread from the first enable on. */
static int enable(struct bts_control *c, struct bts_thread *t, uint64_t size,
		  uint64_t *actual)
{
	(void)t;
	bts_step_unpause(bts_control_session(c));
	*actual = size;
	return 0;
}

static bool site_in_use(struct bts_control *c, uint64_t addr)
{
	struct bts_session *s = bts_control_session(c);
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		const struct bts_step_thread *st = bts_step_thr(s->threads[i]);

		if ((st->fast && st->blk.site == addr) || st->lifted == addr)
			return true;
	}
	return false;
}

static void code_written(struct bts_control *c, uint64_t addr, size_t len)
{
	struct bts_session *s = bts_control_session(c);
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		const struct bts_step_thread *st = bts_step_thr(s->threads[i]);

		if (st->fast && st->blk.site >= addr && st->blk.site - addr < len)
			bts_bp_plant(&s->bps, st->blk.site);
	}
}

/* Held while another thread's int3 is out (step_hold.c). */
static bool report_kept(const struct bts_control *c,
			const struct bts_thread *t)
{
	(void)c;
	return bts_step_thr(t)->lift_held;
}

/* Stepping with its int3 out: its step reports at once, and puts it back. */
static bool reports_soon(const struct bts_control *c,
			 const struct bts_thread *t)
{
	(void)c;
	return bts_step_thr(t)->lifted;
}

const struct bts_ctl_source bts_ctl_ptrace_step = {
	.id = PTBTS_SOURCE_PTRACE_STEP,
	.ready = ready,
	.stepped = stepped,
	.drop_signal = drop_signal,
	.resume = resume,
	.setregs = setregs,
	.trace = trace,
	.record = record,
	.enable = enable,
	.site_in_use = site_in_use,
	.code_written = code_written,
	.report_kept = report_kept,
	.reports_soon = reports_soon,
};
