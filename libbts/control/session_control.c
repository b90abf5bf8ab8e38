// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A debugger's control of a recording session: the inferior of the gdb
 * stub.  The program keeps being recorded by its source while a debugger
 * stops it, steps it, plants breakpoints and reads its memory.
 *
 * All-stop, as gdb's remote protocol wants it: when one thread has an
 * event the debugger cares about (its breakpoint, a completed step, a
 * signal, an interrupt), every other thread is interrupted and held.  The
 * session's own event loop still handles every report, so the records stay
 * exact; a held thread is one that bts_resume() leaves stopped (the hold
 * hook registered with the session), keeping the signal it would have been
 * resumed with.
 *
 * The debugger's breakpoints are int3s in the source's table
 * (breakpoints.h), so that bts_read_code() hides them like the source's
 * own, and one int3 serves both when a branch site and a breakpoint share
 * an address.  A trap at one of the debugger's addresses is the debugger's
 * before the source looks at it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control/control_events.h"
#include "control/control_source.h"
#include "session/session.h"
#include "util/array.h"
#include "util/opts.h"

struct bts_control {
	struct bts_session *s;
	const struct bts_ctl_source *src;	/* what its source does */
	bool hold_all;		/* stopping everything: hold whoever stops */
	int sigfd;		/* SIGCHLD: a report is waiting */
	sigset_t oldmask;
	uint64_t *bps;		/* the debugger's breakpoints */
	size_t nbps, capbps;
	/*
	 * A stop with no thread event of its own (an interrupt, nothing
	 * left running); kind 0: none.  Thread events are in @q.
	 */
	struct bts_stop ev;
	bool fresh;		/* a thread had an event while running */
	bool resuming;		/* resumes queued since the last wait */
	struct ctl_queues q;	/* pending events, queued resumes */
};

/* ------------------------------------------ hooks given to the session */

static bool hook_hold(void *arg, struct bts_thread *t, int sig)
{
	struct bts_control *c = arg;

	if (t->shadow || !(t->held || c->hold_all))
		return false;
	t->held = true;
	t->held_sig = sig;
	t->running = false;
	return true;
}

static bool user_bp(const struct bts_control *c, uint64_t addr)
{
	size_t i;

	for (i = 0; i < c->nbps; i++)
		if (c->bps[i] == addr)
			return true;
	return false;
}

static bool hook_stop_at(void *arg, struct bts_thread *t, uint64_t pc)
{
	struct bts_control *c = arg;

	return t->held || c->hold_all || user_bp(c, pc);
}

/* ------------------------------------------------------------- threads */

static bool is_live(const struct bts_thread *t)
{
	return !t->shadow;
}

static struct bts_thread *thread(struct bts_control *c, pid_t tid)
{
	struct bts_thread *t = bts_thread_find(c->s, tid);

	return t && is_live(t) ? t : NULL;
}

static size_t nlive(const struct bts_control *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->s->nthreads; i++)
		n += is_live(c->s->threads[i]);
	return n;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

size_t bts_control_threads(struct bts_control *c, pid_t *tids, size_t n)
{
	struct bts_session *s = c->s;
	size_t i, k = 0, main = 0;

	for (i = 0; i < s->nthreads; i++) {
		if (!is_live(s->threads[i]))
			continue;
		if (k < n)
			tids[k] = s->threads[i]->tid;
		k++;
	}
	if (k > n)
		return k;
	/* The main thread first, then by id: the order gdb numbers them in. */
	qsort(tids, k, sizeof(*tids), cmp_tid);
	for (i = 0; i < k; i++)
		if (tids[i] == s->pid)
			main = i;
	for (i = main; i > 0; i--)
		tids[i] = tids[i - 1];
	if (k && main)
		tids[0] = s->pid;
	return k;
}

pid_t bts_control_pid(const struct bts_control *c)
{
	return c->s->pid;
}

bool bts_control_spawned(const struct bts_control *c)
{
	return c->s->spawned;
}

struct bts_session *bts_control_session(struct bts_control *c)
{
	return c->s;
}

/* -------------------------------------------------------------- events */

static void set_event(struct bts_control *c, int kind, pid_t tid, int sig)
{
	if (c->ev.kind)
		return;		/* one event at a time: the first one wins */
	c->ev.kind = kind;
	c->ev.tid = tid;
	c->ev.signo = sig;
	c->ev.status = 0;
}

/*
 * A thread's own event.  Every one is kept until it is reported: when
 * several threads have one by the time all are stopped, the others are
 * reported at later resumes (control_events.h).
 */
static void thread_event(struct bts_control *c, int kind, pid_t tid, int sig,
			 uint64_t pc)
{
	c->fresh = true;
	if (ctl_event_add(&c->q, tid, kind, sig, pc))
		set_event(c, kind, tid, sig);	/* no memory: report it at least */
}

/*
 * A trap at one of the debugger's breakpoints: the thread stands on it
 * (pc set back over the int3), every direct jump of its block before it
 * recorded, and held.  When another event is reported first the hit stays
 * pending; should the debugger remove the breakpoint meanwhile, the hit is
 * dropped and the thread, already on the right pc, runs on from there.
 */
static bool at_user_bp(struct bts_control *c, struct bts_thread *t)
{
	struct user_regs_struct regs;

	if (!c->nbps || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) ||
	    !user_bp(c, regs.rip - 1))
		return false;
	regs.rip--;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs))
		return false;
	bts_session_sync(c->s, t);
	t->ctl_step = false;
	t->held = true;
	t->held_sig = 0;
	t->running = false;
	thread_event(c, BTS_STOP_BREAKPOINT, t->tid, SIGTRAP, regs.rip);
	return true;
}

static bool is_site_trap(struct bts_control *c, struct bts_thread *t)
{
	struct user_regs_struct regs;

	return bts_thread_getregs(c->s, t, &regs) == 0 &&
	       bts_bp_lookup(&c->s->bps, regs.rip - 1, NULL);
}

/*
 * An exec: the session takes the new image on (its source starts again at
 * the entry), the thread is held there and the debugger hears of it.  The
 * debugger's breakpoints went with the old image; it sets them again.
 */
static void on_exec(struct bts_control *c, const struct bts_stop_event *ev)
{
	bool hold = c->hold_all;

	c->nbps = 0;
	c->hold_all = true;	/* whoever the session resumes stays */
	bts_session_dispatch(c->s, ev);
	c->hold_all = hold;
	ctl_event_drop(&c->q, c->s->pid);
	if (thread(c, c->s->pid))
		thread_event(c, BTS_STOP_EXEC, c->s->pid, SIGTRAP, 0);
}

/*
 * One stop: what it means to the debugger is decided first, then the
 * session handles it as always (and holds the thread).
 */
static void on_event(struct bts_control *c, const struct bts_stop_event *ev)
{
	struct bts_thread *t = bts_thread_find(c->s, ev->tid);
	pid_t tid = ev->tid;
	int sig = ev->sig;

	/* A vfork child's exec (a shadow) is no concern of the debugger's. */
	if (ev->kind == BTS_EV_EXEC && !(t && t->shadow)) {
		on_exec(c, ev);
		return;
	}
	if (t && c->hold_all && ev->kind == BTS_EV_GROUP_STOP) {
		/*
		 * Interrupted in a job-control stop: it stays stopped here
		 * rather than LISTENing again, which would never report.
		 */
		t->running = false;
		t->held = true;
		t->held_sig = 0;
		return;
	}
	if (!t || !is_live(t) || !t->started || !bts_ev_sigstop(ev)) {
		bts_session_dispatch(c->s, ev);
		return;
	}
	if (ev->kind == BTS_EV_TRAP && at_user_bp(c, t))
		return;
	if (ev->kind == BTS_EV_STEP) {
		bool to_session;

		/* The end of a debugger's step, or the source's own trap. */
		if (c->src->stepped(c, t, &to_session))
			thread_event(c, BTS_STOP_STEP, tid, SIGTRAP, 0);
		if (!to_session)
			return;
	} else if (ev->si.si_code == SI_TKILL && ev->si.si_pid == getpid() &&
		   ctl_inject_take(&c->q, tid, sig)) {
		/*
		 * The debugger's own signal (inject()): delivered as it asked,
		 * its handler's entry recorded as for the program's signals.
		 */
	} else if (!(ev->kind == BTS_EV_TRAP && is_site_trap(c, t))) {
		/* A signal of the program's: the debugger sees it first. */
		t->ctl_step = false;
		t->held = true;
		thread_event(c, BTS_STOP_SIGNAL, tid, sig, 0);
	}
	bts_session_dispatch(c->s, ev);
}

/* One waitpid() report, decoded. */
static void on_report(struct bts_control *c, pid_t tid, int status)
{
	struct bts_stop_event ev;

	bts_stop_decode(tid, status, &ev);
	on_event(c, &ev);
}

/*
 * The next report: first one a thread held while an int3 was out gave
 * (step_hold.c), as bts_session_run() takes them, then waitpid's.
 */
static pid_t next_report(struct bts_control *c, int *status, int flags)
{
	pid_t tid;

	if (bts_session_held(c->s, false, &tid, status))
		return tid;
	return waitpid(-1, status, __WALL | flags);
}

/* Whether the source keeps @t's report back: it is stopped then. */
static bool report_kept(const struct bts_control *c, const struct bts_thread *t)
{
	return c->src->report_kept &&
	       c->src->report_kept(c, t);
}

/* A thread whose report the source keeps is stopped. */
static bool all_stopped(const struct bts_control *c)
{
	size_t i;

	for (i = 0; i < c->s->nthreads; i++) {
		const struct bts_thread *t = c->s->threads[i];

		if (is_live(t) && !report_kept(c, t) &&
		    (t->running || !t->started))
			return false;
	}
	return true;
}

/* All-stop: every thread interrupted, its report handled, and held. */
static void stop_all(struct bts_control *c)
{
	int status;
	size_t i;
	pid_t tid;

	c->hold_all = true;
	/*
	 * A thread stepping with its int3 out is not interrupted: its step
	 * reports at once, and puts the int3 back, so that the threads held
	 * meanwhile (step_hold.c) have their reports handled here too.
	 */
	for (i = 0; i < c->s->nthreads; i++)
		if (is_live(c->s->threads[i]) && c->s->threads[i]->running &&
		    !(c->src->reports_soon &&
		      c->src->reports_soon(c, c->s->threads[i])))
			ptrace(PTRACE_INTERRUPT, c->s->threads[i]->tid, 0, 0);
	for (;;) {
		if (bts_session_held(c->s, false, &tid, &status)) {
			on_report(c, tid, status);
			continue;
		}
		if (all_stopped(c))
			break;
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		on_report(c, tid, status);
	}
	c->hold_all = false;
	for (i = 0; i < c->s->nthreads; i++) {
		struct bts_thread *t = c->s->threads[i];

		if (!is_live(t) || t->running)
			continue;
		/* Stopped before the debugger came, or by now: held alike. */
		t->held = true;
		if (report_kept(c, t))
			continue;	/* its report is still to be handled */
		/* The direct jumps run so far, for a reader of the records. */
		bts_session_sync(c->s, t);
	}
}

static bool any_running(const struct bts_control *c)
{
	size_t i;

	for (i = 0; i < c->s->nthreads; i++)
		if (is_live(c->s->threads[i]) &&
		    (c->s->threads[i]->running || !c->s->threads[i]->started))
			return true;
	return false;
}

static void exited(struct bts_control *c, struct bts_stop *st)
{
	memset(st, 0, sizeof(*st));
	st->kind = BTS_STOP_EXITED;
	st->tid = c->s->pid;
	st->status = c->s->exited ? c->s->status : 0;
}

/* A held thread to blame for a stop that has no thread of its own. */
static pid_t some_thread(struct bts_control *c)
{
	size_t i;

	if (thread(c, c->ev.tid))
		return c->ev.tid;
	if (thread(c, c->s->pid))
		return c->s->pid;
	for (i = 0; i < c->s->nthreads; i++)
		if (is_live(c->s->threads[i]))
			return c->s->threads[i]->tid;
	return c->s->pid;
}

/*
 * The event to report, every thread being stopped: a due thread event
 * (control_events.h picks which), else the stop's own.  Any stop answers
 * an interrupt.
 */
static bool take_event(struct bts_control *c, struct bts_stop *st)
{
	struct ctl_event e;

	while (ctl_event_take(&c->q, &e)) {
		if (!thread(c, e.tid))
			continue;	/* gone meanwhile */
		memset(st, 0, sizeof(*st));
		st->kind = e.kind;
		st->tid = e.tid;
		st->signo = e.sig;
		memset(&c->ev, 0, sizeof(c->ev));
		return true;
	}
	if (!c->ev.kind)
		return false;
	if (!thread(c, c->ev.tid))
		c->ev.tid = some_thread(c);
	*st = c->ev;
	memset(&c->ev, 0, sizeof(c->ev));
	return true;
}

static void run_queued(struct bts_control *c);
static void keep_signals(struct bts_control *c);

static int control_wait(struct bts_control *c, int wake_fd, struct bts_stop *st)
{
	struct signalfd_siginfo ssi;
	struct pollfd pfd[2];
	int status, n;
	pid_t tid;

	if (c->resuming) {
		c->resuming = false;
		c->fresh = false;
		/* A resumed thread's pending event: reported, nothing runs. */
		if (nlive(c) && take_event(c, st)) {
			keep_signals(c);
			return 0;
		}
		run_queued(c);
	}
	for (;;) {
		if (!nlive(c)) {
			exited(c, st);
			return 0;
		}
		if (c->fresh || c->ev.kind) {
			stop_all(c);
			c->fresh = false;
			if (!nlive(c)) {
				exited(c, st);
				return 0;
			}
			if (take_event(c, st))
				return 0;
			continue;	/* its thread is gone: the others are held */
		}
		tid = next_report(c, &status, WNOHANG);
		if (tid > 0) {
			on_report(c, tid, status);
			continue;
		}
		if (tid < 0 && errno == EINTR)
			continue;
		if (tid < 0) {
			/* Nothing traced is left to report (ECHILD). */
			while (c->s->nthreads)
				bts_thread_remove(c->s, c->s->threads[0]);
			continue;
		}
		if (!any_running(c)) {
			/* Whatever was resumed is gone: the others stay stopped. */
			set_event(c, BTS_STOP_INTERRUPT, some_thread(c), 0);
			continue;
		}
		pfd[0] = (struct pollfd){ .fd = c->sigfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
		n = poll(pfd, wake_fd >= 0 ? 2 : 1, -1);
		if (n < 0 && errno != EINTR)
			return bts_fail_errno(BTS_E_INTERNAL, "poll");
		if (n <= 0)
			continue;
		if (pfd[0].revents)
			while (read(c->sigfd, &ssi, sizeof(ssi)) > 0)
				;
		if (wake_fd >= 0 && pfd[1].revents && !pfd[0].revents) {
			memset(st, 0, sizeof(*st));
			st->kind = BTS_STOP_WAKE;
			return 0;
		}
	}
}

int bts_control_wait(struct bts_control *c, int wake_fd, struct bts_stop *out,
		     size_t size)
{
	struct bts_stop st = { 0 };
	int ret;

	if (!out || !size)
		return bts_fail(BTS_E_INVAL, "stop: no room to fill");
	ret = control_wait(c, wake_fd, &st);
	if (ret >= 0)
		BTS_OUT_FILL(out, size, &st, "stop");
	return ret;
}

void bts_control_interrupt(struct bts_control *c)
{
	set_event(c, BTS_STOP_INTERRUPT, some_thread(c), SIGINT);
}

/* ------------------------------------------------------------ resuming */

/*
 * A pending breakpoint hit that no longer holds: the debugger removed the
 * breakpoint or moved the thread.  gdbserver drops those too.
 */
static bool stale(struct bts_control *c, struct bts_thread *t,
		  const struct ctl_event *e)
{
	struct user_regs_struct regs;

	if (e->kind != BTS_STOP_BREAKPOINT)
		return false;
	return !user_bp(c, e->pc) || bts_thread_getregs(c->s, t, &regs) ||
	       regs.rip != e->pc;
}

/*
 * Queued, not done: when a thread resumed has a pending event, the next
 * wait reports it and no thread runs (gdbserver's rule), so nothing may
 * have run by then.
 */
int bts_control_resume(struct bts_control *c, pid_t tid, int action, int sig)
{
	struct bts_thread *t = thread(c, tid);
	struct ctl_event *e;

	if (!t)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	if (sig < 0 || sig >= 65)
		return bts_fail(BTS_E_INVAL, "signal %d", sig);
	if (action != BTS_RESUME_STEP && action != BTS_RESUME_CONT)
		return bts_fail(BTS_E_INVAL, "resume action %d", action);
	if (!c->resuming) {
		c->resuming = true;
		c->q.nrs = 0;
		ctl_event_undue(&c->q);
	}
	if (!t->held)
		return 0;	/* resumed already */
	e = ctl_event_find(&c->q, tid);
	if (e && stale(c, t, e)) {
		ctl_event_drop(&c->q, tid);
		e = NULL;
	}
	if (e) {
		e->due = true;
		return 0;
	}
	if (ctl_resume_add(&c->q, tid, action, sig))
		return bts_fail(BTS_E_NOMEM, "resume of thread %d", (int)tid);
	return 0;
}

/*
 * A signal the debugger gives @t other than the one it stopped with.  A
 * resume passes a signal only from a signal-delivery-stop, and the source
 * would not see it go in: so it is sent (tgkill), and its delivery stop
 * comes back as a signal of the program's, whose handler entry the source
 * records (from the interrupted pc).  The signal @t stopped with is
 * dropped, as the resume would have dropped it.
 */
void bts_control_inject(struct bts_control *c, struct bts_thread *t, int sig)
{
	if (t->held_sig && c->src->drop_signal)
		c->src->drop_signal(c, t);
	t->held_sig = 0;
	if (!syscall(SYS_tgkill, c->s->pid, t->tid, sig) &&
	    ctl_inject_add(&c->q, t->tid, sig))
		bts_fail(BTS_E_NOMEM, "signal for thread %d", (int)t->tid);
}

/*
 * Resumes not carried out (a pending event is reported instead): their
 * signals are delivered all the same, as the debugger believes they were.
 */
static void keep_signals(struct bts_control *c)
{
	size_t i;

	for (i = 0; i < c->q.nrs; i++) {
		struct bts_thread *t = thread(c, c->q.rs[i].tid);

		if (t && t->held && c->q.rs[i].sig)
			bts_control_inject(c, t, c->q.rs[i].sig);
	}
	c->q.nrs = 0;
}

static void run_resume(struct bts_control *c, const struct ctl_resume *r)
{
	struct bts_thread *t = thread(c, r->tid);

	if (!t || !t->held)
		return;
	if (report_kept(c, t)) {
		/* Its report, handed on once the int3 is back, resumes it. */
		t->held = false;
		return;
	}
	c->src->resume(c, t, r->action, r->sig);
}

static void run_queued(struct bts_control *c)
{
	size_t i;

	for (i = 0; i < c->q.nrs; i++)
		run_resume(c, &c->q.rs[i]);
	c->q.nrs = 0;
}

/* ------------------------------------------------------ registers, memory */

int bts_control_getregs(struct bts_control *c, pid_t tid, struct bts_regs *r)
{
	struct user_regs_struct regs;

	struct bts_thread *t = thread(c, tid);
	int err;

	_Static_assert(sizeof(regs) == sizeof(*r), "bts_regs is user_regs_struct");
	if (!t)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	err = bts_thread_getregs(c->s, t, &regs);
	if (err)
		return bts_fail(BTS_E_SRCH, "registers of %d: %s", (int)tid,
				strerror(-err));
	memcpy(r, &regs, sizeof(regs));
	return 0;
}

/* New registers: the source starts again from them. */
int bts_control_setregs(struct bts_control *c, pid_t tid,
			const struct bts_regs *r)
{
	struct bts_thread *t = thread(c, tid);
	struct user_regs_struct regs;

	if (!t || !t->held)
		return bts_fail(BTS_E_SRCH, "no stopped thread %d", (int)tid);
	memcpy(&regs, r, sizeof(regs));
	return c->src->setregs(c, t, &regs);
}

int bts_control_getfpregs(struct bts_control *c, pid_t tid, void *fxsave)
{
	struct user_fpregs_struct fp;

	_Static_assert(sizeof(fp) == BTS_FXSAVE_SIZE, "fxsave area");
	if (!thread(c, tid))
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	if (ptrace(PTRACE_GETFPREGS, tid, 0, &fp))
		return bts_fail_errno(BTS_E_SRCH, "fp registers of %d", (int)tid);
	memcpy(fxsave, &fp, sizeof(fp));
	return 0;
}

int bts_control_setfpregs(struct bts_control *c, pid_t tid, const void *fxsave)
{
	struct user_fpregs_struct fp;
	struct bts_thread *t = thread(c, tid);

	if (!t || !t->held)
		return bts_fail(BTS_E_SRCH, "no stopped thread %d", (int)tid);
	memcpy(&fp, fxsave, sizeof(fp));
	if (ptrace(PTRACE_SETFPREGS, tid, 0, &fp))
		return bts_fail_errno(BTS_E_INVAL, "fp registers of %d", (int)tid);
	return 0;
}

ssize_t bts_control_read(struct bts_control *c, uint64_t addr, void *buf,
			 size_t len)
{
	if (!nlive(c))
		return bts_fail(BTS_E_SRCH, "no process");
	return bts_read_code(c->s, c->s->pid, addr, buf, len);
}

static int plant(struct bts_control *c, uint64_t addr)
{
	uint8_t cur;
	int r;

	if (c->s->bps.pid != c->s->pid)
		bts_bp_set_pid(&c->s->bps, c->s->pid);
	r = bts_bp_plant(&c->s->bps, addr);
	if (r == -2)
		r = bts_bp_plant(&c->s->bps, addr);
	/* The program's own int3 there traps just as well. */
	if (r == -1 && bts_read_code(c->s, c->s->pid, addr, &cur, 1) == 1 &&
	    cur == BTS_INT3)
		r = 0;
	return r;
}

/* Whether a thread's source counts on the int3 at @addr. */
static bool site_in_use(struct bts_control *c, uint64_t addr)
{
	return c->src->site_in_use && c->src->site_in_use(c, addr);
}

/*
 * A write to the program's memory: the int3s in the range come out first
 * (the bytes written are the new originals), the debugger's go back in,
 * and the source decodes the code again.
 */
ssize_t bts_control_write(struct bts_control *c, uint64_t addr,
			  const void *buf, size_t len)
{
	struct bts_session *s = c->s;
	char path[64];
	ssize_t n;
	size_t i;
	int fd;

	if (!nlive(c))
		return bts_fail(BTS_E_SRCH, "no process");
	if (!len)
		return 0;
	if (addr + len < addr)
		return bts_fail(BTS_E_INVAL, "range wraps");
	bts_bp_remove_range(&s->bps, addr, addr + len);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)s->pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return bts_fail_errno(BTS_E_IO, "%s", path);
	n = pwrite(fd, buf, len, (off_t)addr);
	close(fd);
	if (s->ops->code_changed)
		s->ops->code_changed(s);
	for (i = 0; i < c->nbps; i++)
		if (c->bps[i] >= addr && c->bps[i] - addr < len)
			plant(c, c->bps[i]);
	if (c->src->code_written)
		c->src->code_written(c, addr, len);
	if (n < 0)
		return bts_fail_errno(BTS_E_IO, "writing at 0x%llx",
				      (unsigned long long)addr);
	return n;
}

int bts_control_insert_bp(struct bts_control *c, uint64_t addr)
{
	if (!nlive(c))
		return bts_fail(BTS_E_SRCH, "no process");
	if (user_bp(c, addr))
		return 0;
	if (plant(c, addr))
		return bts_fail(BTS_E_IO, "cannot write a breakpoint at 0x%llx",
				(unsigned long long)addr);
	if (BTS_ARRAY_RESERVE(c->bps, c->capbps, c->nbps + 1)) {
		if (!site_in_use(c, addr))
			bts_bp_remove(&c->s->bps, addr);
		return bts_fail(BTS_E_NOMEM, "breakpoints");
	}
	c->bps[c->nbps++] = addr;
	return 0;
}

int bts_control_remove_bp(struct bts_control *c, uint64_t addr)
{
	size_t i;

	for (i = 0; i < c->nbps; i++) {
		if (c->bps[i] != addr)
			continue;
		c->bps[i] = c->bps[--c->nbps];
		if (!site_in_use(c, addr))
			bts_bp_remove(&c->s->bps, addr);
		return 0;
	}
	return 0;
}

/* ------------------------------------------------------------- records */

int bts_control_trace(struct bts_control *c, pid_t tid, uint64_t *oldest,
		      uint64_t *written)
{
	struct bts_thread *t = thread(c, tid);

	if (!t)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	return c->src->trace(c, t, oldest, written);
}

int bts_control_record(struct bts_control *c, pid_t tid, uint64_t n,
		       struct ptbts_record *rec)
{
	struct bts_thread *t = thread(c, tid);

	if (!t)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	return c->src->record(c, t, n, rec);
}

int bts_control_btrace_enable(struct bts_control *c, pid_t tid, uint64_t size,
			      uint64_t *actual)
{
	struct bts_thread *t = c ? thread(c, tid) : NULL;

	if (!t || !actual)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	return c->src->enable(c, t, size, actual);
}

int bts_control_btrace_disable(struct bts_control *c, pid_t tid)
{
	struct bts_thread *t = c ? thread(c, tid) : NULL;

	if (!t)
		return bts_fail(BTS_E_SRCH, "no thread %d", (int)tid);
	if (c->src->disable)
		c->src->disable(c, t);
	return 0;
}

/* ------------------------------------------------------ life and death */

/* The sources a debugger can drive, and what each does differently. */
static const struct bts_ctl_source *const ctl_sources[] = {
	&bts_ctl_ptrace_step,
	&bts_ctl_kmod_step,
};

static const struct bts_ctl_source *ctl_source(const struct bts_session *s)
{
	if (!(s->ops->caps & BTS_SRC_DEBUGGER))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(ctl_sources); i++)
		if (ctl_sources[i]->id == s->source)
			return ctl_sources[i];
	return NULL;
}

int bts_control_new(struct bts_session *s, struct bts_control **out)
{
	const struct bts_ctl_source *src;
	struct bts_control *c;
	sigset_t mask;

	if (!s || !out)
		return bts_fail(BTS_E_INVAL, "control: no session");
	src = ctl_source(s);
	if (!src)
		return bts_fail(BTS_E_NOSOURCE, "a debugger can drive the ptrace-step "
				"and kmod-step sources only, not %s",
				bts_source_name(s->source));
	if (s->hooks.arg)
		return bts_fail(BTS_E_INVAL, "the session has a debugger already");
	c = calloc(1, sizeof(*c));
	if (!c)
		return bts_fail(BTS_E_NOMEM, "control");
	/* SIGCHLD through a descriptor, to wait for it and the debugger at once. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &c->oldmask)) {
		free(c);
		return bts_fail_errno(BTS_E_INTERNAL, "sigprocmask");
	}
	c->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->sigfd < 0) {
		sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
		free(c);
		return bts_fail_errno(BTS_E_INTERNAL, "signalfd");
	}
	c->s = s;
	c->src = src;
	s->hooks = (struct bts_session_hooks){
		.hold = hook_hold, .stop_at = hook_stop_at, .arg = c,
	};
	if (src->init)
		src->init(c);
	/* Whatever runs (an attach's threads on their way to a stop) stops. */
	stop_all(c);
	if (src->ready)
		src->ready(c);
	*out = c;
	return 0;
}

int bts_control_kill(struct bts_control *c)
{
	struct bts_session *s = c->s;
	int status;
	size_t i;
	pid_t tid;

	for (i = 0; i < s->nthreads; i++)
		s->threads[i]->held = false;
	c->hold_all = false;
	memset(&c->ev, 0, sizeof(c->ev));
	ctl_queues_clear(&c->q);
	c->resuming = c->fresh = false;
	kill(s->pid, SIGKILL);
	bts_fork_kill_shadows(s);
	while (s->nthreads) {
		tid = next_report(c, &status, 0);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			while (s->nthreads)
				bts_thread_remove(s, s->threads[0]);
			break;
		}
		bts_session_report(s, tid, status);
	}
	return 0;
}

/* Every thread let go of: the session works on its own again. */
static void release(struct bts_control *c)
{
	struct bts_session *s = c->s;
	size_t i;

	if (s->hooks.arg != c)
		return;
	for (i = 0; i < c->nbps; i++)
		if (!site_in_use(c, c->bps[i]))
			bts_bp_remove(&s->bps, c->bps[i]);
	for (i = 0; i < s->nthreads; i++) {
		struct bts_thread *t = s->threads[i];

		if (t->held && t->held_sig)
			t->detach_sig = t->held_sig;
		t->held = false;
		t->held_sig = 0;
		t->ctl_step = false;
	}
	c->nbps = 0;
	ctl_queues_clear(&c->q);
	c->resuming = c->fresh = false;
	memset(&s->hooks, 0, sizeof(s->hooks));
}

int bts_control_detach(struct bts_control *c)
{
	release(c);
	return bts_detach_all(c->s);
}

void bts_control_free(struct bts_control *c)
{
	if (!c)
		return;
	release(c);
	close(c->sigfd);
	sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
	ctl_queues_free(&c->q);
	free(c->bps);
	free(c);
}
