// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The event loop of a recording session.
 *
 * One waitpid(-1, __WALL) loop serves every traced thread.  Each report is
 * decoded into an event (stop_event.c) and dispatched: a thread's end is
 * reaped; a step report or a trap goes to the source, which learns where
 * the thread went; a signal of the program's is passed on as it would
 * arrive without ptrace; a group-stop LISTENs, stopped as the job-control
 * user expects; clone, fork, exec and exit events keep the thread and
 * process tables.  A thread whose stop is reported before the clone event
 * of its creator is added when first seen: both orders happen.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/session.h"
#include "trace/writer.h"
#include "util/opts.h"

void bts_note_err(struct bts_session *s, int err)
{
	if (err < 0 && !s->err) {
		s->err = err;
		s->stop = 1;	/* a trace that cannot be written is not worth running */
	}
}

int bts_session_opts_take(const struct bts_session_opts *opts,
			  struct bts_session_opts *o)
{
	_Static_assert(sizeof(*o) == bts_offsetofend(struct bts_session_opts,
						      pebs_period),
		       "a field added to bts_session_opts is read here too");
	*o = (struct bts_session_opts){
		.sz = sizeof(*o),
		.source = BTS_OPTS_GET(opts, source, 0),
		.mode = BTS_OPTS_GET(opts, mode, 0),
		.buffer_size = BTS_OPTS_GET(opts, buffer_size, 0),
		.writer = BTS_OPTS_GET(opts, writer, NULL),
		.no_follow = BTS_OPTS_GET(opts, no_follow, false),
		.on_crash = BTS_OPTS_GET(opts, on_crash, false),
		.crash_pattern = BTS_OPTS_GET(opts, crash_pattern, NULL),
		.cpu_placement = BTS_OPTS_GET(opts, cpu_placement, 0),
		.cpu = BTS_OPTS_GET(opts, cpu, 0),
		.skip = BTS_OPTS_GET(opts, skip, NULL),
		.max_size = BTS_OPTS_GET(opts, max_size, 0),
		.duration_ms = BTS_OPTS_GET(opts, duration_ms, 0),
		.pebs_event = BTS_OPTS_GET(opts, pebs_event, 0),
		.pebs_period = BTS_OPTS_GET(opts, pebs_period, 0),
	};
	return BTS_OPTS_VALID(opts, "session options");
}

/*
 * kmod-pebs's event and period: the module's defaults where not given;
 * another source takes neither.
 */
static int pebs_opts(struct bts_session_opts *o)
{
	const char *why;

	if (o->source != PTBTS_SOURCE_KMOD_PEBS) {
		if (o->pebs_event || o->pebs_period)
			return bts_fail(BTS_E_INVAL, "a PEBS event or period is for "
					"kmod-pebs only, not %s",
					bts_source_name(o->source));
		return 0;
	}
	if (!o->pebs_event)
		o->pebs_event = PTBTS_PEBS_EVENT_BRANCHES;
	if (!o->pebs_period)
		o->pebs_period = PTBTS_PEBS_PERIOD_DEFAULT;
	why = bts_pebs_event_problem(o->pebs_event, o->pebs_period);
	if (why)
		return bts_fail(BTS_E_INVAL, "PEBS event 0x%llx, period %llu: %s",
				(unsigned long long)o->pebs_event,
				(unsigned long long)o->pebs_period, why);
	return 0;
}

int bts_session_opts_check(struct bts_session_opts *o)
{
	if (o->mode != PTBTS_MODE_RING && o->mode != PTBTS_MODE_STOP &&
	    o->mode != PTBTS_MODE_BLOCK)
		return bts_fail(BTS_E_INVAL, "unknown mode %d", o->mode);
	if (o->buffer_size && o->buffer_size < sizeof(struct ptbts_record))
		return bts_fail(BTS_E_INVAL, "a buffer of %llu bytes holds no record",
				(unsigned long long)o->buffer_size);
	if (o->buffer_size > (1ULL << 40))
		return bts_fail(BTS_E_INVAL, "a buffer of %llu bytes is too large",
				(unsigned long long)o->buffer_size);
	return pebs_opts(o);
}

int bts_session_new(const struct bts_session_setup *setup, pid_t pid,
		    struct bts_session **out)
{
	const struct bts_session_opts *o = &setup->opts;
	const struct bts_source_ops *ops = setup->ops;
	struct bts_session *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return bts_fail(BTS_E_NOMEM, "session");
	bts_bp_init(&s->bps);
	s->pid = pid;
	s->source = setup->source;
	s->ops = ops;
	s->crash_check = setup->crash_check;
	s->mode = o->mode;
	s->buffer_size = o->buffer_size ? o->buffer_size : BTS_DEFAULT_BUFFER;
	s->pebs_event = o->pebs_event;
	s->pebs_period = o->pebs_period;
	s->w = o->writer;
	/* Every source follows children (session_fork.c starts them). */
	s->follow = !o->no_follow;
	s->on_crash = o->on_crash;
	if (o->crash_pattern && !(s->crash_pattern = strdup(o->crash_pattern))) {
		bts_session_free(s);
		return bts_fail(BTS_E_NOMEM, "crash pattern");
	}
	err = ops->open ? ops->open(s) : 0;
	if (!err)
		err = bts_limits_init(s, o->max_size, o->duration_ms);
	if (!err)
		err = bts_place_init(s, o->cpu_placement, o->cpu);
	if (!err && ops->caps & BTS_SRC_SKIP)
		err = ops->skip(s, o->skip);
	if (err) {
		bts_session_free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* Whether the running image is ELFCLASS64 (1), ELFCLASS32 (0), or -BTS_E_*. */
int bts_proc_is_64bit(pid_t pid)
{
	int fd = bts_proc_open(pid, "exe");
	unsigned char id[EI_NIDENT];
	ssize_t n;

	if (fd < 0)
		return bts_fail_errno(errno == ENOENT ? BTS_E_SRCH : BTS_E_PERM,
				      "/proc/%d/exe", (int)pid);
	n = pread(fd, id, sizeof(id), 0);
	close(fd);
	if (n != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return bts_fail(BTS_E_NOEXEC, "process %d: not an ELF image", (int)pid);
	return id[EI_CLASS] == ELFCLASS64;
}

static char *proc_exe(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return strdup("");
	buf[n] = '\0';
	return strdup(buf);
}

/* The session, the process, its threads and maps: what the trace opens with. */
int bts_session_write_start(struct bts_session *s)
{
	char *exe;
	int err = bts_procs_start(s);

	if (err)
		return err;
	if (s->w) {
		err = bts_writer_session(s->w, s->source, s->mode, s->buffer_size);
		exe = proc_exe(s->pid);
		if (!err && !exe)
			err = bts_fail(BTS_E_NOMEM, "exe path");
		if (!err)
			err = bts_writer_process(s->w, s->pid, bts_proc_ppid(s->pid), exe);
		if (!err && s->cur && s->cur->abi32)
			err = bts_writer_abi(s->w, s->pid, 32);
		free(exe);
		if (err)
			return err;
	}
	bts_maps_write_all(s);
	return s->err;
}

int bts_resume(struct bts_session *s, struct bts_thread *t, int sig)
{
	long r;

	if (s->hooks.hold && s->hooks.hold(s->hooks.arg, t, sig))
		return 0;	/* a debugger keeps it stopped */
	/* Killed where it stands (stop_session); one that exits goes on dying. */
	if (s->stop && s->spawned && !t->exiting)
		return 0;
	r = ptrace(s->ops->resume_request ? s->ops->resume_request(s, t) :
		   PTRACE_CONT, t->tid, 0, (void *)(long)sig);
	/* ESRCH: killed meanwhile; its exit is on the way. */
	if (r == 0 || errno == ESRCH)
		t->running = true;
	return r == 0 ? 0 : -errno;
}

bool bts_session_stop_at(struct bts_session *s, struct bts_thread *t,
			 uint64_t pc)
{
	return s->hooks.stop_at && s->hooks.stop_at(s->hooks.arg, t, pc);
}

/* A thread is gone: its records, its exit, and the main status. */
void bts_reap(struct bts_session *s, struct bts_thread *t, int status)
{
	if (t->shadow) {
		bts_thread_remove(s, t);
		return;
	}
	bts_thread_flush(s, t);
	if (s->w)
		bts_note_err(s, bts_writer_exit(s->w, bts_thread_pid(s, t), t->tid,
						status));
	bts_procs_reaped(s, t, status);
	if (t->tid == s->pid) {
		s->exited = true;
		s->status = status;
	}
	bts_thread_remove(s, t);
}

static void on_interrupt(struct bts_session *s, struct bts_thread *t)
{
	if (!t->started)
		s->ops->attach(s, t);
	bts_resume(s, t, 0);
}

/* Stopped as without ptrace; SIGCONT ends it with a new interrupt stop. */
static void on_group_stop(struct bts_thread *t)
{
	if (ptrace(PTRACE_LISTEN, t->tid, 0, 0) == 0 || errno == ESRCH)
		t->running = true;
}

static void on_clone(struct bts_session *s, struct bts_thread *t, pid_t child)
{
	struct bts_thread *nt;
	bool early;

	if (bts_fork_clone_event(s, t, child)) {
		/* A clone that is a process: a child, as a fork's. */
	} else if (child && !bts_thread_find(s, child)) {
		/* A clone that is no thread, its first stop already seen. */
		early = bts_fork_forget(s, child);
		nt = NULL;
		bts_note_err(s, bts_thread_add(s, child, &nt));
		if (early && nt) {
			s->ops->attach(s, nt);
			bts_resume(s, nt, 0);
		}
	}
	bts_resume(s, t, 0);
}

/* A non-leader exec'd: it takes the leader's tid, the old leader vanishes. */
static struct bts_thread *exec_takeover(struct bts_session *s,
					struct bts_thread *leader, pid_t former)
{
	struct bts_thread *t;

	if (former == leader->tid)
		return leader;
	t = bts_thread_find(s, former);
	if (!t)
		return leader;
	bts_thread_flush(s, leader);
	bts_thread_remove(s, leader);
	bts_thread_flush(s, t);
	t->tid = bts_thread_pid(s, t);
	return t;
}

static void on_exec(struct bts_session *s, struct bts_thread *t, pid_t former)
{
	if (t->shadow) {
		/* A vfork child with its own memory now: let it go. */
		ptrace(PTRACE_DETACH, t->tid, 0, 0);
		bts_thread_remove(s, t);
		return;
	}
	t = exec_takeover(s, t, former);
	s->ops->exec(s, t);
	bts_resume(s, t, 0);
}

/* A signal-delivery-stop: the source's own trap, or the program's signal. */
static void on_signal(struct bts_session *s, struct bts_thread *t,
		      const struct bts_stop_event *ev)
{
	int sig = ev->sig;

	if (!t->started) {
		/* A signal before the first stop: pass it, start later. */
		bts_resume(s, t, sig);
		return;
	}
	/* Without a signal op, every signal is the program's. */
	if (s->ops->signal)
		sig = s->ops->signal(s, t, ev);
	if (sig && s->crash_check)
		s->crash_check(s, t, sig, &ev->si);
	bts_resume(s, t, sig);
}

static void on_stop(struct bts_session *s, struct bts_thread *t,
		    const struct bts_stop_event *ev)
{
	t->running = false;
	switch (ev->kind) {
	case BTS_EV_GROUP_STOP:
		on_group_stop(t);
		return;
	case BTS_EV_INTERRUPT:
		on_interrupt(s, t);
		return;
	case BTS_EV_CLONE:
		on_clone(s, t, (pid_t)ev->msg);
		return;
	case BTS_EV_FORK:
	case BTS_EV_VFORK:
		bts_fork_event(s, t, (pid_t)ev->msg, ev->kind == BTS_EV_VFORK);
		bts_resume(s, t, 0);
		return;
	case BTS_EV_EXEC:
		on_exec(s, t, (pid_t)ev->msg);
		return;
	case BTS_EV_EXIT:
		if (s->ops->exiting)
			s->ops->exiting(s, t);
		t->exiting = true;
		bts_resume(s, t, 0);
		return;
	case BTS_EV_SYSCALL:
		if (s->ops->syscall)
			s->ops->syscall(s, t);
		bts_resume(s, t, 0);
		return;
	case BTS_EV_GONE:
		return;		/* killed meanwhile */
	case BTS_EV_SIGNAL:
	case BTS_EV_STEP:
	case BTS_EV_TRAP:
		on_signal(s, t, ev);
		return;
	default:
		bts_resume(s, t, 0);
		return;
	}
}

void bts_session_dispatch(struct bts_session *s, const struct bts_stop_event *ev)
{
	struct bts_thread *t = bts_thread_find(s, ev->tid);

	if (bts_ev_gone(ev)) {
		if (t)
			bts_reap(s, t, ev->status);
		return;
	}
	if (!bts_ev_stopped(ev))
		return;
	if (t) {
		bts_proc_enter(s, t->proc);
	} else {
		if (bts_fork_child_stop(s, ev->tid))
			return;
		/* A new thread whose first stop beat its creator's clone event. */
		if (bts_thread_add(s, ev->tid, &t)) {
			ptrace(PTRACE_DETACH, ev->tid, 0, 0);
			return;
		}
	}
	on_stop(s, t, ev);
}

bool bts_session_own_stop(struct bts_session *s, struct bts_thread *t,
			  const struct bts_stop_event *ev)
{
	return s->ops->own_stop && s->ops->own_stop(s, t, ev);
}

void bts_session_sync(struct bts_session *s, struct bts_thread *t)
{
	if (s->ops->sync)
		s->ops->sync(s, t);
}

bool bts_session_held(struct bts_session *s, bool all_stopped, pid_t *tid,
		      int *status)
{
	return s->ops->held && s->ops->held(s, all_stopped, tid, status);
}

void bts_session_restore(struct bts_session *s)
{
	if (s->ops->restore)
		s->ops->restore(s);
}

void bts_session_report(struct bts_session *s, pid_t tid, int status)
{
	struct bts_stop_event ev;

	bts_stop_decode(tid, status, &ev);
	bts_session_dispatch(s, &ev);
}

/* Every thread that is stopped and not yet resumed starts running. */
static void resume_stopped(struct bts_session *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->started && !s->threads[i]->running)
			bts_resume(s, s->threads[i], 0);
}

/* A spawned program is killed and every thread reaped. */
static void kill_all(struct bts_session *s)
{
	int status;
	pid_t tid;

	kill(s->pid, SIGKILL);
	bts_procs_kill(s);
	bts_fork_kill_shadows(s);
	while (s->nthreads) {
		struct bts_thread *t;

		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		t = bts_thread_find(s, tid);
		if (bts_status_stopped(status))
			ptrace(PTRACE_CONT, tid, 0, 0);
		else if (t)
			bts_reap(s, t, status);
	}
}

/*
 * A program being detached keeps its int3s until every thread is
 * quiescent: a thread that already hit one must find it in the table to
 * be resolved, or it would be detached with that SIGTRAP and die of it.
 * bts_detach_all() restores the code once all are stopped.
 */
static void stop_session(struct bts_session *s)
{
	if (s->spawned) {
		if (bts_limits_stop_first(s))
			bts_quiesce(s);
		/* Dead before its int3s come out: nothing runs untraced. */
		kill(s->pid, SIGKILL);
		bts_session_restore(s);
		kill_all(s);
	} else {
		bts_note_err(s, bts_detach_all(s));
	}
}

/* Threads that vanished unseen (ECHILD): their records, but no exit. */
static void drop_all(struct bts_session *s)
{
	while (s->nthreads) {
		bts_thread_flush(s, s->threads[0]);
		bts_thread_remove(s, s->threads[0]);
	}
}

int bts_session_run(struct bts_session *s)
{
	int status;
	pid_t tid;

	if (!s)
		return bts_fail(BTS_E_INVAL, "no session");
	resume_stopped(s);
	while (s->nthreads) {
		bts_limits_check(s);	/* --duration */
		bts_session_sync_due(s);
		if (bts_session_held(s, false, &tid, &status)) {
			/* Kept back by the source (step_hold.c): its report now. */
			bts_session_report(s, tid, status);
			continue;
		}
		if (s->stop) {
			stop_session(s);
			break;
		}
		if (s->ops->wait)
			tid = s->ops->wait(s, &status);
		else
			tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			bts_note_err(s, bts_fail_errno(BTS_E_INTERNAL, "waitpid"));
			continue;
		}
		bts_session_report(s, tid, status);
	}
	drop_all(s);
	return s->err;
}

void bts_session_stop(struct bts_session *s)
{
	int saved = errno;

	if (!s)
		return;
	s->stop = 1;
	/*
	 * Wakes the loop's waitpid when the caller's signal handler ran in
	 * another thread, or just before the call: an interrupt is reported
	 * as a stop, which the loop then sees with the flag set.
	 */
	ptrace(PTRACE_INTERRUPT, s->pid, 0, 0);
	errno = saved;
}

int bts_session_stats(const struct bts_session *s,
		      struct bts_session_stats *out, size_t size)
{
	struct bts_session_stats st = { 0 };

	if (s) {
		st.source = s->source;
		/* The counters may move under another thread's run. */
		st.threads = __atomic_load_n(&s->nthreads_seen,
					     __ATOMIC_RELAXED);
		st.records = __atomic_load_n(&s->records, __ATOMIC_RELAXED);
		st.lost = __atomic_load_n(&s->lost, __ATOMIC_RELAXED);
		st.pid = s->pid;
		st.exited = s->exited;
		st.status = s->status;
		st.cut = s->cut;
	}
	return BTS_OUT_FILL(out, size, &st, "session stats");
}

void bts_session_free(struct bts_session *s)
{
	if (!s)
		return;
	if (s->nthreads) {
		/*
		 * Never leave a tracee behind, stopped and traced.  The writer
		 * may be closed by now: nothing more goes to it.
		 */
		s->w = NULL;
		stop_session(s);
		drop_all(s);
	}
	if (s->ops && s->ops->close)
		s->ops->close(s);
	bts_place_release(s);
	bts_procs_free(s);
	free(s->crash_pattern);
	free(s->guest_exe);
	bts_bp_free(&s->bps);
	bts_mapset_clear(&s->maps);
	free(s->threads);
	free(s);
}
