/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A recording session: the traced threads, their rings, the known maps,
 * and the source that records them (source.h, the interface every source
 * under ../sources/ fills in).
 *
 * session.c          the event loop (waitpid, dispatch, stop)
 * stop_event.c       a ptrace stop decoded into an event, for every client
 * session_spawn.c    starting a program traced from its first instruction
 * session_attach.c   attaching to a running process, and detaching
 * session_threads.c  the thread table, rings, records to the writer
 * session_fork.c     processes: the main one and the children followed
 * breakpoints.c      the int3 table of a memory (a source's and a debugger's)
 * source_names.c     the names of the sources
 *
 * The session calls nothing above it: the layer that creates one
 * (../recorder/) hands it the source it picked (../sources/NAME/, each
 * with its state behind the session's and each thread's @src) and the
 * flight recorder's hook (../crash/), in a struct bts_session_setup.
 */
#ifndef BTS_SESSION_H
#define BTS_SESSION_H

#include <sched.h>
#include <signal.h>
#include <sys/user.h>

#include "session/breakpoints.h"
#include "internal.h"
#include "records/ring.h"
#include "session/stop_event.h"
#include "session/source.h"

#define BTS_DEFAULT_BUFFER	(4u << 20)

/* A counter that bts_session_stats() may read while the session runs. */
#define bts_count_add(p, n)	__atomic_fetch_add((p), (n), __ATOMIC_RELAXED)

/* The executable mappings written to the trace so far, sorted. */
struct bts_mapset {
	struct bts_map *maps;
	size_t n;
	struct bts_map *last;	/* the last hit: most records stay in one map */
	uint64_t miss[8];	/* pages the maps did not explain: ask no more */
	unsigned int nmiss;
};

/*
 * A traced process (session_fork.c): the main one and each child followed.
 * The current one (the process of the thread whose event is handled) has
 * its maps in bts_session.maps; the others keep theirs here.
 */
struct bts_proc {
	struct bts_session_process pub;	/* what bts_session_process() shows */
	char *exe;
	char *crash_file;
	char *crash_error;
	struct bts_mapset maps;
	/*
	 * The process whose memory it runs in: itself, or for a vfork child
	 * until it execs, its parent's.  The int3 table of that memory is in
	 * bts_session.bps while it is the loaded one, else in @bps here.
	 */
	struct bts_proc *mem;
	struct bts_bptab bps;
	bool bp_off;
	bool nobp;		/* its threads single-step (no int3 of ours) */
	bool abi32;		/* a 32-bit (i386) image (bts_proc_is_64bit()) */
	uint64_t image;		/* equal numbers: the same code at the same addresses */
	size_t nthreads;	/* live threads */
};

struct bts_thread {
	pid_t tid;
	struct bts_proc *proc;	/* its process */
	struct bts_ring ring;
	void *mem;
	bool started;		/* its first stop was seen */
	bool running;		/* resumed; a stop or exit will be reported */
	bool exiting;		/* PTRACE_EVENT_EXIT seen */
	bool shadow;		/* a vfork child: run through, nothing recorded */
	int detach_sig;		/* signal to pass on when detaching */

	void *src;		/* its source's state (sources/NAME/) */

	/* session_control.c: a debugger keeps it stopped (see bts_resume). */
	bool held;
	bool ctl_step;		/* a debugger's single step is under way */
	/*
	 * Where that step began; @ctl_fresh: in a syscall, whose end may
	 * report a trap before the instruction at @ctl_pc runs.
	 */
	uint64_t ctl_pc;
	bool ctl_fresh;
	int held_sig;		/* the signal to resume it with */
};

/* A child the tracee forked, until its breakpoints are out and it is let go. */
struct bts_fork {
	pid_t pid;
	bool stopped;		/* its first stop came before its parent's event */
	bool known;		/* the parent's event came: @vfork is known */
	bool vfork;		/* shares its parent's memory (vfork, CLONE_VM) */
	struct bts_proc *parent;	/* known with the event */
};

/*
 * What a debugger (session_control.c) registers to have its say: @hold is
 * asked by bts_resume() first (true: @t stays stopped, @sig kept for
 * later); a source carries out no branch at a pc where @stop_at says the
 * debugger wants the thread to stop.  @arg is theirs; NULL: no debugger.
 */
struct bts_session_hooks {
	bool (*hold)(void *arg, struct bts_thread *t, int sig);
	bool (*stop_at)(void *arg, struct bts_thread *t, uint64_t pc);
	void *arg;
};

/*
 * What the layer that creates a session (recorder/) hands it: the options,
 * whole and checked, the source it picked from its table, and the hook of
 * the flight recorder.
 */
struct bts_session_setup {
	struct bts_session_opts opts;	/* bts_session_opts_check()ed */
	const struct bts_source_ops *ops;
	int source;			/* PTBTS_SOURCE_* it records as */
	/*
	 * A signal the program is about to get (--on-crash): written as a
	 * crash trace when it is fatal.  NULL: nothing is done with it.
	 */
	void (*crash_check)(struct bts_session *s, struct bts_thread *t,
			    int sig, const siginfo_t *si);
};

struct bts_session {
	pid_t pid;
	bool spawned;
	bool guest32;		/* an emulator's guest is i386 code */
	char *guest_exe;	/* the guest program (its crash traces' name) */
	uint64_t guest_base;	/* host address of the guest's address 0 */
	int source;
	int mode;
	uint64_t buffer_size;
	uint64_t pebs_event;	/* kmod-pebs: what it samples, how often */
	uint64_t pebs_period;
	struct bts_writer *w;
	volatile sig_atomic_t stop;
	int err;		/* the first failure to write the trace */

	struct bts_thread **threads;	/* live threads */
	size_t nthreads, cap;
	struct bts_thread *last;	/* the thread of the last event */

	struct bts_mapset maps;

	bool no_int3;		/* the source plants no int3 in this session */
	bool bp_off;		/* no more breakpoints (the program is dying) */
	struct bts_bptab bps;
	struct bts_fork forks[16];
	size_t nforks;

	/* Read by bts_session_stats() from any thread: bts_count_add() only. */
	uint64_t nthreads_seen;
	uint64_t records;
	uint64_t lost;
	bool exited;
	int status;

	const struct bts_source_ops *ops;	/* the source that records */
	void *src;		/* its state (sources/NAME/) */
	struct bts_session_hooks hooks;	/* a debugger's, when one controls it */
	/* The flight recorder's (struct bts_session_setup); NULL: none. */
	void (*crash_check)(struct bts_session *s, struct bts_thread *t,
			    int sig, const siginfo_t *si);

	/* The processes (session_fork.c, crash/). */
	struct bts_proc **procs;
	size_t nprocs, capprocs;
	struct bts_proc *cur;	/* the process whose maps are in @maps */
	struct bts_proc *bps_owner; /* the memory whose int3s are in @bps */
	uint64_t images;	/* image numbers given out */
	bool follow;		/* children are traced too */
	bool on_crash;		/* flight recorder: crash traces only */
	char *crash_pattern;

	/* Placement and bounds (placement.c, limits.c). */
	int cpu;		/* tracer and program share it; -1: not placed */
	bool placed;		/* @tracer_mask is to be put back */
	bool prog_saved;	/* @prog_mask: an attached process' own */
	cpu_set_t tracer_mask, prog_mask;
	uint64_t max_records;	/* 0: no bound */
	uint64_t emitted;	/* records counted against it */
	uint64_t deadline_ns;	/* CLOCK_MONOTONIC; 0: none */
	int cut;		/* &enum bts_cut */
	uint64_t sync_ns;	/* session_sync.c: the next sync to the file */
};

/* session.c */
/*
 * The session of @setup for process @pid (0: spawned later): its source
 * open, its bounds and placement set.  0 or -BTS_E_*.
 */
int bts_session_new(const struct bts_session_setup *setup, pid_t pid,
		    struct bts_session **out);
/*
 * @opts (may be NULL) into @o, whole, by the rule of util/opts.h:
 * 0, or -BTS_E_INVAL.
 */
int bts_session_opts_take(const struct bts_session_opts *opts,
			  struct bts_session_opts *o);
/*
 * The options @o taken refused when they do not hold together (mode,
 * buffer size, PEBS event), kmod-pebs's defaults filled in: 0 or
 * -BTS_E_INVAL.
 */
int bts_session_opts_check(struct bts_session_opts *o);
int bts_session_write_start(struct bts_session *s);
void bts_note_err(struct bts_session *s, int err);
int bts_resume(struct bts_session *s, struct bts_thread *t, int sig);
/* Whether a debugger wants @t to stop at @pc (struct bts_session_hooks). */
bool bts_session_stop_at(struct bts_session *s, struct bts_thread *t,
			 uint64_t pc);
int bts_proc_is_64bit(pid_t pid);
void bts_reap(struct bts_session *s, struct bts_thread *t, int status);
/* One decoded stop (or end) of a traced thread, handled by the recording. */
void bts_session_dispatch(struct bts_session *s, const struct bts_stop_event *ev);
/* One waitpid() report: decoded, then dispatched. */
void bts_session_report(struct bts_session *s, pid_t tid, int status);
/*
 * A stop of @t's that came instead of the one asked for (an interrupt): the
 * source takes its own step, syscall or site stop into @t's records, and
 * the thread stays stopped.  True when the stop was the source's.
 */
bool bts_session_own_stop(struct bts_session *s, struct bts_thread *t,
			  const struct bts_stop_event *ev);
/* @t is stopped and stays so a while: its source records what it ran. */
void bts_session_sync(struct bts_session *s, struct bts_thread *t);
/*
 * A report the source kept back, due before the next wait: true and
 * *@tid, *@status.  @all_stopped: no thread runs.
 */
bool bts_session_held(struct bts_session *s, bool all_stopped, pid_t *tid,
		      int *status);
/* Every change the source made to the program's code comes out. */
void bts_session_restore(struct bts_session *s);

/* session_sync.c: the file holds what was recorded up to a second ago */
void bts_session_sync_due(struct bts_session *s);

/*
 * session_spawn.c: @name as exec would find it (PATH), into @out; 0, or
 * -BTS_E_* saying why it cannot run.
 */
int bts_spawn_resolve(const char *name, char *out, size_t len);
/* The session of @setup for the program at @path run with @argv. */
int bts_session_spawn(const struct bts_session_setup *setup,
		      char *const argv[], const char *path,
		      struct bts_session **out);

/* session_attach.c */
/* 0 when process @pid may be attached to, else -BTS_E_* saying why not. */
int bts_attach_check(pid_t pid);
/* The session of @setup, attached to every thread of process @pid. */
int bts_session_attach(const struct bts_session_setup *setup, pid_t pid,
		       struct bts_session **out);
int bts_detach_all(struct bts_session *s);
/* Every thread stopped (PTRACE_INTERRUPT), its records taken meanwhile. */
void bts_quiesce(struct bts_session *s);

/* placement.c: tracer and program on one CPU */
int bts_place_init(struct bts_session *s, int placement, int cpu);
void bts_place_thread(struct bts_session *s, pid_t tid);
void bts_place_release(struct bts_session *s);

/* limits.c: --max-size, --duration */
int bts_limits_init(struct bts_session *s, uint64_t max_size,
		    uint64_t duration_ms);
/* Whether one more record may be written; false: the recording is cut. */
bool bts_limits_record(struct bts_session *s);
/* At each report: cuts the recording once its time is up. */
void bts_limits_check(struct bts_session *s);
/*
 * How many of @n records made elsewhere (the module's) may be written; past
 * the bound, the recording is cut.
 */
size_t bts_limits_take(struct bts_session *s, size_t n);
/* How many more records the size bound allows; 0 when there is none. */
uint64_t bts_limits_left(const struct bts_session *s);
/*
 * The producer says the size bound was passed, though fewer records came
 * (STOP mode dropped the one past it): the recording is cut.
 */
void bts_limits_passed(struct bts_session *s);
/* The cut stops every thread before it kills them (kmod-step's --duration). */
bool bts_limits_stop_first(const struct bts_session *s);

/* session_threads.c */
struct bts_thread *bts_thread_find(struct bts_session *s, pid_t tid);
int bts_thread_add(struct bts_session *s, pid_t tid, struct bts_thread **out);
int bts_thread_add_shadow(struct bts_session *s, pid_t tid,
			  struct bts_thread **out);
void bts_thread_remove(struct bts_session *s, struct bts_thread *t);
void bts_thread_emit(struct bts_session *s, struct bts_thread *t,
		     uint64_t from, uint64_t to, int kind);
void bts_thread_drain(struct bts_session *s, struct bts_thread *t);
void bts_thread_flush(struct bts_session *s, struct bts_thread *t);
void bts_maps_write_all(struct bts_session *s);
/*
 * How many of @len bytes at @addr lie in the current process's executable
 * maps: code is never decoded (nor an int3 planted) past their end.
 */
size_t bts_code_span(struct bts_session *s, uint64_t addr, size_t len);
/* Maps of the current process not yet written that hold @to: written now. */
void bts_maps_check(struct bts_session *s, uint64_t to);

/*
 * session_threads.c: @t's registers as the program has them, from its
 * source (a kmod source masks the trap flag it keeps set).  0 or -errno.
 * Every register value libbts reports (gdb stub, crash files) comes from
 * here.
 */
int bts_thread_getregs(struct bts_session *s, struct bts_thread *t,
		       struct user_regs_struct *r);

/* session_fork.c: processes, children of the tracee */
int bts_procs_start(struct bts_session *s);
void bts_proc_enter(struct bts_session *s, struct bts_proc *p);
struct bts_proc *bts_proc_find(struct bts_session *s, pid_t pid);
/* The process of the thread (the main one before the table exists). */
static inline pid_t bts_thread_pid(const struct bts_session *s,
				   const struct bts_thread *t)
{
	return t->proc ? t->proc->pub.pid : s->pid;
}
/* The process whose maps are current. */
static inline pid_t bts_cur_pid(const struct bts_session *s)
{
	return s->cur ? s->cur->pub.pid : s->pid;
}
/* Whether @t's process runs in memory of its own (no vfork child's). */
static inline bool bts_owns_bps(const struct bts_session *s,
				const struct bts_thread *t)
{
	(void)s;
	return !t->proc || t->proc->mem == t->proc;
}
/* The process whose memory the loaded int3 table (s->bps) is about. */
static inline pid_t bts_mem_pid(const struct bts_session *s)
{
	return s->bps_owner ? s->bps_owner->pub.pid : s->pid;
}
/* After the loaded table was restored: every other process's too. */
void bts_procs_restore(struct bts_session *s);
/* Whether @t must single-step: its memory holds none of our int3s. */
static inline bool bts_thread_nobp(const struct bts_thread *t)
{
	return t->proc && t->proc->nobp;
}
/* Whether thread @tid single-steps in memory without our int3s. */
bool bts_tid_nobp(struct bts_session *s, pid_t tid);
bool bts_fork_clone_event(struct bts_session *s, struct bts_thread *t,
			  pid_t child);
/*
 * An exec in @t's process, for every source: its new program, the EXEC
 * chunk, its bitness (bts_proc_is_64bit() of it, returned), and the entry
 * pc in *@entry.  The new maps are the caller's to write.
 */
int bts_proc_exec(struct bts_session *s, struct bts_thread *t, uint64_t *entry);
/*
 * After bts_proc_exec(), for a source that plants int3s: the process's
 * new memory, without them (its own for a vfork child), no code cached.
 */
void bts_proc_exec_memory(struct bts_session *s, struct bts_thread *t);
void bts_procs_reaped(struct bts_session *s, struct bts_thread *t, int status);
void bts_procs_kill(struct bts_session *s);
void bts_procs_free(struct bts_session *s);
void bts_fork_event(struct bts_session *s, struct bts_thread *t, pid_t child,
		    bool vfork);
bool bts_fork_child_stop(struct bts_session *s, pid_t tid);
bool bts_fork_forget(struct bts_session *s, pid_t pid);
void bts_fork_kill_shadows(struct bts_session *s);

/* maps.c */
void bts_mapset_clear(struct bts_mapset *set);
bool bts_mapset_contains(struct bts_mapset *set, uint64_t addr);
/* The map of @set holding @addr, or NULL. */
struct bts_map *bts_mapset_find(const struct bts_mapset *set, uint64_t addr);
/*
 * The maps of @pid read again (@code: which are code; NULL: the
 * executable ones; @shift: an emulator's guest's base, taken off the
 * host's addresses), each one not known before to @emit.
 */
int bts_mapset_refresh(struct bts_mapset *set, pid_t pid, uint64_t addr,
		       bts_map_code_fn code, uint64_t shift,
		       int (*emit)(void *arg, const struct bts_map *m),
		       void *arg);
/*
 * The program's code maps of @pid, as the session's source sees them (an
 * emulator's guest's, at the guest's addresses); their count, or < 0.
 */
int bts_maps_session(struct bts_session *s, pid_t pid, struct bts_map **out);
/*
 * After the map @m was written: a copy of its code when no file holds it
 * (the vDSO), so that readers of the trace can name and decode it.
 */
int bts_map_write_code(struct bts_session *s, const struct bts_map *m);

#endif /* BTS_SESSION_H */
