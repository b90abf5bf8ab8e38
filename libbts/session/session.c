// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The event loop of a recording session.
 *
 * One waitpid(-1, __WALL) loop serves every traced thread.  Each report is
 * an exit, or a stop of one of these kinds, told apart by the event in the
 * status' high bits and, for SIGTRAP, by the siginfo:
 *   - a step report (SIGTRAP from the single-step or the syscall-exit trap,
 *     or the kernel's stop at a signal handler's entry): the source learns
 *     where the last instruction went, and the thread steps on;
 *   - a signal-delivery-stop: the signal is passed on as it would arrive
 *     without ptrace;
 *   - PTRACE_EVENT_STOP: a new thread's first stop, an interrupt, the end
 *     of a group-stop (all SIGTRAP), or a group-stop (a stop signal: the
 *     thread LISTENs, stopped as the job-control user expects);
 *   - CLONE / EXEC / EXIT events.
 * A thread whose stop is reported before the clone event of its creator is
 * added when first seen: both orders happen.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/abi32.h"
#include "session/session.h"
#include "util/opts.h"
#include "trace/writer.h"

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
						      duration_ms),
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
	};
	return BTS_OPTS_VALID(opts, "session options");
}

/*
 * kmod-bts when asked for; kmod-step when asked for, or for auto when the
 * module offers it; then
 * perf-bts likewise (RING mode only); else ptrace-step, whose working shows
 * when the tracee is seized: no probe (a fork) for it here.
 */
static int pick_source(int want, int mode)
{
	struct bts_source_info info[8];
	int i, n;

	if (want == 0 || want == BTS_SOURCE_AUTO ||
	    want == PTBTS_SOURCE_KMOD_STEP || want == PTBTS_SOURCE_KMOD_BTS) {
		n = bts_kmod_pick(want);
		if (n)
			return n;
	}
	n = bts_perf_pick(want, mode);
	if (n)
		return n;
	if (want == 0 || want == BTS_SOURCE_AUTO ||
	    want == PTBTS_SOURCE_PTRACE_STEP)
		return PTBTS_SOURCE_PTRACE_STEP;
	n = bts_probe_sources(info, ARRAY_SIZE(info));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(info); i++)
		if (info[i].source == want)
			return bts_fail(BTS_E_NOSOURCE, "%s: %s", bts_source_name(want),
					info[i].available ? "cannot drive a recording yet"
							  : info[i].why);
	return bts_fail(BTS_E_INVAL, "unknown source %d", want);
}

/*
 * BTS_STEP_MODE=single: every instruction single-stepped, no breakpoint
 * planted: the slow reference that branch stops are compared with.
 */
static bool single_step_mode(void)
{
	const char *m = getenv("BTS_STEP_MODE");

	return m && !strcmp(m, "single");
}

int bts_session_new(const struct bts_session_opts *opts, pid_t pid,
		    struct bts_session **out)
{
	struct bts_session_opts o;
	struct bts_session *s;
	int err, source;

	err = bts_session_opts_take(opts, &o);
	if (err)
		return err;
	if (o.mode != PTBTS_MODE_RING && o.mode != PTBTS_MODE_STOP &&
	    o.mode != PTBTS_MODE_BLOCK)
		return bts_fail(BTS_E_INVAL, "unknown mode %d", o.mode);
	if (o.buffer_size && o.buffer_size < sizeof(struct ptbts_record))
		return bts_fail(BTS_E_INVAL, "a buffer of %llu bytes holds no record",
				(unsigned long long)o.buffer_size);
	if (o.buffer_size > (1ULL << 40))
		return bts_fail(BTS_E_INVAL, "a buffer of %llu bytes is too large",
				(unsigned long long)o.buffer_size);
	source = pick_source(o.source, o.mode);
	if (source < 0)
		return source;
	s = calloc(1, sizeof(*s));
	if (!s)
		return bts_fail(BTS_E_NOMEM, "session");
	s->icache = bts_insn_cache_new();
	s->bcache = bts_block_cache_new();
	if (!s->icache || !s->bcache) {
		bts_insn_cache_free(s->icache);
		bts_block_cache_free(s->bcache);
		free(s);
		return bts_fail(BTS_E_NOMEM, "instruction cache");
	}
	bts_bp_init(&s->bps);
	s->single = single_step_mode();
	s->pid = pid;
	s->source = source;
	s->mode = o.mode;
	s->buffer_size = o.buffer_size ? o.buffer_size : BTS_DEFAULT_BUFFER;
	s->w = o.writer;
	/* Every source follows children (session_fork.c starts them). */
	s->follow = !o.no_follow;
	s->on_crash = o.on_crash;
	if (o.crash_pattern && !(s->crash_pattern = strdup(o.crash_pattern))) {
		bts_session_free(s);
		return bts_fail(BTS_E_NOMEM, "crash pattern");
	}
	if (source == PTBTS_SOURCE_KMOD_STEP || source == PTBTS_SOURCE_KMOD_BTS) {
		err = bts_kmod_open(s);
		if (err) {
			bts_session_free(s);
			return err;
		}
	}
	/* Issue 5: placement and bounds (placement.c, limits.c). */
	err = bts_limits_init(s, o.max_size, o.duration_ms);
	if (!err)
		err = bts_place_init(s, o.cpu_placement, o.cpu);
	if (!err && !s->kmod)
		err = bts_skip_init(s, o.skip);
	if (err) {
		bts_session_free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* ELFCLASS64 of the running image (x32 and i386 are refused for now). */
int bts_proc_is_64bit(pid_t pid)
{
	unsigned char id[EI_NIDENT];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bts_fail_errno(errno == ENOENT ? BTS_E_SRCH : BTS_E_PERM,
				      "%s", path);
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
		if (!err && s->cur && s->cur->abi32)	/* issue 9 */
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

	if (s->ctl && bts_control_hold(s, t, sig))
		return 0;	/* a debugger keeps it stopped */
	/* Killed where it stands (stop_session); one that exits goes on dying. */
	if (s->stop && s->spawned && !t->exiting)
		return 0;
	r = ptrace(t->stepping ? t->resume_op :
		   s->lazy && t->ctl_step ? PTRACE_SINGLESTEP : PTRACE_CONT,
		   t->tid, 0, (void *)(long)sig);
	/* ESRCH: killed meanwhile; its exit is on the way. */
	if (r == 0 || errno == ESRCH)
		t->running = true;
	return r == 0 ? 0 : -errno;
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

#ifndef TRAP_UNK
#define TRAP_UNK 5
#endif

/*
 * SIGTRAPs the stepping itself causes: the debug trap (TRAP_TRACE), the
 * syscall-exit report (TRAP_BRKPT on x86) and the stop at a signal
 * handler's entry (ptrace_notify: si_code SIGTRAP).  A SIGTRAP sent by
 * kill() or raised by int3 is a signal of the program's.
 */
bool bts_step_report(const siginfo_t *si)
{
	return si->si_signo == SIGTRAP &&
	       (si->si_code == TRAP_TRACE || si->si_code == TRAP_BRKPT ||
		si->si_code == TRAP_UNK);
}

static bool group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static void on_event_stop(struct bts_session *s, struct bts_thread *t, int sig)
{
	if (group_stop_sig(sig)) {
		/* Stopped as without ptrace; SIGCONT ends it with a new trap. */
		if (ptrace(PTRACE_LISTEN, t->tid, 0, 0) == 0 || errno == ESRCH)
			t->running = true;
		return;
	}
	if (!t->started && s->kmod)
		bts_kmod_start(s, t);
	else if (!t->started && s->source == PTBTS_SOURCE_PERF_BTS)
		bts_perf_start(s, t);
	else if (!t->started)
		bts_step_start(s, t);
	bts_resume(s, t, 0);
}

static void on_clone(struct bts_session *s, struct bts_thread *t)
{
	unsigned long msg = 0;
	struct bts_thread *nt;

	bool early;

	if (ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg) == 0 &&
	    bts_fork_clone_event(s, t, (pid_t)msg)) {
		/* A clone that is a process: a child, as a fork's. */
	} else if (msg && !bts_thread_find(s, (pid_t)msg)) {
		/* A clone that is no thread, its first stop already seen. */
		early = bts_fork_forget(s, (pid_t)msg);
		nt = NULL;
		bts_note_err(s, bts_thread_add(s, (pid_t)msg, &nt));
		if (early && nt) {
			if (s->kmod)
				bts_kmod_start(s, nt);
			else if (s->source == PTBTS_SOURCE_PERF_BTS)
				bts_perf_start(s, nt);
			else
				bts_step_start(s, nt);
			bts_resume(s, nt, 0);
		}
	}
	bts_resume(s, t, 0);
}

/* A non-leader exec'd: it takes the leader's tid, the old leader vanishes. */
static struct bts_thread *exec_takeover(struct bts_session *s,
					struct bts_thread *leader)
{
	unsigned long former = 0;
	struct bts_thread *t;

	if (ptrace(PTRACE_GETEVENTMSG, leader->tid, 0, &former) ||
	    (pid_t)former == leader->tid)
		return leader;
	t = bts_thread_find(s, (pid_t)former);
	if (!t)
		return leader;
	bts_thread_flush(s, leader);
	bts_thread_remove(s, leader);
	bts_thread_flush(s, t);
	t->tid = bts_thread_pid(s, t);
	return t;
}

static void on_stop(struct bts_session *s, struct bts_thread *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	siginfo_t si;

	t->running = false;
	switch (event) {
	case PTRACE_EVENT_STOP:
		on_event_stop(s, t, sig);
		return;
	case PTRACE_EVENT_CLONE:
		on_clone(s, t);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		bts_fork_event(s, t, event == PTRACE_EVENT_VFORK);
		bts_resume(s, t, 0);
		return;
	case PTRACE_EVENT_EXEC:
		if (t->shadow) {
			/* A vfork child with its own memory now: let it go. */
			ptrace(PTRACE_DETACH, t->tid, 0, 0);
			bts_thread_remove(s, t);
			return;
		}
		t = exec_takeover(s, t);
		if (s->kmod)
			bts_kmod_exec(s, t);
		else if (s->source == PTBTS_SOURCE_PERF_BTS)
			bts_perf_exec(s, t);
		else if (!bts_fork_exec(s, t))
			bts_step_exec(s, t);
		bts_resume(s, t, 0);
		return;
	case PTRACE_EVENT_EXIT:
		bts_fast_sync(s, t);	/* the direct jumps it ran, first */
		t->exiting = true;
		t->stepping = false;
		bts_resume(s, t, 0);
		return;
	case 0:
		break;
	default:
		bts_resume(s, t, 0);
		return;
	}
	if (sig == BTS_SYSCALL_STOP) {
		bts_fast_syscall(s, t);
		bts_resume(s, t, 0);
		return;
	}
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si))
		return;		/* killed meanwhile */
	if (!t->started) {
		/* A signal before the first stop: pass it, start later. */
		bts_resume(s, t, sig);
		return;
	}
	if (s->kmod || s->source == PTBTS_SOURCE_PERF_BTS) {
		/* The module (or the CPU) records: every signal is the program's. */
		if (s->on_crash)
			bts_crash_check(s, t, sig, &si);
		bts_resume(s, t, sig);
		return;
	}
	if (bts_step_report(&si)) {
		bts_step_trap(s, t);
		bts_resume(s, t, 0);
		return;
	}
	sig = bts_step_signal(s, t, sig, &si);
	if (sig && s->on_crash)
		bts_crash_check(s, t, sig, &si);
	bts_resume(s, t, sig);
}

static void on_report(struct bts_session *s, pid_t tid, int status)
{
	struct bts_thread *t = bts_thread_find(s, tid);

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t)
			bts_reap(s, t, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (t) {
		bts_proc_enter(s, t->proc);
	} else {
		if (bts_fork_child_stop(s, tid))
			return;
		/* A new thread whose first stop beat its creator's clone event. */
		if (bts_thread_add(s, tid, &t)) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			return;
		}
	}
	on_stop(s, t, status);
}

void bts_session_report(struct bts_session *s, pid_t tid, int status)
{
	on_report(s, tid, status);
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
		if (WIFSTOPPED(status))
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
		/* Dead before its int3s come out: nothing runs untraced. */
		kill(s->pid, SIGKILL);
		bts_step_restore(s);
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
		if (bts_lift_next(s, &tid, &status)) {
			/* Held while an int3 was out (step_hold.c): its report now. */
			on_report(s, tid, status);
			continue;
		}
		if (s->stop) {
			stop_session(s);
			break;
		}
		if (s->kmod)
			tid = bts_kmod_wait(s, &status);
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
		on_report(s, tid, status);
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

void bts_session_stats(const struct bts_session *s, struct bts_session_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!s)
		return;
	st->source = s->source;
	/* The counters may move under another thread's bts_session_run(). */
	st->threads = __atomic_load_n(&s->nthreads_seen, __ATOMIC_RELAXED);
	st->records = __atomic_load_n(&s->records, __ATOMIC_RELAXED);
	st->lost = __atomic_load_n(&s->lost, __ATOMIC_RELAXED);
	st->pid = s->pid;
	st->exited = s->exited;
	st->status = s->status;
	st->cut = s->cut;
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
	bts_kmod_close(s);
	bts_place_release(s);
	bts_skip_free(s);
	bts_procs_free(s);
	free(s->crash_pattern);
	bts_insn_cache_free(s->icache);
	bts_block_cache_free(s->bcache);
	bts_bp_free(&s->bps);
	bts_mapset_clear(&s->maps);
	free(s->threads);
	free(s);
}
