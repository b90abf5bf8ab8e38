// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Children the tracee forks are not traced, but with PTRACE_O_TRACEFORK
 * and _TRACEVFORK they stop once, auto-attached, so that none of our int3s
 * reaches them: a fork child has a copy of the memory, int3s included,
 * and gets the original bytes written back before it is let go; a vfork
 * child shares the memory (and so the int3s) while its parent waits, so it
 * is run through like a thread, its records dropped, until it execs (then
 * let go) or exits.
 *
 * The child's first stop and its parent's event come in either order: a
 * stop of an unknown task of another thread group waits here for the event.
 */
#include <errno.h>
#include <sys/ptrace.h>

#include "session.h"

static struct bts_fork *find(struct bts_session *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->nforks; i++)
		if (s->forks[i].pid == pid)
			return &s->forks[i];
	return NULL;
}

static void drop(struct bts_session *s, struct bts_fork *f)
{
	*f = s->forks[--s->nforks];
}

static struct bts_fork *add(struct bts_session *s, pid_t pid)
{
	struct bts_fork *f;

	if (s->nforks == ARRAY_SIZE(s->forks))
		return NULL;
	f = &s->forks[s->nforks++];
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	return f;
}

/* The child is stopped and known: lets it go without our int3s. */
static void release(struct bts_session *s, pid_t pid, bool vfork)
{
	struct bts_thread *t;

	if (vfork && !s->single && !s->bp_off) {
		if (!bts_thread_add_shadow(s, pid, &t)) {
			bts_step_start(s, t);
			bts_resume(s, t, 0);
			return;
		}
		/* No room to run it through: no int3 anywhere then. */
		bts_bp_remove_all(&s->bps);
		s->bp_off = true;
	}
	if (!vfork)
		bts_bp_clean_copy(&s->bps, pid);
	ptrace(PTRACE_DETACH, pid, 0, 0);
}

void bts_fork_event(struct bts_session *s, struct bts_thread *t, bool vfork)
{
	unsigned long msg = 0;
	struct bts_fork *f;
	pid_t pid;

	if (ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg) || !msg)
		return;
	pid = (pid_t)msg;
	f = find(s, pid);
	if (f && f->stopped) {
		drop(s, f);
		release(s, pid, vfork);
		return;
	}
	if (!f)
		f = add(s, pid);
	if (!f) {
		/* Too many children at once: their first stops cannot wait. */
		bts_bp_remove_all(&s->bps);
		s->bp_off = true;
		return;
	}
	f->known = true;
	f->vfork = vfork;
}

bool bts_fork_child_stop(struct bts_session *s, pid_t tid)
{
	struct bts_fork *f = find(s, tid);
	unsigned long long tgid = 0;

	if (f && f->known) {
		bool vfork = f->vfork;

		drop(s, f);
		release(s, tid, vfork);
		return true;
	}
	if (f)
		return true;
	if (bts_proc_status(tid, "Tgid", 10, &tgid) || (pid_t)tgid == s->pid)
		return false;	/* a thread of ours (or gone) */
	f = add(s, tid);
	if (f) {
		f->stopped = true;
		return true;
	}
	/* No room to wait for its parent's event: a copy without int3s. */
	release(s, tid, false);
	return true;
}

/* A stopped child taken for a fork child turned out to be a clone. */
bool bts_fork_forget(struct bts_session *s, pid_t pid)
{
	struct bts_fork *f = find(s, pid);
	bool stopped = f && f->stopped;

	if (f)
		drop(s, f);
	return stopped;
}

void bts_fork_kill_shadows(struct bts_session *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->shadow)
			kill(s->threads[i]->tid, SIGKILL);
}
