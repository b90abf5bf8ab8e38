// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ptrace-step source: every instruction is single-stepped.  At each
 * stop the source knows the instruction about to run (its "pending" one,
 * classified through the cache); at the next step report the new pc says
 * where it went, and bts_insn_taken() says whether that is a branch record.
 *
 * Asynchronous records come from what the kernel does around a step:
 *  - a caught signal, passed on at its signal-delivery-stop, makes the
 *    kernel stop the stepping thread at the handler's first instruction:
 *    {interrupted pc -> handler}, and the instruction there did not run;
 *  - rt_sigreturn is a syscall after which the pc is elsewhere:
 *    {the syscall -> the resumed pc}.
 * Code that cannot be read or decoded gives a gap marker, never a guess.
 *
 * This is the single-step half of the source: step_fast.c runs whole
 * blocks between branch stops and comes here for the blocks it cannot run
 * (and for every instruction when BTS_STEP_MODE=single is set in the
 * environment, the reference the tests compare branch stops with).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "sources/ptrace-step/abi32.h"
#include "sources/ptrace-step/skip.h"
#include "sources/ptrace-step/step.h"

#define CODE_CHUNK 64

/* The kernel's internal restart codes (include/linux/errno.h). */
#define K_ERESTARTSYS		512
#define K_ERESTARTNOINTR	513
#define K_ERESTARTNOHAND	514
#define K_ERESTART_RESTARTBLOCK	516

static int get_regs(struct bts_thread *t, struct user_regs_struct *regs)
{
	return ptrace(PTRACE_GETREGS, t->tid, 0, regs) ? -errno : 0;
}

/*
 * 32-bit code is decoded at every step, not cached: the cache's answers
 * are 64-bit ones, and a step's ptrace round trips outweigh a decode.
 */
static int classify32(const uint8_t *code, size_t n, struct bts_insn *out)
{
	int err = bts_abi32_classify(code, n, out);

	if (err == -BTS_E_TRUNCATED && n < CODE_CHUNK)
		return PTBTS_GAP_UNREADABLE;
	return err ? PTBTS_GAP_UNDECODABLE : 0;
}

/* The classification of @pc, through the cache; a gap reason on failure. */
static int classify(struct bts_session *s, struct bts_thread *t, uint64_t pc,
		    struct bts_insn *out)
{
	const struct bts_insn *c = t->proc && t->proc->abi32 ? NULL :
				   bts_insn_cache_get(bts_step_of(s)->icache, pc);
	uint8_t code[CODE_CHUNK];
	ssize_t n;

	if (c) {
		*out = *c;
		return 0;
	}
	n = bts_read_code(s, t->tid, pc, code, sizeof(code));
	if (n <= 0)
		return PTBTS_GAP_UNREADABLE;
	if (t->proc && t->proc->abi32)
		return classify32(code, (size_t)n, out);
	if (bts_insn_cache_fill(bts_step_of(s)->icache, pc, code, (size_t)n) == 0) {
		/* Too few bytes readable to finish the instruction? */
		if (bts_insn_classify(code, (size_t)n, out) == -BTS_E_TRUNCATED &&
		    n < (ssize_t)sizeof(code))
			return PTBTS_GAP_UNREADABLE;
		return PTBTS_GAP_UNDECODABLE;
	}
	*out = *bts_insn_cache_get(bts_step_of(s)->icache, pc);
	return 0;
}

/* The instruction at regs' pc is the next to run. */
void bts_step_set_pending(struct bts_session *s, struct bts_thread *t,
			  const struct user_regs_struct *regs, bool fresh)
{
	struct bts_step_thread *st = bts_step_thr(t);
	int gap = classify(s, t, regs->rip, &st->insn);

	if (gap) {
		/* One marker per hole, not one per instruction in it. */
		if (!st->in_gap)
			bts_thread_emit(s, t, 0, gap, PTBTS_KIND_GAP);
		st->in_gap = true;
		st->has_pending = false;
		return;
	}
	st->in_gap = false;
	st->has_pending = true;
	st->fresh = fresh;
	st->pc = regs->rip;
	st->nr = regs->rax;
}

/*
 * Whether the pending instruction is a syscall: a 32-bit program's also
 * int $0x80 (sysenter returns past the int $0x80 that follows it in
 * __kernel_vsyscall, which complete() does not count as a branch).
 */
static bool enters_kernel(const struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);

	return st->insn.kind == BTS_INSN_SYSCALL ||
	       (st->insn.kind == BTS_INSN_INT && t->proc && t->proc->abi32);
}

static bool is_sigreturn(const struct bts_thread *t, uint64_t nr)
{
	if (t->proc && t->proc->abi32)
		return bts_abi32_sigreturn(nr);
	return nr == SYS_rt_sigreturn;
}

/* The pending instruction ran and the thread is now at @regs. */
static void complete(struct bts_session *s, struct bts_thread *t,
		     const struct user_regs_struct *regs)
{
	struct bts_step_thread *st = bts_step_thr(t);
	uint64_t next = regs->rip;

	if (enters_kernel(t)) {
		bool sigreturn = is_sigreturn(t, st->nr) ||
				 is_sigreturn(t, regs->orig_rax);

		if (sigreturn && next != st->pc + st->insn.len) {
			bts_thread_emit(s, t, st->pc, next, PTBTS_KIND_SIGRETURN);
			st->in_gap = false;
		}
		return;
	}
	if (bts_insn_taken(&st->insn, st->pc, next))
		bts_thread_emit(s, t, st->pc, next, PTBTS_KIND_BRANCH);
}

void bts_step_start(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;

	t->started = true;
	st->has_pending = false;
	st->sig_entry = false;
	st->fast = false;
	st->sigret_from = 0;
	/* The debugger has not asked for records yet; a vfork child still
	 * steps through the int3s in the memory it shares. */
	if (bts_step_of(s)->lazy && !t->shadow) {
		st->stepping = false;
		return;
	}
	bts_place_thread(s, t->tid);
	if (get_regs(t, &regs))
		return;
	/*
	 * Stopped at a new thread's start, an interrupt or an exec: the
	 * thread may be finishing (or restarting) a syscall, which reports a
	 * trap before the instruction at the pc runs.
	 */
	bts_fast_enter(s, t, &regs, true, false, false);
}

/*
 * A syscall that returned one of the kernel's restart codes: unless a
 * handler runs first, the kernel moves the pc back onto the syscall and
 * runs it again, and the next trap is at the same pc as this one.
 */
static bool restarting(const struct user_regs_struct *regs)
{
	long ret = (long)regs->rax;

	return (long)regs->orig_rax >= 0 &&
	       (ret == -K_ERESTARTSYS || ret == -K_ERESTARTNOINTR ||
		ret == -K_ERESTARTNOHAND || ret == -K_ERESTART_RESTARTBLOCK);
}

void bts_step_trap(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;
	bool fresh = false;

	if (get_regs(t, &regs))
		return;
	bts_fast_relift(s, t);
	if (st->sig_entry) {
		st->sig_entry = false;
		bts_thread_emit(s, t, st->sig_from, regs.rip, PTBTS_KIND_SIGNAL);
		st->in_gap = false;
	} else if (st->fast) {
		/* Not a step of ours: nothing ran that is not in the block. */
		bts_fast_signal(s, t, &regs);
		return;
	} else if (st->has_pending) {
		if (st->fresh && regs.rip == st->pc) {
			/* It did not run: a syscall finished (or restarted) first. */
			st->fresh = restarting(&regs);
			return;
		}
		complete(s, t, &regs);
		fresh = enters_kernel(t) && restarting(&regs);
	}
	bts_fast_enter(s, t, &regs, fresh, !fresh, false);
}

/*
 * A SIGTRAP, in a thread that is not stepped, from an int3 of ours that
 * was taken out meanwhile: the thread trapped on it before
 * bts_bp_remove_all() (a pause, the end of recording), or it is a
 * shadow's (release_shadows(), session_fork.c).  The byte before the pc is
 * no int3 any more: the pc goes back onto the original instruction; true
 * then.  A stepped thread's is a branch stop (bts_fast_site()).
 */
static bool vanished_int3(struct bts_session *s, struct bts_thread *t,
			  const siginfo_t *si)
{
	const struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;
	uint8_t b;

	if (si->si_signo != SIGTRAP || si->si_code != SI_KERNEL ||
	    get_regs(t, &regs))
		return false;
	if (!t->shadow && (st->stepping || !bts_bp_gone(&s->bps, regs.rip - 1)))
		return false;
	if (bts_read_code(NULL, t->tid, regs.rip - 1, &b, 1) != 1 ||
	    b == BTS_INT3)
		return false;
	regs.rip--;
	return ptrace(PTRACE_SETREGS, t->tid, 0, &regs) == 0;
}

/*
 * A signal-delivery-stop.  The pending instruction has not run, unless it
 * was a trap (int3) that raised this very signal and moved the pc.  The
 * int3 of a branch site is ours, not the program's.  Returns the signal
 * to resume with.
 */
int bts_step_signal(struct bts_session *s, struct bts_thread *t, int sig,
		    const siginfo_t *si)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;

	if (vanished_int3(s, t, si))
		return 0;
	if (!st->stepping)
		return sig;
	bts_fast_relift(s, t);
	if (bts_fast_site(s, t, si))
		return 0;
	if (get_regs(t, &regs))
		return sig;
	if (st->fast) {
		bts_fast_signal(s, t, &regs);
	} else if (st->has_pending && regs.rip != st->pc && !st->sig_entry) {
		complete(s, t, &regs);
		bts_fast_enter(s, t, &regs, false, false, false);
	}
	if (bts_proc_sig_in(t->tid, "SigCgt", sig)) {
		st->sig_entry = true;
		st->sig_from = regs.rip;
		/* The kernel stops a stepped thread at the handler's entry. */
		st->resume_op = PTRACE_SINGLESTEP;
	} else if (!bts_step_of(s)->single && bts_owns_bps(s, t) &&
		   bts_proc_sig_fatal(t->tid, sig)) {
		/* The program dies of it: its core shows none of our int3s. */
		bts_bp_remove_all(&s->bps);
		s->bp_off = true;
	}
	return sig;
}

void bts_step_pause(struct bts_session *s)
{
	bts_step_of(s)->lazy = true;
	bts_bp_remove_all(&s->bps);	/* the debugger has planted none yet */
	for (size_t i = 0; i < s->nthreads; i++) {
		struct bts_thread *t = s->threads[i];
		struct bts_step_thread *st = bts_step_thr(t);

		if (t->shadow)
			continue;
		st->stepping = false;
		st->fast = false;
		st->has_pending = false;
		st->lifted = 0;
	}
}

void bts_step_unpause(struct bts_session *s)
{
	if (!bts_step_of(s)->lazy)
		return;
	bts_step_of(s)->lazy = false;
	for (size_t i = 0; i < s->nthreads; i++) {
		struct bts_thread *t = s->threads[i];
		struct bts_step_thread *st = bts_step_thr(t);

		if (t->shadow || t->exiting || !t->started)
			continue;
		st->stepping = true;
		st->resume_op = PTRACE_SINGLESTEP;
		bts_step_start(s, t);
	}
}

/* Every planted int3 out: the program is let go, or killed. */
void bts_step_restore(struct bts_session *s)
{
	bts_bp_remove_all(&s->bps);
	s->bp_off = true;
	bts_place_release(s);
}

/* ------------------------------------------------------------- the source */

/*
 * BTS_STEP_MODE=single: every instruction single-stepped, no breakpoint
 * planted: the slow reference that branch stops are compared with.
 */
static bool single_step_mode(void)
{
	const char *m = getenv("BTS_STEP_MODE");

	return m && !strcmp(m, "single");
}

static int step_open(struct bts_session *s)
{
	struct bts_step_session *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return bts_fail(BTS_E_NOMEM, "ptrace-step session");
	s->src = ss;
	ss->icache = bts_insn_cache_new();
	ss->bcache = bts_block_cache_new();
	if (!ss->icache || !ss->bcache)
		return bts_fail(BTS_E_NOMEM, "instruction cache");
	ss->single = single_step_mode();
	s->no_int3 = ss->single;
	return 0;
}

static int step_skip(struct bts_session *s, const char *const *globs)
{
	return bts_skip_list_new(globs, &bts_step_of(s)->skip);
}

/* Also after a failed step_open(): what it made is freed. */
static void step_close(struct bts_session *s)
{
	struct bts_step_session *ss = s->src;

	if (!ss)
		return;
	bts_skip_list_free(ss->skip);
	bts_insn_cache_free(ss->icache);
	bts_block_cache_free(ss->bcache);
	free(ss);
	s->src = NULL;
}


static int step_add(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = calloc(1, sizeof(*st));

	if (!st)
		return bts_fail(BTS_E_NOMEM, "thread %d", (int)t->tid);
	(void)s;
	st->stepping = true;
	st->resume_op = PTRACE_SINGLESTEP;
	t->src = st;
	return 0;
}

static void step_detach(struct bts_session *s, struct bts_thread *t)
{
	(void)s;
	free(t->src);
	t->src = NULL;
}

static void step_untrace(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);

	(void)s;
	st->stepping = false;
	st->fast = false;
	st->has_pending = false;
}

static bool step_recording(struct bts_session *s, const struct bts_thread *t)
{
	(void)s;
	return bts_step_thr(t)->stepping;
}

/* The direct jumps it ran come first; from its exit on it runs untraced. */
static void step_exiting(struct bts_session *s, struct bts_thread *t)
{
	bts_fast_sync(s, t);
	bts_step_thr(t)->stepping = false;
}

static int step_pick(int want, int mode)
{
	(void)mode;
	return want == 0 || want == BTS_SOURCE_AUTO ||
	       want == PTBTS_SOURCE_PTRACE_STEP ? PTBTS_SOURCE_PTRACE_STEP : 0;
}

/*
 * The session's part of an exec first (the process's EXEC chunk, its new
 * memory without our int3s); then the new image is stepped from its entry.
 */
static void step_exec(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	uint64_t entry;
	int is64 = bts_proc_exec(s, t, &entry);

	bts_proc_exec_memory(s, t);
	if (!entry)
		return;		/* gone meanwhile: its exit is on the way */
	bts_thread_emit(s, t, 0, entry, PTBTS_KIND_EXEC);
	st->in_gap = false;
	/* What the skip list knows is of the main process's image. */
	if (bts_thread_pid(s, t) == s->pid)
		bts_skip_forget(s);
	if (t->ring.mode == PTBTS_MODE_BLOCK)
		bts_thread_drain(s, t);	/* the old image's records first */
	bts_maps_write_all(s);
	if (is64 < 0) {
		/* Not an ELF we know: run on untraced, keep the exit status. */
		bts_thread_emit(s, t, 0, PTBTS_GAP_DISABLED, PTBTS_KIND_GAP);
		step_untrace(s, t);
		return;
	}
	bts_step_start(s, t);
}

/*
 * Its own step or branch stop; untraced (a debugger that has not enabled
 * branch tracing yet), only the debugger's single step.
 */
static int step_resume_request(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);

	if (st->stepping)
		return st->resume_op;
	if (bts_step_of(s)->lazy && t->ctl_step)
		return PTRACE_SINGLESTEP;
	return PTRACE_CONT;
}

static int step_signal_stop(struct bts_session *s, struct bts_thread *t,
			    const struct bts_stop_event *ev)
{
	if (ev->kind == BTS_EV_STEP) {
		bts_step_trap(s, t);
		return 0;
	}
	return bts_step_signal(s, t, ev->sig, &ev->si);
}

static bool step_own_stop(struct bts_session *s, struct bts_thread *t,
			  const struct bts_stop_event *ev)
{
	struct bts_step_thread *st = bts_step_thr(t);

	switch (ev->kind) {
	case BTS_EV_SYSCALL:
		bts_fast_syscall(s, t);
		return true;
	case BTS_EV_STEP:
		bts_step_trap(s, t);
		return true;
	case BTS_EV_TRAP:
		return st->stepping && bts_fast_site(s, t, &ev->si);
	default:
		return false;
	}
}

/*
 * A thread held while an int3 was out (step_hold.c) has its report kept.
 * Once every thread is stopped no one can pass a site unseen, so a lifted
 * int3 goes back in for the held ones' turn.
 */
static bool step_held(struct bts_session *s, bool all_stopped, pid_t *tid,
		      int *status)
{
	if (bts_lift_next(s, tid, status))
		return true;
	if (!all_stopped || !bts_step_of(s)->lift_nheld)
		return false;
	for (size_t i = 0; i < s->nthreads; i++)
		bts_fast_relift(s, s->threads[i]);
	return bts_lift_next(s, tid, status);
}

const struct bts_source_ops bts_ptrace_step_ops = {
	.id = PTBTS_SOURCE_PTRACE_STEP,
	.caps = BTS_SRC_ABI32 | BTS_SRC_DEBUGGER | BTS_SRC_PLACE | BTS_SRC_SKIP,
	.pick = step_pick,
	.open = step_open,
	.close = step_close,
	.skip = step_skip,
	.code_changed = bts_step_forget_code,
	.add = step_add,
	.attach = bts_step_start,
	.detach = step_detach,
	.exec = step_exec,
	.untrace = step_untrace,
	.recording = step_recording,
	.resume_request = step_resume_request,
	.signal = step_signal_stop,
	.syscall = bts_fast_syscall,
	.exiting = step_exiting,
	.own_stop = step_own_stop,
	.sync = bts_fast_sync,
	.held = step_held,
	.restore = bts_step_restore,
};
