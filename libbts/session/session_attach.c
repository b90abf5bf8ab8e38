// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Attaching to a running process (every thread, seized and interrupted)
 * and detaching from it so that it runs on.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/session.h"

#define ATTACH_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
			PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | \
			PTRACE_O_TRACEVFORK | PTRACE_O_TRACESYSGOOD)

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int fail_perm(pid_t pid)
{
	int scope = yama_scope();

	if (scope >= 1)
		return bts_fail(BTS_E_PERM,
				"cannot trace process %d: /proc/sys/kernel/yama/ptrace_scope is %d "
				"(0 allows tracing any process of yours; or run as root)",
				(int)pid, scope);
	return bts_fail(BTS_E_PERM, "cannot trace process %d: not permitted "
			"(another user's process, or already traced?)", (int)pid);
}

static int seize_one(struct bts_session *s, pid_t tid)
{
	struct bts_thread *t;
	int err;

	if (ptrace(PTRACE_SEIZE, tid, 0, ATTACH_OPTIONS)) {
		if (errno == ESRCH)
			return 0;	/* ended meanwhile */
		if (errno == EPERM && bts_proc_traced_by_self(tid))
			return bts_thread_find(s, tid) ? 0 : bts_thread_add(s, tid, &t);
		if (errno == EPERM)
			return fail_perm(s->pid);
		return bts_fail_errno(BTS_E_PERM, "cannot trace thread %d", (int)tid);
	}
	err = bts_thread_add(s, tid, &t);
	if (err)
		return err;
	t->running = true;	/* until its interrupt stop is reported */
	ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	return 0;
}

/* One pass over /proc/PID/task: how many threads were new, or an error. */
static int seize_pass(struct bts_session *s)
{
	char path[64];
	struct dirent *d;
	int added = 0, err = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	dir = opendir(path);
	if (!dir)
		return bts_fail(BTS_E_SRCH, "no process %d", (int)s->pid);
	while (!err && (d = readdir(dir))) {
		pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

		if (tid <= 0 || bts_thread_find(s, tid))
			continue;
		err = seize_one(s, tid);
		added++;
	}
	closedir(dir);
	return err ? err : added;
}

int bts_attach_check(pid_t pid)
{
	if (pid <= 0)
		return bts_fail(BTS_E_SRCH, "no process %d", (int)pid);
	if (kill(pid, 0) && errno == ESRCH)
		return bts_fail(BTS_E_SRCH, "no process %d", (int)pid);
	if (pid == getpid())
		return bts_fail(BTS_E_PERM, "a process cannot trace itself");
	return 0;
}

int bts_session_attach(const struct bts_session_setup *setup, pid_t pid,
		       struct bts_session **out)
{
	struct bts_session *s;
	struct bts_writer *w;
	int err, n;
	size_t i;

	err = bts_session_new(setup, pid, &s);
	if (err)
		return err;
	/* An emulator's source records only the programs it starts under it. */
	if (s->ops->caps & BTS_SRC_GUEST) {
		err = bts_fail(BTS_E_NOSOURCE, "%s records the programs it starts "
			       "only: no attaching (-p)", bts_source_name(s->source));
		bts_session_free(s);
		return err;
	}
	/* The trace names the process before its threads: they come later. */
	w = s->w;
	s->w = NULL;
	/* Threads may start while we attach: until a pass finds none new. */
	while ((n = seize_pass(s)) > 0)
		;
	s->w = w;
	err = n;
	if (!err && !s->nthreads)
		err = bts_fail(BTS_E_SRCH, "no process %d", (int)pid);
	if (!err) {
		err = bts_proc_is_64bit(pid);
		if (err == 0 && !(s->ops->caps & BTS_SRC_ABI32))
			err = bts_fail(BTS_E_NOEXEC, "process %d is 32-bit: traced by "
				       "ptrace-step or kmod-step only", (int)pid);
	}
	if (err >= 0)
		err = bts_session_write_start(s);
	for (i = 0; err >= 0 && w && i < s->nthreads; i++)
		err = bts_writer_thread(w, pid, s->threads[i]->tid);
	if (err < 0)
		goto detach;
	*out = s;
	return 0;

detach:
	s->w = NULL;
	bts_detach_all(s);
	bts_session_free(s);
	return err;
}

/* ------------------------------------------------------------- detaching */

/*
 * One stop while quiescing: is the thread now stopped with nothing of
 * ours pending?  A completed step's SIGTRAP must be taken off it first, or
 * the detached program would die of it.
 */
static void quiesce_one(struct bts_session *s, struct bts_thread *t,
			const struct bts_stop_event *ev)
{
	struct bts_thread *nt;

	t->running = false;
	if (t->shadow) {
		/*
		 * A vfork child: its parent cannot stop before it execs or
		 * exits, and it shares the memory: every int3 out, let it go.
		 */
		bts_session_restore(s);
		ptrace(PTRACE_DETACH, t->tid, 0, 0);
		bts_thread_remove(s, t);
		return;
	}
	switch (ev->kind) {
	case BTS_EV_STEP:
		if (t->started)
			bts_session_own_stop(s, t, ev);
		return;
	case BTS_EV_SIGNAL:
	case BTS_EV_TRAP:
		if (!t->started || !bts_session_own_stop(s, t, ev))
			t->detach_sig = ev->sig;
		return;
	case BTS_EV_INTERRUPT:
		if (ev->sig == SIGTRAP &&
		    bts_proc_sig_in(t->tid, "SigPnd", SIGTRAP))
			break;	/* take the step's SIGTRAP first */
		return;
	case BTS_EV_CLONE:
		if (ev->msg && !bts_thread_find(s, (pid_t)ev->msg) &&
		    !bts_thread_add(s, (pid_t)ev->msg, &nt))
			nt->running = true;
		return;
	case BTS_EV_EXIT:
		t->exiting = true;
		break;
	default:
		/* A syscall stop has nothing pending; a gone one is reaped. */
		return;
	}
	if (ptrace(PTRACE_CONT, t->tid, 0, 0) == 0 || errno == ESRCH)
		t->running = true;
}

static bool any_running(struct bts_session *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->running)
			return true;
	return false;
}

/*
 * The next report while quiescing.  A report the source kept back comes
 * first, as in bts_session_run(); once every thread is stopped, the
 * source lets the threads it holds have their turn.  The source's wait
 * (kmod BLOCK: a thread waiting for room stops once it has some).
 */
static pid_t quiesce_next(struct bts_session *s, int *status)
{
	pid_t tid;

	if (bts_session_held(s, !any_running(s), &tid, status))
		return tid;
	if (!any_running(s))
		return 0;
	if (s->ops->wait)
		return s->ops->wait(s, status);
	return waitpid(-1, status, __WALL);
}

void bts_quiesce(struct bts_session *s)
{
	struct bts_stop_event ev;
	struct bts_thread *t;
	int status;
	size_t i;
	pid_t tid;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->running)
			ptrace(PTRACE_INTERRUPT, s->threads[i]->tid, 0, 0);
	while ((tid = quiesce_next(s, &status))) {
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		bts_stop_decode(tid, status, &ev);
		t = bts_thread_find(s, tid);
		if (!t && bts_ev_stopped(&ev) && bts_fork_child_stop(s, tid))
			continue;
		if (!t && bts_ev_stopped(&ev) && !bts_thread_add(s, tid, &t))
			t->running = true;
		if (!t)
			continue;
		if (bts_ev_gone(&ev))
			bts_reap(s, t, status);
		else if (bts_ev_stopped(&ev))
			quiesce_one(s, t, &ev);
	}
	/* A thread stopped mid-block: the direct jumps it already ran. */
	for (i = 0; i < s->nthreads; i++)
		if (!s->threads[i]->running)
			bts_session_sync(s, s->threads[i]);
}

int bts_detach_all(struct bts_session *s)
{
	int err = 0;

	bts_quiesce(s);
	bts_session_restore(s);
	bts_procs_restore(s);	/* followed children's code too */
	while (s->nthreads) {
		struct bts_thread *t = s->threads[0];

		if (ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->detach_sig) &&
		    errno != ESRCH && !err)
			err = bts_fail_errno(BTS_E_INTERNAL, "detaching thread %d",
					     (int)t->tid);
		bts_thread_flush(s, t);
		bts_thread_remove(s, t);
	}
	return err;
}
