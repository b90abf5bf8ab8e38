// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The flight recorder's trigger.  At a signal-delivery-stop, a signal is a
 * crash when the kernel is about to end the process with it: its
 * disposition is the default (not in SigCgt, not in SigIgn), its default
 * action terminates, and it is not blocked (a forced fault unblocks
 * itself).  Then every other thread of the process is stopped
 * (PTRACE_INTERRUPT), the crash trace is written (crash_write.c), and the
 * caller delivers the signal: the process dies as it would have without
 * us, core dump included.  Code the source changed is out by then: the
 * source takes its int3s out of a process dying of a signal
 * (step_source.c), and a followed child never had any.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "crash/crash.h"

bool bts_crash_fatal(pid_t tid, int sig, const siginfo_t *si)
{
	if (sig <= 0 || sig == SIGKILL || sig == SIGSTOP)
		return false;
	if (!bts_proc_sig_fatal(tid, sig))
		return false;	/* handled, ignored, or ignored by default */
	/* Sent by a process while blocked: it stays pending, nobody dies now. */
	return !(si->si_code <= 0 && bts_proc_sig_in(tid, "SigBlk", sig));
}

/*
 * A stop that came instead of the interrupt's: the thread's own step or
 * branch stop is taken into its records first (by its source); anything
 * else (a signal of its own) does not matter to a process about to die.
 */
static void stopped_other(struct bts_session *s, struct bts_thread *u,
			  const struct bts_stop_event *ev)
{
	if (!u->started || !s->ops->recording || !s->ops->recording(s, u))
		return;
	bts_session_own_stop(s, u, ev);
}

/* Stops every running thread of @p but @ct; reaps those that end meanwhile. */
static void stop_others(struct bts_session *s, struct bts_proc *p,
			struct bts_thread *ct)
{
	struct bts_stop_event ev;
	int status;
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		struct bts_thread *u = s->threads[i];

		if (u->proc == p && u != ct && u->running)
			ptrace(PTRACE_INTERRUPT, u->tid, 0, 0);
	}
	for (i = 0; i < s->nthreads; ) {
		struct bts_thread *u = s->threads[i];
		pid_t r;

		if (u->proc != p || u == ct || !u->running) {
			i++;
			continue;
		}
		r = waitpid(u->tid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			u->running = false;
			continue;
		}
		bts_stop_decode(r, status, &ev);
		if (bts_ev_gone(&ev)) {
			bts_reap(s, u, status);	/* removes it: i stays */
			continue;
		}
		u->running = false;
		stopped_other(s, u, &ev);
		i++;
	}
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->proc == p)
			bts_session_sync(s, s->threads[i]);
}

/* The others run on (to their end, with the process). */
static void resume_others(struct bts_session *s, struct bts_proc *p,
			  struct bts_thread *ct)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		struct bts_thread *u = s->threads[i];

		if (u->proc == p && u != ct && !u->running && u->started)
			bts_resume(s, u, 0);
	}
}

static void set_error(struct bts_proc *p, const char *path, int err)
{
	free(p->crash_error);
	if (asprintf(&p->crash_error, "%s: %s", path ? path : "crash trace",
		     bts_errdetail()) < 0)
		p->crash_error = NULL;
	p->pub.crash_error = p->crash_error;
	(void)err;
}

void bts_crash_check(struct bts_session *s, struct bts_thread *t, int sig,
		     const siginfo_t *si)
{
	struct bts_proc *p = t->proc;
	struct bts_thread *ct = t;
	const char *exe = p ? p->exe : NULL;
	siginfo_t own = *si;
	char *path;
	int err;

	if (!p || p->pub.crash_signal || t->shadow ||
	    !bts_crash_fatal(t->tid, sig, si))
		return;
	p->pub.crash_signal = sig;
	stop_others(s, p, t);
	if (s->ops->crash)
		ct = s->ops->crash(s, t, sig, &own, &exe);
	path = bts_crash_name(s->crash_pattern, p->pub.pid, exe);
	if (path && bts_crash_refused(p->pub.pid)) {
		set_error(p, path, -BTS_E_PERM);
		free(path);
	} else if (!path) {
		set_error(p, NULL, bts_fail(BTS_E_NOMEM, "file name"));
	} else {
		err = bts_crash_write(s, p, ct, sig, &own, exe, path);
		if (err) {
			set_error(p, path, err);
			free(path);
		} else {
			p->crash_file = path;
			p->pub.crash_file = path;
		}
	}
	resume_others(s, p, t);
}

/* core_pattern's way: %p the pid, %e the program's file name, %% a '%'. */
char *bts_crash_name(const char *pattern, pid_t pid, const char *exe)
{
	const char *base = exe ? strrchr(exe, '/') : NULL;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	base = base ? base + 1 : exe;
	if (!base || !*base)
		base = "unknown";
	if (!pattern || !*pattern)
		pattern = "btrace-crash.%e.%p.btr";
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (const char *c = pattern; *c; c++) {
		if (*c != '%' || !c[1]) {
			fputc(*c, f);
			continue;
		}
		switch (*++c) {
		case 'p':
			fprintf(f, "%d", (int)pid);
			break;
		case 'e':
			fputs(base, f);
			break;
		case '%':
			fputc('%', f);
			break;
		default:
			fputc('%', f);
			fputc(*c, f);
			break;
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}
