// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The processes of a session: the main one and, unless following is off,
 * every child it forks, vforks or clones as a process, with their children
 * in turn.  Each process has its own PROCESS chunk, threads, maps and
 * records in the trace, and an exec starts a new image of it (EXEC chunk,
 * then its new maps).
 *
 * Each memory has its own table of the int3s of branch stops: the one of
 * the process whose event is handled is loaded in s->bps (and its bp_off
 * in s->bp_off), the others wait in their process.  A fork child gets a
 * copy of its parent's memory with our int3s in it: the original bytes are
 * written back before it runs, and it starts a table of its own.  A child
 * that shares its parent's memory (vfork, or clone with CLONE_VM but no
 * CLONE_THREAD, told by kcmp) shares its table too, until it execs: the
 * int3s are one set per memory.  The table belongs to one process of the
 * memory (p->mem); when that one execs or ends while others still run in
 * the memory, the table passes to one of them, so that the int3s go only
 * with the memory's last process.  The instruction and block caches hold
 * one address space's code: they are emptied when the session turns to a
 * process with other code.
 *
 * Without following, children stop once (auto-attached) and are let go
 * without our int3s: a fork child with its copy cleaned, a vfork or
 * CLONE_VM child run through as a "shadow" thread, its records dropped,
 * until it execs or exits (or its parent execs: the int3s then come out of
 * the memory it keeps).
 *
 * The child's first stop and its parent's event come in either order: a
 * stop of an unknown task of another thread group waits here for the event
 * (a child in its parent's memory is waited for at the parent's event).
 */
#include <errno.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/session.h"
#include "trace/writer.h"
#include "util/array.h"

/* ------------------------------------------------------------ processes */

static char *read_exe(pid_t pid)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return strdup(buf);
}

static void set_exe(struct bts_proc *p, char *exe)
{
	if (!exe)
		return;
	free(p->exe);
	p->exe = exe;
	p->pub.exe = exe;
}

static struct bts_proc *proc_new(struct bts_session *s, pid_t pid, pid_t ppid)
{
	struct bts_proc *p;

	if (BTS_ARRAY_RESERVE(s->procs, s->capprocs, s->nprocs + 1))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->exe = read_exe(pid);
	if (!p->exe) {
		free(p);
		return NULL;
	}
	p->pub.pid = pid;
	p->pub.ppid = ppid;
	p->pub.exe = p->exe;
	p->image = ++s->images;
	p->mem = p;
	/* An emulator's image is not its guest's: the source knows that one. */
	p->abi32 = s->ops->caps & BTS_SRC_GUEST ? s->guest32 :
		   bts_proc_is_64bit(pid) == 0;
	bts_bp_init(&p->bps);
	p->bp_off = s->ops->caps & BTS_SRC_NOBP;
	s->procs[s->nprocs++] = p;
	return p;
}

struct bts_proc *bts_proc_find(struct bts_session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->pub.pid == pid)
			return s->procs[i];
	return NULL;
}

/* The main process: threads seized before it existed are its own. */
int bts_procs_start(struct bts_session *s)
{
	struct bts_proc *p = bts_proc_find(s, s->pid);

	if (!p)
		p = proc_new(s, s->pid, bts_proc_ppid(s->pid));
	if (!p)
		return bts_fail(BTS_E_NOMEM, "process table");
	s->cur = p;
	s->bps_owner = p;	/* s->bps is the main process's table */
	for (size_t i = 0; i < s->nthreads; i++) {
		if (!s->threads[i]->proc) {
			s->threads[i]->proc = p;
			p->nthreads++;
		}
	}
	return 0;
}

/* The int3 table of @owner's memory into s->bps; the loaded one back home. */
static void load_table(struct bts_session *s, struct bts_proc *owner)
{
	struct bts_proc *was = s->bps_owner;

	if (!owner || owner == was || !was)
		return;
	was->bps = s->bps;
	was->bp_off = s->bp_off;
	s->bps = owner->bps;
	s->bp_off = owner->bp_off;
	bts_bp_init(&owner->bps);
	s->bps_owner = owner;
}

/* The int3 table of @owner's memory, wherever it is now. */
static struct bts_bptab *table_of(struct bts_session *s, struct bts_proc *owner)
{
	return owner == s->bps_owner ? &s->bps : &owner->bps;
}

/* The process whose events come next: its maps and int3s become current. */
void bts_proc_enter(struct bts_session *s, struct bts_proc *p)
{
	struct bts_proc *was = s->cur;

	if (!p || p == was || !was)
		return;
	load_table(s, p->mem);
	was->maps = s->maps;
	s->maps = p->maps;
	memset(&p->maps, 0, sizeof(p->maps));
	s->cur = p;
	if (p->image != was->image) {
		/* Other code at the same addresses, maybe. */
		if (s->ops->code_changed)
			s->ops->code_changed(s);
	}
}

/* Whether @tid runs in memory other than the loaded table's. */
bool bts_tid_nobp(struct bts_session *s, pid_t tid)
{
	struct bts_thread *t = s->nprocs > 1 ? bts_thread_find(s, tid) : NULL;

	return t && t->proc && t->proc->mem != s->bps_owner;
}

void bts_procs_restore(struct bts_session *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		struct bts_proc *p = s->procs[i];

		if (p->mem == p && p != s->bps_owner) {
			bts_bp_remove_all(&p->bps);
			p->bp_off = true;
		}
	}
}

/*
 * @p leaves its memory (it execs or ends): when other processes still run
 * in it, the memory's int3 table passes to one of them, with the int3s
 * (reached through the heir's /proc/PID/mem from now on).  @p is left
 * with an empty table of its own.
 */
static void hand_over(struct bts_session *s, struct bts_proc *p)
{
	struct bts_proc *heir = NULL;
	struct bts_bptab *tab;
	bool *off;
	size_t i;

	if (p->mem != p)
		return;
	for (i = 0; i < s->nprocs && !heir; i++)
		if (s->procs[i] != p && s->procs[i]->mem == p &&
		    s->procs[i]->nthreads)
			heir = s->procs[i];
	if (!heir)
		return;
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i]->mem == p && s->procs[i] != p)
			s->procs[i]->mem = heir;
	tab = p == s->bps_owner ? &s->bps : &p->bps;
	off = p == s->bps_owner ? &s->bp_off : &p->bp_off;
	bts_bp_free(&heir->bps);	/* unused: it ran in @p's memory */
	heir->bps = *tab;
	heir->bp_off = *off;
	heir->mem = heir;
	bts_bp_set_pid(&heir->bps, heir->pub.pid);
	bts_bp_init(tab);
	bts_bp_set_pid(tab, p->pub.pid);
	*off = false;
}

void bts_procs_reaped(struct bts_session *s, struct bts_thread *t, int status)
{
	struct bts_proc *p = t->proc;

	if (p && p->nthreads == 1)
		hand_over(s, p);	/* its last thread: the process is gone */
	if (p && t->tid == p->pub.pid) {
		p->pub.exited = true;
		p->pub.status = status;
	}
}

/* A stop of the session: children die with the program it started. */
void bts_procs_kill(struct bts_session *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->pub.pid != s->pid && !s->procs[i]->pub.exited)
			kill(s->procs[i]->pub.pid, SIGKILL);
}

void bts_procs_free(struct bts_session *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		struct bts_proc *p = s->procs[i];

		if (p != s->cur)
			bts_mapset_clear(&p->maps);
		if (p != s->bps_owner)
			bts_bp_free(&p->bps);
		free(p->exe);
		free(p->crash_file);
		free(p->crash_error);
		free(p);
	}
	free(s->procs);
	s->procs = NULL;
	s->nprocs = 0;
	s->cur = NULL;
	s->bps_owner = NULL;
}

size_t bts_session_nprocesses(const struct bts_session *s)
{
	return s ? s->nprocs : 0;
}

const struct bts_session_process *bts_session_process(const struct bts_session *s,
						      size_t i)
{
	return s && i < s->nprocs ? &s->procs[i]->pub : NULL;
}

/* -------------------------------------------------------------- children */

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

/*
 * Not followed: the child is let go without our int3s.  One that shares
 * the memory (@vfork) runs through them as a shadow until it execs.
 */
static void let_go(struct bts_session *s, pid_t pid, bool vfork, bool owner)
{
	struct bts_thread *t;

	if (vfork && owner && !s->no_int3 && !s->bp_off) {
		if (!bts_thread_add_shadow(s, pid, &t)) {
			s->ops->attach(s, t);
			bts_resume(s, t, 0);
			return;
		}
		/* No room to run it through: no int3 anywhere then. */
		bts_bp_remove_all(&s->bps);
		s->bp_off = true;
	}
	if (!vfork && owner)
		bts_bp_clean_copy(&s->bps, pid);
	ptrace(PTRACE_DETACH, pid, 0, 0);
}

/* Followed: a process of its own in the trace, traced from here on. */
static void follow(struct bts_session *s, struct bts_proc *parent, pid_t pid,
		   bool vfork)
{
	struct bts_proc *p;
	struct bts_thread *t;

	if (!vfork)
		bts_bp_clean_copy(table_of(s, parent->mem), pid);
	p = proc_new(s, pid, parent->pub.pid);
	if (!p) {
		bts_note_err(s, bts_fail(BTS_E_NOMEM, "process %d", (int)pid));
		ptrace(PTRACE_DETACH, pid, 0, 0);
		return;
	}
	/* A vfork or CLONE_VM child runs in its parent's memory, on its int3s. */
	if (vfork)
		p->mem = parent->mem;
	p->nobp = parent->nobp;
	p->image = parent->image;
	if (s->w)
		bts_note_err(s, bts_writer_process(s->w, pid, parent->pub.pid, p->exe));
	if (s->w && p->abi32)
		bts_note_err(s, bts_writer_abi(s->w, pid, 32));
	bts_proc_enter(s, p);
	bts_maps_write_all(s);
	if (bts_thread_add(s, pid, &t)) {
		ptrace(PTRACE_DETACH, pid, 0, 0);
		return;
	}
	/* Each source takes the child as a new thread of its own. */
	s->ops->attach(s, t);
	bts_resume(s, t, 0);
}

static void release(struct bts_session *s, struct bts_fork *f)
{
	struct bts_proc *parent = f->parent;

	if (s->follow && parent)
		follow(s, parent, f->pid, f->vfork);
	else
		let_go(s, f->pid, f->vfork, !parent || parent->mem == s->bps_owner);
}

/*
 * Whether @child runs in @parent's memory: a clone with CLONE_VM but not
 * CLONE_THREAD or CLONE_VFORK (posix_spawn-like code) is reported as a fork
 * or a clone.  kcmp says it; without kcmp, the flags of the parent's clone.
 */
static bool same_memory(pid_t parent, pid_t child)
{
	struct user_regs_struct r;
	uint64_t flags = 0;
	long k = syscall(SYS_kcmp, parent, child, KCMP_VM, 0, 0);

	if (k >= 0)
		return k == 0;
	if (ptrace(PTRACE_GETREGS, parent, 0, &r))
		return false;
	if (r.orig_rax == SYS_clone)
		flags = r.rdi;
	else if (r.orig_rax == SYS_clone3) {
		/* struct clone_args starts with its u64 flags. */
		struct iovec local = { &flags, sizeof(flags) };
		struct iovec remote = { (void *)(uintptr_t)r.rdi, sizeof(flags) };

		if (process_vm_readv(parent, &local, 1, &remote, 1, 0) !=
		    (ssize_t)sizeof(flags))
			flags = 0;
	}
	return flags & CLONE_VM;
}

/*
 * A child in its parent's memory must not wait for its first stop while
 * the parent runs on (the parent could exec or end, and the memory's
 * table with it): it is taken now.  A new child's first report is that
 * stop; false when it is gone instead.
 */
static bool wait_first_stop(pid_t pid)
{
	int status;
	pid_t r;

	do
		r = waitpid(pid, &status, __WALL);
	while (r < 0 && errno == EINTR);
	return r == pid && bts_status_stopped(status);
}

static void child_event(struct bts_session *s, struct bts_thread *t, pid_t pid,
			bool vfork)
{
	struct bts_fork *f = find(s, pid), done;

	if (!vfork)
		vfork = same_memory(t->tid, pid);
	if (!f && vfork && wait_first_stop(pid)) {
		done = (struct bts_fork){ .pid = pid, .known = true,
					  .vfork = true, .parent = t->proc };
		release(s, &done);
		return;
	}
	if (f && f->stopped) {
		f->vfork = vfork;
		f->parent = t->proc;
		done = *f;
		drop(s, f);
		release(s, &done);
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
	f->parent = t->proc;
}

void bts_fork_event(struct bts_session *s, struct bts_thread *t, pid_t child,
		    bool vfork)
{
	if (child)
		child_event(s, t, child, vfork);
}

/* A clone that is a process (no CLONE_THREAD): a child like a fork's. */
bool bts_fork_clone_event(struct bts_session *s, struct bts_thread *t,
			  pid_t child)
{
	unsigned long long tgid = 0;

	if (bts_proc_status(child, "Tgid", 10, &tgid) || (pid_t)tgid != child)
		return false;
	child_event(s, t, child, false);
	return true;
}

bool bts_fork_child_stop(struct bts_session *s, pid_t tid)
{
	struct bts_fork *f = find(s, tid), done;
	unsigned long long tgid = 0;
	struct bts_proc *p;

	if (f && f->known) {
		done = *f;
		drop(s, f);
		release(s, &done);
		return true;
	}
	if (f)
		return true;
	if (bts_proc_status(tid, "Tgid", 10, &tgid))
		return false;	/* gone */
	p = bts_proc_find(s, (pid_t)tgid);
	if (p || (pid_t)tgid == s->pid) {
		/* A thread of a traced process. */
		bts_proc_enter(s, p);
		return false;
	}
	f = add(s, tid);
	if (f) {
		f->stopped = true;
		return true;
	}
	/* No room to wait for its parent's event: a copy without int3s. */
	let_go(s, tid, false, true);
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

/* ------------------------------------------------------------------ exec */

/*
 * Children not followed that run through our int3s in @p's memory
 * (shadows: vfork or CLONE_VM) keep that memory when @p execs: the int3s
 * come out of it and they run on untraced.  One that already hit an int3
 * has its report on the way: bts_step_signal() rewinds it.
 */
static void release_shadows(struct bts_session *s, struct bts_proc *p)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		struct bts_thread *u = s->threads[i];

		if (!u->shadow || u->proc != p)
			continue;
		bts_bp_clean_copy(table_of(s, p->mem), u->tid);
		if (s->ops->untrace)
			s->ops->untrace(s, u);
	}
}

int bts_proc_exec(struct bts_session *s, struct bts_thread *t, uint64_t *entry)
{
	struct bts_proc *p = t->proc;
	struct user_regs_struct regs;
	int is64;

	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs))
		memset(&regs, 0, sizeof(regs));
	*entry = regs.rip;
	if (!p)
		return bts_proc_is_64bit(s->pid);
	set_exe(p, read_exe(p->pub.pid));
	p->image = ++s->images;
	if (s->w)
		bts_note_err(s, bts_writer_exec(s->w, p->pub.pid, t->tid, p->exe,
						regs.rip));
	/* The new image may be of the other bitness (an i386 program). */
	is64 = bts_proc_is_64bit(p->pub.pid);
	if (s->w && (is64 == 0) != p->abi32)
		bts_note_err(s, bts_writer_abi(s->w, p->pub.pid, is64 ? 64 : 32));
	p->abi32 = is64 == 0;
	/* Others still run in the old memory: its int3s stay theirs. */
	release_shadows(s, p);
	hand_over(s, p);
	return is64;
}

/*
 * The exec'd process's memory is new: none of our int3s, none of the
 * cached code.  A vfork (CLONE_VM) child leaves its parent's memory, and
 * the int3 table of it, for one of its own.
 */
void bts_proc_exec_memory(struct bts_session *s, struct bts_thread *t)
{
	struct bts_proc *p = t->proc;

	if (p && p->pub.pid != s->pid) {
		if (p->mem != p) {
			p->mem = p;
			load_table(s, p);
		} else {
			bts_bp_forget_all(&s->bps);
		}
		bts_bp_set_pid(&s->bps, p->pub.pid);
		s->bp_off = false;
		p->nobp = false;
	} else {
		bts_bp_forget_all(&s->bps);
		bts_bp_set_pid(&s->bps, s->pid);
	}
	if (s->ops->code_changed)
		s->ops->code_changed(s);
}
