/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libbts: record, store and read branch traces.
 *
 * By subject: version and errors; options; records; sources and
 * refusals; sessions (recording, maps and code, a debugger's control);
 * rings; trace files: writing, reading, crash data; decoding
 * (instructions, function calls); symbols; the module's per-CPU mode;
 * PEBS records.
 *
 * Conventions (after libipt and libbpf):
 *  - functions that can fail return 0 or a count on success and a negative
 *    &enum bts_error on failure; bts_errstr() names the code and
 *    bts_errdetail() says what exactly went wrong in the calling thread's
 *    last failing call (for example "offset 96: chunk overruns the file").
 *    Each function's comment lists the errors it returns ("Errors:");
 *    -BTS_E_NOMEM may come from any function that allocates;
 *  - objects are opaque.  Every object bts_X is made by bts_X_new() (or
 *    bts_X_new_HOW() when there are several ways: bts_session_new_spawn(),
 *    bts_trace_new_mem()) and destroyed by bts_X_free(), which takes NULL
 *    and cannot fail.  Any other verb keeps the object: a writer's
 *    bts_writer_finish() commits its file, bts_session_stop() ends a
 *    recording, and each is still freed with bts_X_free();
 *  - options structs start with their size: declare them with BTS_OPTS() so
 *    that a caller built against an older libbts keeps working.  A field
 *    is read only when the size covers it whole; a struct larger than this
 *    libbts's is refused with -BTS_E_INVAL unless every byte past the
 *    fields it knows is zero;
 *  - a struct the library fills for the caller (an output that may grow:
 *    bts_insn_next(d, &e, sizeof(e))) comes with the size the caller was
 *    built with, as the last argument.  The library fills the first
 *    min(that size, its own) bytes and touches nothing past them: an older
 *    caller gets the fields it knows, a newer one the fields this library
 *    knows and the rest of its struct as it left it.  A size of 0 is
 *    refused with -BTS_E_INVAL;
 *  - structs the library owns and hands out by pointer (bts_trace_info(),
 *    bts_trace_thread(), ...) only grow at their end.  Structs handed out
 *    in arrays (struct bts_map, bts_code, bts_frame, bts_span) and struct
 *    bts_regs keep their layout for the life of the SONAME;
 *  - strings and arrays the library returns belong to the object they came
 *    from and live as long as it does, unless said otherwise.
 */
#ifndef BTS_H
#define BTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <linux/ptrace_bts.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BTS_API __attribute__((visibility("default")))

/* The objects, all opaque. */
struct bts_session;
struct bts_control;
struct bts_ring;
struct bts_writer;
struct bts_trace;
struct bts_rec_iter;
struct bts_insn_decoder;
struct bts_index;
struct bts_trace_memory;
struct bts_call_cursor;
struct bts_call_history;
struct bts_symbolizer;
struct bts_percpu;

/* ============================================================================
 * Version and errors
 * ========================================================================== */

/* Version of the library: major << 16 | minor << 8 | patch.  Never fails. */
BTS_API unsigned int bts_version(void);

enum bts_error {
	BTS_OK = 0,
	BTS_E_INVAL,		/* invalid argument */
	BTS_E_NOMEM,		/* out of memory */
	BTS_E_IO,		/* a read, write or rename failed (errno in detail) */
	BTS_E_FORMAT,		/* not a trace file, or a malformed one */
	BTS_E_VERSION,		/* a trace file of a version this libbts cannot read */
	BTS_E_TRUNCATED,	/* a trace file that ends early (never completed) */
	BTS_E_NOENT,		/* program not found */
	BTS_E_NOEXEC,		/* program found but cannot be run */
	BTS_E_PERM,		/* ptrace refused (permissions, Yama, seccomp) */
	BTS_E_SRCH,		/* no such process or thread */
	BTS_E_NOSOURCE,		/* the branch source is not available here */
	BTS_E_AGAIN,		/* BLOCK-mode ring is full: drain, then retry */
	BTS_E_DECODE,		/* an instruction could not be decoded */
	BTS_E_INTERNAL,		/* a bug in libbts */
	BTS_E_MAX,
};

/* The name of @err (positive or negative), "unknown error" past the last. */
BTS_API const char *bts_errstr(int err);
/* What the calling thread's last failing call said; "" when none failed. */
BTS_API const char *bts_errdetail(void);

/* ============================================================================
 * Options
 * ========================================================================== */

/* Options structs: BTS_OPTS(bts_session_opts, o, .mode = PTBTS_MODE_RING); */
#define BTS_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };\
	})

/* ============================================================================
 * Records
 * ========================================================================== */

/*
 * The kind of a record (&enum ptbts_kind).  Marker kinds require from == 0
 * and branch kinds from != 0.
 * Errors: -BTS_E_FORMAT when its software-owned flag bits hold a kind or
 * reserved bit this libbts does not know, or from disagrees with the kind;
 * -BTS_E_INVAL for NULL.
 */
BTS_API int bts_record_kind(const struct ptbts_record *rec);

/* "branch", "signal", "sigreturn", "exec", "lost", "gap", "filtered". */
BTS_API const char *bts_kind_name(int kind);

/* ============================================================================
 * Sources and refusals
 * ========================================================================== */

/* Not a kernel source: a choice made by libbts at attach time. */
#define BTS_SOURCE_AUTO (-1)

/* "auto", "kmod-bts", "kmod-pebs", "kmod-step", "perf-bts", "ptrace-step". */
BTS_API const char *bts_source_name(int source);
/*
 * The &enum ptbts_source (or BTS_SOURCE_AUTO, which is negative) for a
 * name into *source: 0, and *source untouched on failure.
 * Errors: -BTS_E_INVAL (NULL, or no source of that name).
 */
BTS_API int bts_source_parse(const char *name, int *source);

struct bts_source_info {
	int source;		/* &enum ptbts_source */
	bool available;
	char why[320];		/* when not available: why, and what to do */
};

/*
 * Probes every source on this machine, fastest first.  Fills up to @n
 * entries of @size bytes each (the caller's sizeof(*out)) and returns how
 * many sources there are.
 * Errors: -BTS_E_INVAL (@size 0 with entries to fill).
 */
BTS_API int bts_probe_sources(struct bts_source_info *out, size_t n,
			      size_t size);

/*
 * Why tracing is refused on this machine: each check reads the system's
 * state (and tries ptrace and perf_event_open once) and says it in one
 * line, with what to do.  `btrace info` prints every check; a command that
 * is refused prints the line of the check that refuses it.
 *
 * For tests only: when the environment holds BTS_PROC_ROOT or
 * BTS_SYSFS_ROOT (and the process is not setuid), the files under /proc
 * and /sys that the checks and the perf-bts availability read are read
 * below that directory instead (BTS_PROC_ROOT/sys/kernel/..., BTS_PROC_ROOT/
 * self/status, BTS_PROC_ROOT/cpuinfo, BTS_SYSFS_ROOT/kernel/security/
 * lockdown, ...).  The tries are always real.
 */
enum bts_refusal_check {
	BTS_REFUSAL_YAMA = 0,	/* Yama's kernel.yama.ptrace_scope */
	BTS_REFUSAL_POLICY,	/* a seccomp or container policy blocks ptrace
				 * or perf_event_open */
	BTS_REFUSAL_PARANOID,	/* kernel.perf_event_paranoid */
	BTS_REFUSAL_PTI,	/* page-table isolation on or off */
	BTS_REFUSAL_LOCKDOWN,	/* kernel lockdown (signed modules only) */
	BTS_REFUSAL_MODULE,	/* ptrace_bts module not loaded, or another ABI */
	BTS_REFUSAL_MAX,
};

struct bts_refusal {
	int check;		/* &enum bts_refusal_check */
	uint32_t sources;	/* 1 << &enum ptbts_source for each source it
				 * refuses; 0: nothing is refused */
	bool attach_only;	/* only attaching to a running process is refused */
	char line[320];		/* "ok: ..." when nothing is refused; else
				 * what is refused, why, and what to do */
};

/* "yama", "policy", "paranoid", "pti", "lockdown", "module"; NULL past the last. */
BTS_API const char *bts_refusal_name(int check);
/*
 * Runs one check into *out (@size: the caller's sizeof(*out)): 0.
 * Errors: -BTS_E_INVAL (an unknown check, NULL @out, @size 0).
 */
BTS_API int bts_refusal_check(int check, struct bts_refusal *out, size_t size);
/*
 * The first check, in enum order, that refuses @source (BTS_SOURCE_AUTO:
 * every source, i.e. ptrace itself); @attach: the process is not ours to
 * start (`record -p`).  1 and *out filled (@out may be NULL; @size: the
 * caller's sizeof(*out)), or 0 when none refuses it.  Never fails.
 */
BTS_API int bts_refusal_for(int source, bool attach, struct bts_refusal *out,
			    size_t size);

/* ============================================================================
 * Sessions: recording a program
 *
 * A session traces a program it starts (bts_session_new_spawn()) or one
 * that runs (bts_session_new_attach()) through one source, writes its
 * records to a trace writer as it goes, and ends when every traced thread
 * is gone or bts_session_stop() is called.
 * ========================================================================== */

/* &struct bts_session_opts.cpu_placement */
enum bts_cpu_placement {
	BTS_CPU_AUTO	= 0,
	BTS_CPU_NONE	= 1,
	BTS_CPU_PIN	= 2,
};

/* &struct bts_session_stats.cut */
enum bts_cut {
	BTS_CUT_NONE		= 0,
	BTS_CUT_MAX_SIZE	= 1,
	BTS_CUT_DURATION	= 2,
};

/*
 * Options of a session (BTS_OPTS(); NULL: every default):
 *   source         &enum ptbts_source, or BTS_SOURCE_AUTO (0 is
 *                  PTBTS_SOURCE_NONE: give AUTO for the default choice);
 *   mode           &enum ptbts_mode: RING or BLOCK;
 *   buffer_size    bytes per thread; 0: the default (4 MiB);
 *   writer         where the trace goes; may be NULL;
 *   no_follow      children forked, vforked or cloned as processes are let
 *                  go untraced (the default follows them: each has its own
 *                  process, threads and records in the trace, and so do
 *                  theirs; every source follows);
 *   on_crash       nothing goes to @writer: every thread keeps its newest
 *                  @buffer_size / 24 records in RING mode, and a process
 *                  about to die of a signal (default action, terminating)
 *                  gets a crash trace of its own, named from @crash_pattern
 *                  ("%p" pid, "%e" program name, "%%" a percent sign;
 *                  NULL: "btrace-crash.%e.%p.btr");
 *   cpu_placement  BTS_CPU_AUTO (0, the default): a ptrace-step session pins
 *                  the tracer and every traced thread to the CPU the tracer
 *                  runs on (each stop then wakes a thread on the same CPU:
 *                  faster and steadier); BTS_CPU_PIN: to CPU @cpu instead;
 *                  BTS_CPU_NONE: affinities are left alone.  kmod-step is
 *                  not placed.  The program sees the one-CPU mask while it
 *                  is traced; an attached one gets its own back at detach;
 *   skip           globs (fnmatch) on the file name (basename) of mapped
 *                  objects, e.g. "libc.so.6", "ld-linux*": their code runs
 *                  at full speed.  The transfer into such an object and the
 *                  one out of it are recorded; a PTBTS_KIND_FILTERED marker
 *                  stands for what ran inside (see README, "Filters");
 *   max_size       the recording is cut once this many bytes of records
 *                  (24 bytes each, markers included) were recorded: the
 *                  trace holds exactly max_size / 24 records;
 *   duration_ms    ... once this long has passed since the session began
 *                  (checked at each stop of the program; btrace also arms a
 *                  timer so that an idle program is cut in time);
 *   pebs_event     kmod-pebs only: the event it samples, as
 *                  bts_pebs_event_problem() allows; 0: BR_INST_RETIRED.
 *                  ALL_BRANCHES (PTBTS_PEBS_EVENT_BRANCHES);
 *   pebs_period    kmod-pebs only: one sample every this many events
 *                  (0: 1000).  Another source refuses a nonzero one of
 *                  these two with -BTS_E_INVAL.
 * A cut recording ends as bts_session_stop() ends one (a spawned program is
 * killed, an attached one detached); bts_session_stats() says why in @cut.
 */
struct bts_session_opts {
	size_t sz;
	int source;		/* &enum ptbts_source or BTS_SOURCE_AUTO */
	int mode;		/* &enum ptbts_mode: RING or BLOCK */
	uint64_t buffer_size;	/* bytes per thread; 0: the default (4 MiB) */
	struct bts_writer *writer; /* where the trace goes; may be NULL */
	bool no_follow;
	bool on_crash;
	const char *crash_pattern;
	int cpu_placement;	/* &enum bts_cpu_placement */
	int cpu;		/* BTS_CPU_PIN: the CPU */
	const char *const *skip; /* NULL-terminated globs, or NULL */
	uint64_t max_size;	/* bytes of records (24 each); 0: no bound */
	uint64_t duration_ms;	/* 0: no bound */
	uint64_t pebs_event;	/* kmod-pebs: 0: PTBTS_PEBS_EVENT_BRANCHES */
	uint64_t pebs_period;	/* kmod-pebs: 0: 1000 */
};

/*
 * Starts argv[0] (searched in PATH) traced from its first instruction:
 * 0 and *@out, the program stopped before its first instruction until
 * bts_session_run().
 * Errors: -BTS_E_INVAL (bad options, a skip glob or placement that cannot
 * be used), -BTS_E_NOENT / -BTS_E_NOEXEC (it cannot be run), -BTS_E_PERM
 * (ptrace or the source refused), -BTS_E_NOSOURCE (the source asked for
 * does not work here: bts_errdetail() says why), -BTS_E_NOMEM,
 * -BTS_E_INTERNAL.
 */
BTS_API int bts_session_new_spawn(char *const argv[],
				  const struct bts_session_opts *opts,
				  struct bts_session **out);
/*
 * Traces every thread of the running process @pid: 0 and *@out.
 * Errors: as bts_session_new_spawn(), and -BTS_E_SRCH (no such process),
 * -BTS_E_NOEXEC (not an ELF image, or a 32-bit one the source cannot
 * trace).
 */
BTS_API int bts_session_new_attach(pid_t pid,
				   const struct bts_session_opts *opts,
				   struct bts_session **out);
/*
 * Whether a crash trace named from @pattern (as bts_session_opts's
 * crash_pattern) for a process running @exe could be written: the name
 * is not too long, and a file can be created and removed in its
 * directory.  Checked before tracing starts, since a crash comes once.
 * Returns 0.
 * Errors: -BTS_E_INVAL (a name too long), -BTS_E_IO (the directory),
 * -BTS_E_NOMEM.
 */
BTS_API int bts_crash_pattern_check(const char *pattern, const char *exe);
/*
 * Traces until every traced thread is gone or bts_session_stop() is
 * called; then flushes all records to the writer.  On a stop, code the
 * source changed is restored; an attached process is detached and runs on,
 * a spawned one is killed.  Returns 0.
 * Errors: the writer's (-BTS_E_IO, ...), -BTS_E_SRCH, -BTS_E_NOMEM,
 * -BTS_E_INTERNAL (a stop the source could not make sense of).
 */
BTS_API int bts_session_run(struct bts_session *s);
/* Ends bts_session_run() soon.  Async-signal-safe; never fails. */
BTS_API void bts_session_stop(struct bts_session *s);
/*
 * Kills a spawned program or detaches an attached one if the session still
 * traces it, and frees @s (NULL: nothing).  The writer stays the caller's.
 */
BTS_API void bts_session_free(struct bts_session *s);

struct bts_session_stats {
	int source;		/* the source in use */
	uint64_t threads;	/* threads seen */
	uint64_t records;	/* records written, markers included */
	uint64_t lost;
	pid_t pid;		/* the main process */
	bool exited;		/* the main process ended (not detached) */
	int status;		/* its waitpid() status, when @exited */
	int cut;		/* &enum bts_cut: why the recording was cut short */
};
/*
 * The figures of @s into *st (@size: the caller's sizeof(*st)); all zero
 * for a NULL @s.  May be called from another thread while
 * bts_session_run() runs (for a progress display): threads, records and
 * lost are then each a recent value, the rest is meaningful after the run.
 * Errors: -BTS_E_INVAL (NULL @st, @size 0).
 */
BTS_API int bts_session_stats(const struct bts_session *s,
			      struct bts_session_stats *st, size_t size);

/* A process the session traced (bts_session_process()). */
struct bts_session_process {
	pid_t pid;
	pid_t ppid;
	const char *exe;	/* its last image */
	bool exited;		/* its end was seen */
	int status;		/* waitpid() status, when @exited */
	const char *crash_file;	/* on-crash: the file written for it, or NULL */
	const char *crash_error; /* on-crash: why no file could be written, or NULL */
	int crash_signal;	/* on-crash: the signal it was about to die of, or 0 */
};
/* The processes the session traced, in the order it met them. */
BTS_API size_t bts_session_nprocesses(const struct bts_session *s);
/* Process @i of them, or NULL past the last; valid until @s is freed. */
BTS_API const struct bts_session_process *
bts_session_process(const struct bts_session *s, size_t i);

/* ------------------------------------------------------ maps and code bytes */

#define BTS_BUILD_ID_MAX 64

struct bts_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;	/* file offset of start */
	uint32_t prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t build_id_len;	/* 0 when unknown */
	uint8_t build_id[BTS_BUILD_ID_MAX];
	char *path;		/* file, "[vdso]", or "" for anonymous memory */
};

/*
 * Reads /proc/PID/maps (executable mappings only), with the build-ids of
 * the files.  Returns the number of maps in *out; free with bts_maps_free().
 * Errors: -BTS_E_INVAL (NULL @out), -BTS_E_SRCH (no such process),
 * -BTS_E_IO (the file cannot be read or holds a line it should not),
 * -BTS_E_NOMEM.
 */
BTS_API int bts_maps_new(pid_t pid, struct bts_map **out);
/* Frees the @n maps of bts_maps_new() (NULL: nothing). */
BTS_API void bts_maps_free(struct bts_map *maps, size_t n);

/*
 * Reads the ORIGINAL code bytes of a traced process: what the program's
 * file or memory holds, with any byte a source planted (a breakpoint) put
 * back.  Every reader of traced code goes through here.  Returns the number
 * of bytes read (may be short at the end of a mapping).
 * Errors: -BTS_E_INVAL (NULL arguments, a process @s does not trace),
 * -BTS_E_IO (nothing could be read at @addr).
 */
BTS_API ssize_t bts_read_code(struct bts_session *s, pid_t pid, uint64_t addr,
			      void *buf, size_t len);

/* ----------------------------------------------------- a debugger's control */

/*
 * The program stays recorded by its source (ptrace-step or kmod-step)
 * while a debugger (btrace gdbserver) stops, steps and inspects it.
 * All-stop: when one thread has an event (its breakpoint, a completed
 * step, a signal, an interrupt), every thread is stopped and held until
 * resumed.  Memory reads return the original code bytes (bts_read_code),
 * so that neither the source's int3s nor the debugger's breakpoints show;
 * a breakpoint and a branch site at one address share one int3.
 */

/*
 * x86-64 registers, in the order and meaning of <sys/user.h>'s
 * struct user_regs_struct (so either can be memcpy'd into the other).
 */
struct bts_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs, eflags, rsp, ss;
	uint64_t fs_base, gs_base, ds, es, fs, gs;
};

enum bts_stop_kind {
	BTS_STOP_NONE = 0,
	BTS_STOP_BREAKPOINT,	/* at a bts_control_insert_bp() address (pc on it) */
	BTS_STOP_STEP,		/* a BTS_RESUME_STEP completed */
	BTS_STOP_SIGNAL,	/* @signo arrived; it is delivered on resume with it */
	BTS_STOP_INTERRUPT,	/* bts_control_interrupt(); @signo SIGINT */
	BTS_STOP_EXITED,	/* every thread is gone; @status as waitpid() */
	BTS_STOP_WAKE,		/* @wake_fd is readable: nothing stopped */
	BTS_STOP_EXEC,		/* the process exec'ed: a new image at its entry, the
				 * debugger's breakpoints gone with the old one */
};

struct bts_stop {
	int kind;		/* &enum bts_stop_kind */
	pid_t tid;		/* the thread of the event */
	int signo;
	int status;		/* BTS_STOP_EXITED */
};

#define BTS_RESUME_CONT	1
#define BTS_RESUME_STEP	2	/* exactly one instruction */

/* The FXSAVE area bts_control_getfpregs() fills (user_fpregs_struct). */
#define BTS_FXSAVE_SIZE 512

/*
 * Takes control of @s (spawned or attached, ptrace-step or kmod-step
 * source; not yet run): every thread is stopped and held.  SIGCHLD is
 * blocked in the caller while the control lives.  0 and *@out.
 * Errors: -BTS_E_INVAL (no session, or one with a debugger already),
 * -BTS_E_NOSOURCE (another source), -BTS_E_NOMEM, -BTS_E_INTERNAL.
 */
BTS_API int bts_control_new(struct bts_session *s, struct bts_control **out);
/* Gives the session back (bts_session_free() then kills or detaches). */
BTS_API void bts_control_free(struct bts_control *c);
BTS_API pid_t bts_control_pid(const struct bts_control *c);
/* Whether the session started the program (else it attached). */
BTS_API bool bts_control_spawned(const struct bts_control *c);
/* The live threads, main thread first: fills up to @n, returns how many. */
BTS_API size_t bts_control_threads(struct bts_control *c, pid_t *tids, size_t n);

/*
 * Lets the held thread @tid run (BTS_RESUME_CONT) or execute one
 * instruction (BTS_RESUME_STEP), with signal @sig (0: none; a signal it
 * stopped with and is not given again is dropped; another one is sent to
 * it, and its handler entry recorded).  Threads not resumed stay held.
 * The resumes are carried out by the next bts_control_wait(), unless a
 * thread resumed has an event still to report (several threads had one at
 * the same stop): then that event is the stop and nothing runs (the
 * signals given are sent all the same).  A pending breakpoint hit whose
 * breakpoint was removed, or whose thread's pc was moved, is dropped.
 * Errors: -BTS_E_SRCH (no such thread), -BTS_E_INVAL (a bad signal or
 * action), -BTS_E_NOMEM.
 */
BTS_API int bts_control_resume(struct bts_control *c, pid_t tid, int action,
			       int sig);
/*
 * Runs until an event (then every thread is held), or until @wake_fd
 * (-1: none) is readable (BTS_STOP_WAKE, the threads run on: call
 * bts_control_interrupt() and wait again to stop them).  0 and *@stop
 * filled (@size: the caller's sizeof(*stop)).
 * Errors: -BTS_E_INVAL (NULL @stop, @size 0), -BTS_E_INTERNAL (poll or
 * waitpid failed).
 */
BTS_API int bts_control_wait(struct bts_control *c, int wake_fd,
			     struct bts_stop *stop, size_t size);
/* Stops the running threads: the next bts_control_wait() reports it. */
BTS_API void bts_control_interrupt(struct bts_control *c);
/* Kills the program and reaps every thread: 0. */
BTS_API int bts_control_kill(struct bts_control *c);
/*
 * Lets the program run on untraced, its code restored (as gdb's detach).
 * Errors: -BTS_E_INTERNAL (a thread could not be detached).
 */
BTS_API int bts_control_detach(struct bts_control *c);

/*
 * The registers of the held thread @tid.
 * Errors (all four): -BTS_E_SRCH (no such held thread), -BTS_E_INVAL (the
 * kernel refused the values).
 */
BTS_API int bts_control_getregs(struct bts_control *c, pid_t tid,
				struct bts_regs *regs);
/* A new pc is a jump the program did not make: a gap in its history. */
BTS_API int bts_control_setregs(struct bts_control *c, pid_t tid,
				const struct bts_regs *regs);
BTS_API int bts_control_getfpregs(struct bts_control *c, pid_t tid,
				  void *fxsave);
BTS_API int bts_control_setfpregs(struct bts_control *c, pid_t tid,
				  const void *fxsave);
/*
 * Original bytes (bts_read_code); a short count at the end of a mapping.
 * Errors (both): -BTS_E_SRCH (no process), -BTS_E_INVAL (a range that
 * wraps), -BTS_E_IO.
 */
BTS_API ssize_t bts_control_read(struct bts_control *c, uint64_t addr,
				 void *buf, size_t len);
BTS_API ssize_t bts_control_write(struct bts_control *c, uint64_t addr,
				  const void *buf, size_t len);
/*
 * The debugger's software breakpoints (one int3 each, hidden from reads).
 * Errors: -BTS_E_SRCH, -BTS_E_IO (the int3 cannot be written),
 * -BTS_E_NOMEM.
 */
BTS_API int bts_control_insert_bp(struct bts_control *c, uint64_t addr);
BTS_API int bts_control_remove_bp(struct bts_control *c, uint64_t addr);

/*
 * The records of thread @tid, numbered from 0 since it was first traced:
 * @written so far, of which [@oldest, @written) are still held (the ring
 * keeps the newest).  bts_control_record() gives one by its number.
 * Errors (both): -BTS_E_SRCH (no such thread), -BTS_E_INVAL (a number not
 * held).
 */
BTS_API int bts_control_trace(struct bts_control *c, pid_t tid,
			      uint64_t *oldest, uint64_t *written);
BTS_API int bts_control_record(struct bts_control *c, pid_t tid, uint64_t n,
			       struct ptbts_record *rec);

/*
 * Recording under a debugger, per source.  With ptrace-step
 * the program runs untraced (no step, no int3 of the source's) until the
 * first bts_control_btrace_enable(), and from then on every thread
 * records; with kmod-step a thread records only
 * from bts_control_btrace_enable() (the held thread is attached to the
 * module with a buffer of @size bytes, rounded up to whole pages: *@actual)
 * to bts_control_btrace_disable() (its buffer is released), and its records
 * are numbered from 0 at the enable.  For ptrace-step both only succeed
 * (*@actual = @size).
 * Errors: -BTS_E_SRCH (no such thread, or it is gone), -BTS_E_INVAL
 * (disabling a thread that does not record), -BTS_E_NOMEM (the module
 * has no buffer of that size).
 */
BTS_API int bts_control_btrace_enable(struct bts_control *c, pid_t tid,
				      uint64_t size, uint64_t *actual);
BTS_API int bts_control_btrace_disable(struct bts_control *c, pid_t tid);

/* ============================================================================
 * Rings
 *
 * A record buffer with the kernel ABI's producer protocol, over memory the
 * caller gives: capacity floor(size / 24) records, as the hardware fills a
 * buffer.  The producer appends, the consumer reads the unread records
 * and marks them consumed; in RING mode the oldest unread ones are
 * overwritten (and counted lost), in STOP mode new ones are dropped (and
 * counted lost), a BLOCK ring refuses them until there is room.
 * ========================================================================== */

/*
 * A ring over @mem of @size bytes (@mem stays the caller's and must outlive
 * the ring), @mode &enum ptbts_mode: 0 and *@out.
 * Errors: -BTS_E_INVAL (no memory, @size under one record, an unknown
 * mode), -BTS_E_NOMEM.
 */
BTS_API int bts_ring_new(void *mem, size_t size, int mode,
			 struct bts_ring **out);
/* Frees @ring (NULL: nothing); its memory stays the caller's. */
BTS_API void bts_ring_free(struct bts_ring *ring);
/* Records the ring holds at most. */
BTS_API uint64_t bts_ring_capacity(const struct bts_ring *ring);
/* Records ever written, overwritten ones included. */
BTS_API uint64_t bts_ring_written(const struct bts_ring *ring);
/* Records consumed, counted since the start. */
BTS_API uint64_t bts_ring_consumed(const struct bts_ring *ring);
/* Records overwritten (RING) or dropped (STOP) before they were read. */
BTS_API uint64_t bts_ring_lost(const struct bts_ring *ring);
/* Appends one record: 0.  Errors: -BTS_E_AGAIN (a BLOCK ring is full). */
BTS_API int bts_ring_put(struct bts_ring *ring, const struct ptbts_record *rec);

struct bts_span {
	const struct ptbts_record *recs;
	size_t n;
};
/*
 * The unread records, oldest first, in at most two spans (the ring may wrap):
 * returns how many spans were filled.  Records overwritten in RING mode are
 * skipped and counted in bts_ring_lost().  Never fails.
 */
BTS_API int bts_ring_unread(struct bts_ring *ring, struct bts_span span[2]);
/* Marks @n records as consumed (frees room in a BLOCK ring). */
BTS_API void bts_ring_consume(struct bts_ring *ring, uint64_t n);

/* ============================================================================
 * Trace files: writing
 *
 * A writer writes raw records (24 bytes each, as the kernel gives them)
 * unless told otherwise; BTS_FORMAT_COMPACT codes them as deltas and
 * varints compressed with zstd, chunk by chunk, a few bytes a branch.
 * Readers read both, in any mix, with the same calls; files in the compact
 * format need a libbts that knows it (older ones refuse them clearly).
 *
 * Every bts_writer_* call that writes returns 0, or the writer's first
 * error, which sticks: -BTS_E_INVAL (bad arguments, a call after
 * bts_writer_finish()), -BTS_E_IO (a write failed; errno in the detail),
 * -BTS_E_NOMEM.
 * ========================================================================== */

enum bts_trace_format {
	BTS_FORMAT_RAW		= 0,
	BTS_FORMAT_COMPACT	= 1,
	/*
	 * Code-aware: a bit per conditional branch, targets only where the
	 * code does not give them (bts_trace_tnt_file()).  A writer does not
	 * write it: a whole trace is rewritten in it.
	 */
	BTS_FORMAT_TNT		= 2,
};

struct bts_crash_info;
struct bts_crash_thread;

/*
 * Creates PATH.tmp.PID and writes the header; bts_writer_finish() writes the
 * end chunk and renames it to PATH, so a file named PATH is always whole.
 * bts_writer_free() without a successful finish removes the temporary file.
 * Errors: -BTS_E_INVAL (no path, or PATH is something other than a regular
 * file), -BTS_E_IO (the file cannot be created), -BTS_E_NOMEM.
 */
BTS_API int bts_writer_new(const char *path, struct bts_writer **out);
/*
 * Writes the end chunk and renames the file to PATH; @w is not freed.  After
 * it every call on @w but bts_writer_free() fails with -BTS_E_INVAL; after a
 * failure the temporary file stays until bts_writer_free() removes it.
 * Errors: the writer's, and -BTS_E_INVAL (finished already, or PATH became
 * something other than a regular file), -BTS_E_IO (fsync, close, rename).
 */
BTS_API int bts_writer_finish(struct bts_writer *w);
BTS_API void bts_writer_free(struct bts_writer *w);
/*
 * Chooses how records are written; only before the first record.
 * Errors: -BTS_E_INVAL (an unknown format, or records were written).
 */
BTS_API int bts_writer_format(struct bts_writer *w, int format);
/*
 * Everything written so far, pending compact records included, goes to the
 * temporary file in whole chunks: what a writer killed later leaves is
 * readable up to there (bts_trace_new_incomplete()).  0 or the writer's
 * error.
 */
BTS_API int bts_writer_sync(struct bts_writer *w);
BTS_API int bts_writer_session(struct bts_writer *w, int source, int mode,
			       uint64_t buffer_size);
BTS_API int bts_writer_process(struct bts_writer *w, pid_t pid, pid_t ppid,
			       const char *exe);
BTS_API int bts_writer_thread(struct bts_writer *w, pid_t pid, pid_t tid);
BTS_API int bts_writer_map(struct bts_writer *w, pid_t pid,
			   const struct bts_map *map);
/*
 * A copy of @len bytes of code at @addr in process @pid, for code no file
 * holds (the vDSO): readers get it back through bts_trace_code().
 */
BTS_API int bts_writer_code(struct bts_writer *w, pid_t pid, uint64_t addr,
			    const void *bytes, size_t len);
/* Process @pid's thread @tid exec'd @exe; maps written after it are the new image's. */
BTS_API int bts_writer_exec(struct bts_writer *w, pid_t pid, pid_t tid,
			    const char *exe, uint64_t entry);
BTS_API int bts_writer_records(struct bts_writer *w, pid_t pid, pid_t tid,
			       const struct ptbts_record *recs, size_t n);
/*
 * @status as waitpid() reports it: WIFEXITED / WIFSIGNALED.  @tid 0: the
 * process @pid ended (its threads with no exit of their own read as ended
 * with it); otherwise the one thread @tid ended.  A process with no exit of
 * its own reads as ended with its main thread's (tid == pid) status.
 */
BTS_API int bts_writer_exit(struct bts_writer *w, pid_t pid, pid_t tid,
			    int status);
/*
 * The crash of @pid: @info's pid, tid, signo, code, si_errno, addr,
 * sender_pid, sender_uid and siginfo (nthreads is ignored), then one
 * bts_writer_crash_thread() per thread (the crashing one first).
 */
BTS_API int bts_writer_crash(struct bts_writer *w,
			     const struct bts_crash_info *info);
BTS_API int bts_writer_crash_thread(struct bts_writer *w, pid_t pid,
				    const struct bts_crash_thread *th);

/* ============================================================================
 * Trace files: reading
 *
 * A trace is opened and fully validated at once: every chunk is checked
 * before bts_trace_new*() returns, so later calls cannot fail on
 * malformed data (only on a file changed under an open trace).  A trace
 * may hold several processes (children followed through fork, vfork and
 * clone) and, per process, several images (one per exec).  Everything is
 * read from the file: no live process is needed.
 * ========================================================================== */

struct bts_trace_info {
	uint32_t version;
	int source;		/* &enum ptbts_source */
	int mode;		/* &enum ptbts_mode */
	uint64_t buffer_size;
	/*
	 * bts_trace_new_incomplete() read a file with no end chunk (its
	 * recorder was killed): only its first @whole_len bytes, the chunks
	 * that were whole, are in the trace.
	 */
	bool incomplete;
	uint64_t whole_len;
};

struct bts_thread_info {
	pid_t pid;
	pid_t tid;
	uint64_t nrecords;	/* records in the file, markers included */
	bool exited;		/* an exit chunk was seen */
	int status;		/* waitpid() status, when @exited */
	/*
	 * The pc the thread's history starts at (a spawned program's entry
	 * point), or 0: unknown, it starts at the first record.
	 */
	uint64_t start;
};

struct bts_process_info {
	pid_t pid;
	pid_t ppid;
	const char *exe;
	bool exited;
	int status;
};

/*
 * Opens and fully validates the trace file @path: 0 and *@out.
 * Errors: -BTS_E_INVAL (no path), -BTS_E_IO (it cannot be read),
 * -BTS_E_FORMAT (not a trace file, or a malformed one: the detail gives
 * the offset), -BTS_E_VERSION (a format this libbts cannot read),
 * -BTS_E_TRUNCATED (no end chunk: a recorder that did not finish),
 * -BTS_E_DECODE (records in the tnt encoding that do not decode against
 * the code the trace names: a file it maps changed or is gone),
 * -BTS_E_NOMEM.
 */
BTS_API int bts_trace_new(const char *path, struct bts_trace **out);
/*
 * bts_trace_new() for what a recorder that was killed left (a FILE.tmp.PID
 * with no end chunk, perhaps cut inside a chunk): every whole chunk is
 * read and validated as bts_trace_new() does, the cut part is left out,
 * and bts_trace_info()'s @incomplete says so.  A complete file opens as
 * with bts_trace_new(); damage before the cut is still an error.
 * Errors: as bts_trace_new(), but never -BTS_E_TRUNCATED.
 */
BTS_API int bts_trace_new_incomplete(const char *path, struct bts_trace **out);
/*
 * bts_trace_new() over @len bytes at @buf, which it copies nothing of:
 * @buf must outlive the trace.  Errors: as bts_trace_new().
 */
BTS_API int bts_trace_new_mem(const void *buf, size_t len,
			      struct bts_trace **out);
/* Frees @t (NULL: nothing) and everything it handed out. */
BTS_API void bts_trace_free(struct bts_trace *t);

BTS_API const struct bts_trace_info *bts_trace_info(const struct bts_trace *t);
/*
 * BTS_FORMAT_TNT when any records of @t are in the tnt encoding, else
 * BTS_FORMAT_COMPACT when any are compact, else RAW.
 */
BTS_API int bts_trace_format(const struct bts_trace *t);
BTS_API size_t bts_trace_nprocesses(const struct bts_trace *t);
/* Process @i, or NULL past the last. */
BTS_API const struct bts_process_info *
bts_trace_process(const struct bts_trace *t, size_t i);
/* Threads in order of first appearance. */
BTS_API size_t bts_trace_nthreads(const struct bts_trace *t);
/* Thread @i, or NULL past the last. */
BTS_API const struct bts_thread_info *
bts_trace_thread(const struct bts_trace *t, size_t i);
/* The index of a thread by its id (for bts_rec_iter_new()), or -1. */
BTS_API long bts_trace_thread_index(const struct bts_trace *t, pid_t tid);
/*
 * The bitness of the code of process @pid in @t, as of its last image: 32
 * for an i386 program (decode it in 32-bit mode), else 64.  ptrace-step
 * and kmod-step record i386 programs on the 64-bit kernel; their addresses
 * and registers come in the 64-bit forms.
 * Errors: -BTS_E_INVAL (@t has no such process).
 */
BTS_API int bts_trace_process_bits(const struct bts_trace *t, pid_t pid);
/*
 * The maps of a process as they stand at the end of the file: a later map
 * replaces what it overlaps of earlier ones (as mmap does; their parts
 * outside it remain).  Sorted by start, none overlapping; 0 for an unknown
 * process.
 */
BTS_API size_t bts_trace_maps(const struct bts_trace *t, pid_t pid,
			      const struct bts_map **maps);

/* Bytes of a process's memory that the trace carries (bts_writer_code). */
struct bts_code {
	uint64_t addr;
	uint64_t len;		/* > 0 */
	const uint8_t *bytes;	/* @len bytes: the code at @addr */
};
/*
 * The code copies of a process as they stand at the end of the file (a
 * later copy replaces what it overlaps of earlier ones).  Sorted by addr,
 * none overlapping; 0 for an unknown process.
 */
BTS_API size_t bts_trace_code(const struct bts_trace *t, pid_t pid,
			      const struct bts_code **code);

/*
 * One image of a process: what it ran between one exec (or its start) and
 * the next.  @maps are the maps written while the image ran (as
 * bts_trace_maps(), a later map replaces what it overlaps), @code the
 * copies of code no file holds.  bts_trace_maps() keeps returning every
 * map the process ever had (the union over its images, later ones win).
 */
struct bts_image_info {
	const char *exe;	/* the program: the process's exe, or the exec's path */
	pid_t tid;		/* the thread that exec'd (0 for the first image) */
	uint64_t entry;		/* the new image's entry pc (0 for the first) */
	size_t nmaps;
	const struct bts_map *maps;
	size_t ncode;
	const struct bts_code *code;
};

/* Images of process @pid, in exec order (>= 1 for a known pid, else 0). */
BTS_API size_t bts_trace_nimages(const struct bts_trace *t, pid_t pid);
/* Image @i of process @pid, or NULL. */
BTS_API const struct bts_image_info *
bts_trace_image(const struct bts_trace *t, pid_t pid, size_t i);

/*
 * The memory of process @pid as the trace shows it: the bytes the decoder
 * reads, from the files its maps name (a file whose build-id differs from
 * the recorded one holds nothing) and the code copies the trace carries.
 * Nothing else of the process's memory (its data, stack, heap) is in a
 * trace.  0 and *@out; @t must outlive it.
 * Errors: -BTS_E_INVAL (NULL @t or @out, no process @pid in @t).
 */
BTS_API int bts_trace_memory_new(const struct bts_trace *t, pid_t pid,
				 struct bts_trace_memory **out);
BTS_API void bts_trace_memory_free(struct bts_trace_memory *m);
/*
 * Up to @len bytes at @addr into @buf: how many were read, short where
 * what the trace holds ends.
 * Errors: -BTS_E_INVAL (NULL @m, NULL @buf with @len), -BTS_E_IO (the trace
 * holds nothing at @addr).
 */
BTS_API ssize_t bts_trace_memory_read(struct bts_trace_memory *m,
				      uint64_t addr, void *buf, size_t len);
/* The @i-th warning (a file not found or changed), or NULL past the last. */
BTS_API const char *bts_trace_memory_warning(const struct bts_trace_memory *m,
					     size_t i);

/* ------------------------------------------------------------------ records */

/*
 * An iterator over the records of thread @thread (an index, as in
 * bts_trace_thread()), oldest first, across all its batches; @t must
 * outlive it.  An index past the last thread gives an iterator with no
 * records.  0 and *@out.
 * Errors: -BTS_E_INVAL (@out NULL), -BTS_E_NOMEM.
 */
BTS_API int bts_rec_iter_new(const struct bts_trace *t, size_t thread,
			     struct bts_rec_iter **out);
/* Frees @it (NULL: nothing). */
BTS_API void bts_rec_iter_free(struct bts_rec_iter *it);
/*
 * 1 and *rec filled, 0 at the end.  Compact records decode a chunk at a
 * time.
 * Errors: -BTS_E_FORMAT, -BTS_E_IO (the file changed since it was opened),
 * -BTS_E_NOMEM; the iterator then reads no further (returns 0).
 */
BTS_API int bts_rec_iter_next(struct bts_rec_iter *it, struct ptbts_record *rec);
/*
 * Moves @it to the thread's record @index (0 is the oldest) without
 * reading the records before it: 1 when there is one there, 0 when @index
 * is past the last (bts_rec_iter_next() then returns 0).  Never fails.
 * A trace's records are read by one thread at a time.
 */
BTS_API int bts_rec_iter_seek(struct bts_rec_iter *it, uint64_t index);

/* ============================================================================
 * Trace files: crash data
 *
 * A crash trace (btrace record --on-crash) holds, for the process that
 * died, the signal and its siginfo, the registers of every thread and
 * their stacks unwound at the crash.
 * ========================================================================== */

/* &struct bts_frame.flags */
#define BTS_FRAME_SIGNAL 0x1	/* a signal frame: @pc is an interrupted pc,
				 * not a return address */

/*
 * One frame of an unwound stack, innermost first.  Frame 0 is where the
 * thread stood (for the crashing thread, the faulting pc).  For the frames
 * above it @pc is the return address (look up pc - 1 for the call's line,
 * unless BTS_FRAME_SIGNAL is set).  @sp is the frame's stack pointer and
 * @cfa its canonical frame address (0 when the unwinder did not say).
 */
struct bts_frame {
	uint64_t pc;
	uint64_t sp;
	uint64_t cfa;
	uint32_t flags;		/* BTS_FRAME_* */
	uint32_t reserved;
};

/* A thread of a crashed process as it stood at the crash. */
struct bts_crash_thread {
	pid_t tid;
	bool crashed;		/* the thread the signal was delivered to */
	bool has_regs;		/* false: its registers could not be read */
	struct bts_regs regs;
	size_t nframes;		/* 0: its stack could not be unwound */
	const struct bts_frame *frames;
	const char *unwind_error; /* why the unwinding stopped, or NULL */
};

/* Why and where a process died. */
struct bts_crash_info {
	pid_t pid;
	pid_t tid;		/* the crashing thread */
	int signo;		/* the signal that killed it (SIGSEGV, ...) */
	int code;		/* siginfo si_code (SEGV_MAPERR, SI_TKILL, ...) */
	int si_errno;
	uint64_t addr;		/* si_addr for SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				 * SIGTRAP; else 0 */
	pid_t sender_pid;	/* si_pid for signals sent by kill/tkill/queue */
	uint32_t sender_uid;
	uint8_t siginfo[128];	/* the raw siginfo_t as PTRACE_GETSIGINFO gave it */
	size_t nthreads;	/* bts_trace_crash_thread(t, pid, 0 .. n-1) */
};

/*
 * The crash of process @pid, or NULL when the trace holds none for it.
 * The crashed pids are the processes whose bts_trace_crash() is not NULL;
 * bts_trace_crashed() gives the first one (a crash file holds exactly
 * one), or 0.
 */
BTS_API const struct bts_crash_info *bts_trace_crash(const struct bts_trace *t,
						     pid_t pid);
BTS_API pid_t bts_trace_crashed(const struct bts_trace *t);
/* Thread @i of the crash of @pid (the crashing one first), or NULL. */
BTS_API const struct bts_crash_thread *
bts_trace_crash_thread(const struct bts_trace *t, pid_t pid, size_t i);

/* ============================================================================
 * Decoding: the instruction history
 *
 * The instructions a thread ran, rebuilt from its records and the code
 * bytes of the files its maps name (or the code copies the trace carries):
 * the instructions from one record's @to to the next record's @from ran in
 * order.  Holes in that knowledge are entries of their own (gaps), never
 * skipped in silence.  Model: libipt's instruction decoder.
 * ========================================================================== */

/* What an instruction does to the flow of control. */
enum bts_iclass {
	BTS_ICLASS_OTHER = 0,	/* falls through */
	BTS_ICLASS_COND,	/* conditional jump, loop, jrcxz */
	BTS_ICLASS_JUMP,	/* unconditional jump, direct or indirect */
	BTS_ICLASS_CALL,	/* near call, direct or indirect */
	BTS_ICLASS_RETURN,	/* near return */
	BTS_ICLASS_FAR,		/* far jump, call or return; iret */
	BTS_ICLASS_SYSCALL,	/* syscall, sysenter, int n */
	BTS_ICLASS_GAP,		/* no instruction: a hole in the history */
};

/* &struct bts_insn_entry.flags */
#define BTS_IF_TAKEN	 0x01	/* control went elsewhere than the next instruction */
#define BTS_IF_SIGNAL	 0x02	/* a signal handler's first instruction: the
				 * interrupted one did not run */
#define BTS_IF_SIGRETURN 0x04	/* the syscall that left a signal handler */
#define BTS_IF_RESYNC	 0x08	/* the first instruction after the start or a gap */
#define BTS_IF_TAIL	 0x10	/* after the last record: inferred, up to the
				 * first syscall or branch that would have
				 * been recorded */

/* Why the history has a hole (&struct bts_insn_entry.gap). */
enum bts_gap_reason {
	BTS_GAP_NONE = 0,
	BTS_GAP_LOST,		/* @gap_arg records were lost */
	BTS_GAP_MARKER,		/* a gap marker; @gap_arg: &enum ptbts_gap */
	BTS_GAP_FILTERED,	/* @gap_arg branches ran unrecorded (0: unknown) */
	BTS_GAP_EXEC,		/* the thread exec'd; @gap_arg: the entry point */
	BTS_GAP_NOCODE,		/* no code bytes at @gap_arg */
	BTS_GAP_UNDECODABLE,	/* the bytes at @gap_arg are no instruction */
	BTS_GAP_NO_PATH,	/* straight-line code does not reach the next
				 * record's from (@gap_arg) */
	BTS_GAP_NOT_BRANCH,	/* the record's from (@gap_arg) is no branch */
	BTS_GAP_CODE_CHANGED,	/* the code at @gap_arg ran in a version that
				 * was rewritten later (a JIT's): the bytes the
				 * trace holds are not those that ran */
	BTS_GAP_MAX,
};

/* "lost", "marker", "filtered", "exec", "nocode", "undecodable", ... */
BTS_API const char *bts_gap_name(int reason);

/* One entry of the history; it may grow: see bts_insn_next(). */
struct bts_insn_entry {
	uint64_t index;		/* number in the thread's history, from 1 */
	uint64_t ip;		/* 0 for a gap */
	const uint8_t *raw;	/* @size code bytes, valid until the next call */
	uint8_t size;
	uint8_t iclass;		/* &enum bts_iclass */
	uint16_t flags;		/* BTS_IF_* */
	uint32_t gap;		/* &enum bts_gap_reason, for BTS_ICLASS_GAP */
	uint64_t gap_arg;
};

struct bts_decoder_opts {
	size_t sz;
	size_t cache_blocks;	/* blocks kept decoded; 0: the default (65536) */
	/*
	 * A session whose traced process is still there (stopped under it,
	 * or detached and running on): its code is read from its memory
	 * through bts_read_code(), planted bytes hidden, before the files
	 * and the trace's copies are tried.  Code no file holds (a JIT's)
	 * decodes only this way; code changed since it ran decodes as it is
	 * now.  NULL: offline only.
	 */
	struct bts_session *live;
};

/*
 * A decoder of thread @thread (an index, as in bts_trace_thread()): 0 and
 * *@out.  @t must outlive it.  It reads the thread's records once here,
 * for the places where the program rewrote its code.
 * Errors: -BTS_E_INVAL (no such thread, bad options), -BTS_E_IO (the file
 * shrank since bts_trace_new() read it), -BTS_E_FORMAT (its records changed
 * since), -BTS_E_NOMEM.
 */
BTS_API int bts_insn_decoder_new(const struct bts_trace *t, size_t thread,
				 const struct bts_decoder_opts *opts,
				 struct bts_insn_decoder **out);
BTS_API void bts_insn_decoder_free(struct bts_insn_decoder *d);
/*
 * The next entry into *insn (@size: the caller's sizeof(*insn)): 1, or 0
 * at the end.  Code that cannot be read or decoded is no error: it is a
 * BTS_ICLASS_GAP entry that says why.
 * Errors: -BTS_E_INVAL (NULL @insn, @size 0), -BTS_E_IO, -BTS_E_FORMAT (the
 * file shrank or changed since it was opened), -BTS_E_NOMEM.
 */
BTS_API int bts_insn_next(struct bts_insn_decoder *d,
			  struct bts_insn_entry *insn, size_t size);
/* The @i-th warning (a file not found or changed), or NULL past the last. */
BTS_API const char *bts_insn_decoder_warning(const struct bts_insn_decoder *d,
					     size_t i);

/* ============================================================================
 * Decoding: the index of a history
 *
 * Points of a thread's history where its decoder may start: every few
 * thousand records, the decoder's state there, the number of entries
 * before it, the call depth and the innermost return sites.  A trace file
 * may carry them (an INDEX chunk, written by bts_trace_index_file());
 * otherwise they are built by decoding the thread once, in memory.  With
 * one, bts_insn_decoder_seek() reaches entry N decoding only from the
 * point before it.
 * ========================================================================== */

/* Records between points when an index is built; a file's may differ. */
#define BTS_INDEX_INTERVAL	4096
/* Return sites a point keeps: deeper ones are known only by @depth. */
#define BTS_INDEX_SITES		64
/*
 * The site of the kernel's frame below a signal handler; the site after
 * it (the next outer one) is the pc the signal interrupted, not a return
 * address.
 */
#define BTS_INDEX_SIGNAL_FRAME	0

struct bts_index_opts {
	size_t sz;
	uint64_t interval;	/* records between points; 0: BTS_INDEX_INTERVAL */
	bool rebuild;		/* build it even when the file has one */
	bool file_only;		/* never build: *out is NULL without the file's */
	const struct bts_decoder_opts *decoder;
};

/* One point; it may grow: see bts_index_point(). */
struct bts_index_point {
	uint64_t record;	/* records of the thread before it */
	uint64_t entry;		/* entries before it: the next is entry + 1 */
	/*
	 * Frames entered minus frames left before it (from 0): a taken call
	 * enters one, a signal two (its handler and the kernel's signal
	 * frame), a return or a sigreturn leaves one.
	 */
	int64_t depth;
	size_t nsites;		/* return sites known, <= BTS_INDEX_SITES */
	/*
	 * Innermost first; valid until the next call for the same index (a
	 * file's is read from the file a few points at a time).
	 */
	const uint64_t *sites;
};

/*
 * The index of thread @thread (as in bts_trace_thread()): the file's
 * INDEX chunk for it when there is one (checked when the file was
 * opened), else built by decoding the thread with @opts->decoder (or,
 * with @opts->file_only, none: 0 and *@out NULL).  0 and *@out; @t must
 * outlive it.
 * Errors: -BTS_E_INVAL (no such thread, NULL @out, bad options), and, when
 * it is built, those of bts_insn_decoder_new() and bts_insn_next().
 */
BTS_API int bts_index_new(const struct bts_trace *t, size_t thread,
			  const struct bts_index_opts *opts,
			  struct bts_index **out);
BTS_API void bts_index_free(struct bts_index *ix);
/* Whether @ix came from the file's INDEX chunk; false for NULL. */
BTS_API bool bts_index_from_file(const struct bts_index *ix);
/* The entries of the whole history (its last one's number); 0 for NULL. */
BTS_API uint64_t bts_index_entries(const struct bts_index *ix);
/* Points in @ix (>= 1: the first is the start); 0 for NULL. */
BTS_API size_t bts_index_npoints(const struct bts_index *ix);
/*
 * Point @i into *@pt (@size: the caller's sizeof(*pt)).
 * Errors: -BTS_E_INVAL (NULL @ix or @pt, @size 0, @i past the last).
 */
BTS_API int bts_index_point(const struct bts_index *ix, size_t i,
			    struct bts_index_point *pt, size_t size);
/*
 * The last point from which entry @entry (from 1) is decoded: the one with
 * the largest entry below @entry (0 for @entry 0 or 1).  Never fails; 0
 * for NULL.
 */
BTS_API size_t bts_index_find(const struct bts_index *ix, uint64_t entry);
/*
 * Moves @d so that its next entry is number @entry (from 1; past the last:
 * the end), decoding from the point of @ix before it (bts_index_find())
 * and skipping what lies between.  @ix must be the index of @d's thread.
 * 0, or an error; after one, @d can only be freed.
 * Errors: -BTS_E_INVAL (NULL @d or @ix, an index of another thread), and
 * those of bts_insn_next().
 */
BTS_API int bts_insn_decoder_seek(struct bts_insn_decoder *d,
				  const struct bts_index *ix, uint64_t entry);

/*
 * Writes an INDEX chunk for every thread into the trace file @path, in
 * place: the file is written anew under a temporary name (its chunks as
 * they are, INDEX chunks built with @opts replacing any it had, then
 * END) and renamed over @path only when whole, so @path is never a
 * half-written file.  0.
 * Errors: those of bts_trace_new() (the file is not a whole trace), of
 * bts_index_new(), -BTS_E_VERSION (a header longer than this libbts
 * writes: a newer libbts's file), -BTS_E_IO (writing, renaming).
 */
BTS_API int bts_trace_index_file(const char *path,
				 const struct bts_index_opts *opts);

/*
 * Rewrites the records of the trace file @path in the tnt encoding
 * (BTS_FORMAT_TNT), in place as bts_trace_index_file() does: each chunk
 * of records becomes a RECORDS_TNT chunk of the same records at the same
 * place; every other chunk is copied.  The records decode from the code the trace names (its maps'
 * files, build-id checked, and its code copies), so a file that later
 * changes or goes makes the trace unreadable (-BTS_E_DECODE) rather than
 * read wrongly.  0.
 * Errors: those of bts_trace_new(), -BTS_E_VERSION (a newer libbts's
 * file), -BTS_E_IO (writing, renaming), -BTS_E_NOMEM.
 */
BTS_API int bts_trace_tnt_file(const char *path);

/* ============================================================================
 * Decoding: function segments
 *
 * gdb's `record function-call-history`: calls, returns, tail jumps into a
 * function and signals split the instruction history into segments, one
 * per visit of a function, numbered from 1.  A cursor hands them out one
 * by one in flat memory; a history keeps them all, its memory growing with
 * the number of segments, never with the number of instructions.
 * ========================================================================== */

enum bts_seg_entry {
	BTS_SEG_START = 0,	/* the first, or the first after a gap */
	BTS_SEG_CALL,
	BTS_SEG_RETURN,
	BTS_SEG_TAILCALL,	/* a jump to the start of a function */
	BTS_SEG_SWITCH,		/* another function without a call or return */
	BTS_SEG_SIGNAL,		/* a signal handler (or its restorer) */
	BTS_SEG_SIGRETURN,	/* back from a signal handler */
	BTS_SEG_GAP,		/* a hole: one entry, @gap says why */
};

/* One segment; it may grow at its end: see bts_call_cursor_next(). */
struct bts_segment {
	uint64_t number;	/* from 1 */
	int level;		/* call depth; the outermost in the history is 0
				 * (from a cursor: see bts_call_cursor_next()) */
	int entry;		/* &enum bts_seg_entry */
	const char *function;	/* NULL: unknown */
	uint64_t first, last;	/* instruction numbers, inclusive */
	const char *file;	/* source file of its lines, or NULL */
	int line_min, line_max;
	uint32_t gap;		/* &enum bts_gap_reason for BTS_SEG_GAP */
	uint64_t gap_arg;
	/* For an unknown @function: the file its code is in, or NULL. */
	const char *object;
	uint64_t ip;		/* the address of instruction @first; 0: a gap */
};

struct bts_calls_opts {
	size_t sz;
	struct bts_symbolizer *sym;	/* names (and lines); NULL: none */
	bool lines;			/* fill file and line range (slower) */
	const struct bts_decoder_opts *decoder;
};

/*
 * A walk over the segments of one thread, oldest first, in one pass of the
 * decoder.  It holds the decoder and the current call chain (a few dozen
 * bytes per level of it), never the segments it handed out: a history of
 * any length is walked in memory flat in its length.  The strings of a
 * segment live as long as the symbolizer of @opts.
 */

/*
 * A cursor before the first segment of thread @thread (an index, as in
 * bts_trace_thread()): 0 and *@out.  @t must outlive it.
 * Errors: as bts_insn_decoder_new(), and -BTS_E_INVAL (NULL @t or @out,
 * bad options).
 */
BTS_API int bts_call_cursor_new(const struct bts_trace *t, size_t thread,
				const struct bts_calls_opts *opts,
				struct bts_call_cursor **out);
BTS_API void bts_call_cursor_free(struct bts_call_cursor *c);
/*
 * The next segment into *seg (@size: the caller's sizeof(*seg)): 1, or 0
 * after the last.  A segment is handed out once the next one starts, with
 * its @last and lines final.  Its @level counts from the first segment's 0
 * and goes below it where the history returns past its first level: the
 * outermost level is known only at the end (bts_call_cursor_min_level()).
 * Errors: -BTS_E_INVAL (NULL @c or @seg, @size 0; nothing is lost),
 * -BTS_E_NOMEM, -BTS_E_IO and -BTS_E_FORMAT (the trace file changed since
 * it was opened).  After any but -BTS_E_INVAL, the cursor can only be
 * freed: what it would hand out next is not the rest of the history.
 */
BTS_API int bts_call_cursor_next(struct bts_call_cursor *c,
				 struct bts_segment *seg, size_t size);
/*
 * The lowest level of the segments handed out so far; after the last, of
 * the whole history (bts_call_history_new() numbers levels from it).
 * Never fails; 0 for a NULL @c.
 */
BTS_API int bts_call_cursor_min_level(const struct bts_call_cursor *c);
/*
 * The cursor's decoder, for its warnings (bts_insn_decoder_warning()), or
 * NULL for a NULL @c.
 */
BTS_API const struct bts_insn_decoder *
bts_call_cursor_decoder(const struct bts_call_cursor *c);

/*
 * Decodes thread @thread once and keeps its segments, levels counted from
 * the outermost (0): 0 and *@out.  Memory grows with the number of
 * segments.
 * Errors: as bts_call_cursor_new() and bts_call_cursor_next().
 */
BTS_API int bts_call_history_new(const struct bts_trace *t, size_t thread,
				 const struct bts_calls_opts *opts,
				 struct bts_call_history **out);
BTS_API void bts_call_history_free(struct bts_call_history *h);
BTS_API size_t bts_call_history_count(const struct bts_call_history *h);
/* The segment numbered @i + 1, or NULL. */
BTS_API const struct bts_segment *
bts_call_history_segment(const struct bts_call_history *h, size_t i);
/* Entries of the instruction history (gaps included), and gaps. */
BTS_API uint64_t bts_call_history_insns(const struct bts_call_history *h);
BTS_API uint64_t bts_call_history_gaps(const struct bts_call_history *h);

/* ============================================================================
 * Symbols
 * ========================================================================== */

/*
 * Symbols of one traced process, from the maps the trace holds: 0 and
 * *@out.  Files that are missing or differ are warnings, not errors.
 * Errors: -BTS_E_INVAL (NULL arguments), -BTS_E_NOMEM, -BTS_E_INTERNAL
 * (libdw refused the maps).
 */
BTS_API int bts_symbolizer_new(const struct bts_trace *t, pid_t pid,
			       struct bts_symbolizer **out);
BTS_API void bts_symbolizer_free(struct bts_symbolizer *s);
/*
 * The function containing @addr: its name (valid until the symbolizer is
 * freed) and @addr's offset into it.  0 when found.
 * Errors: -BTS_E_INVAL (no symbol holds @addr).
 */
BTS_API int bts_symbolize(struct bts_symbolizer *s, uint64_t addr,
			  const char **name, uint64_t *offset);
/*
 * The file (or "[vdso]") whose mapping holds @addr, named whether or not a
 * symbol does (gdb's "?? () from FILE"); valid until the symbolizer is
 * freed.  NULL for anonymous memory and unmapped addresses.
 */
BTS_API const char *bts_symbolize_object(const struct bts_symbolizer *s,
					 uint64_t addr);
/*
 * The source line of the instruction at @addr, from the DWARF of its file
 * or of that file's separate debug file: 0 and *file (valid until the
 * symbolizer is freed) and *line when known.
 * Errors: -BTS_E_INVAL (no line is known).
 */
BTS_API int bts_symbolize_line(struct bts_symbolizer *s, uint64_t addr,
			       const char **file, int *line);
/*
 * The @i-th warning bts_symbolizer_new() met (a file that is missing or
 * differs from the one traced: no names come from it; a stripped file with
 * no debug file: only its dynamic symbols name its code), or NULL past the
 * last.  libbts prints nothing: the caller says what it wants to.
 */
BTS_API const char *bts_symbolizer_warning(const struct bts_symbolizer *s,
					   size_t i);

/* ============================================================================
 * The module's per-CPU (kernel) mode
 *
 * The ptrace_bts module's per-CPU mode records the kernel and user branches
 * of everything that runs on a set of CPUs into kernel buffers, one per
 * CPU, which the caller maps read-only.  It needs what kmod-bts needs (an
 * Intel CPU with BTS, no PTI) and CAP_PERFMON or CAP_SYS_ADMIN; like the
 * other hardware sources it has not yet run on a CPU with BTS.
 * ========================================================================== */

struct bts_percpu_info {
	bool available;
	char why[320];		/* when not available: why, and what to do */
};

/*
 * Whether the per-CPU mode can record here for this process: 0 and *out
 * filled (@size: the caller's sizeof(*out)).
 * Errors: -BTS_E_INVAL (NULL @out, @size 0).
 */
BTS_API int bts_percpu_probe(struct bts_percpu_info *out, size_t size);

/*
 * "0,2-3" into a mask of CPUs (bit n: CPU n, n < 64): 0.
 * Errors: -BTS_E_INVAL (an empty or malformed list, a CPU past 63).
 */
BTS_API int bts_percpu_parse_cpus(const char *list, uint64_t *mask);

/*
 * Starts the mode on @cpus, @buffer_size bytes per CPU (whole pages), @mode
 * PTBTS_MODE_RING or PTBTS_MODE_STOP: 0 and *@out.
 * Errors: -BTS_E_NOSOURCE (the module is missing or cannot record here:
 * bts_errdetail() gives the module's reason), -BTS_E_PERM (no CAP_PERFMON
 * or CAP_SYS_ADMIN), -BTS_E_INVAL (the module refused the arguments),
 * -BTS_E_NOMEM.
 */
BTS_API int bts_percpu_new(uint64_t cpus, size_t buffer_size, int mode,
			   struct bts_percpu **out);
/* Stops recording, unmaps every buffer, frees @p (NULL: nothing). */
BTS_API void bts_percpu_free(struct bts_percpu *p);
/*
 * The module's position of @cpu's buffer into *st (a uapi struct whose
 * size the module reads from st->size, which this call sets): 0.
 * Errors: -BTS_E_INVAL (bad arguments), -BTS_E_IO (the module refused).
 */
BTS_API int bts_percpu_status(struct bts_percpu *p, unsigned int cpu,
			      struct ptbts_percpu_status *st);
/*
 * @cpu's buffer, mapped read-only on first use, and its slots in *nslots;
 * NULL (bts_errdetail() says why) when it has none.  The records are laid
 * out as in a RING buffer: slot (head / 24 - 1) is the newest.
 */
BTS_API const struct ptbts_record *bts_percpu_records(struct bts_percpu *p,
						      unsigned int cpu,
						      size_t *nslots);

/* ============================================================================
 * PEBS records
 * ========================================================================== */

/**
 * struct bts_pebs - one PEBS record of kmod-pebs's second region, decoded
 * @ip:         the eventing instruction when @ip_exact (formats 2-5), else
 *              the instruction after it (formats 0-1)
 * @ip_exact:   see @ip
 * @applicable: the counters the record is for, bit 0 = counter 0
 *              (formats 1-5; 0 in format 0)
 * @tsc:        the time stamp counter (formats 3-5; else 0)
 * @flags:      rflags (formats 0-3, or with the adaptive GP group)
 * @regs:       rax rbx rcx rdx rsi rdi rbp rsp r8-r15, as @flags
 * @has_regs:   @flags and @regs are filled
 * @size:       bytes the record takes
 */
struct bts_pebs {
	uint64_t ip;
	bool ip_exact;
	uint64_t applicable;
	uint64_t tsc;
	uint64_t flags;
	uint64_t regs[16];
	bool has_regs;
	size_t size;
};

/*
 * Bytes per PEBS record of @format (ptbts_caps.pebs_format) as kmod-pebs
 * programs it (the adaptive formats 4 and 5: the basic group only), or 0
 * for a format libbts does not know.
 */
BTS_API size_t bts_pebs_record_size(unsigned int format);

/*
 * Decodes the record at @rec, @len bytes available, of @format (0-5; the
 * adaptive formats with any groups) into *out (@size: the caller's
 * sizeof(*out)).  Returns the record's size.
 * Errors: -BTS_E_INVAL (NULL arguments, @size 0), -BTS_E_FORMAT (an
 * unknown format, a short record, or an adaptive record whose size field
 * disagrees with its groups), -BTS_E_NOMEM.
 */
BTS_API int bts_pebs_decode(unsigned int format, const void *rec, size_t len,
			    struct bts_pebs *out, size_t size);

/*
 * NULL when @event (IA32_PERFEVTSEL's event select, bits 0-7, not 0, and
 * unit mask, bits 8-15) and @period (1 to PTBTS_PEBS_PERIOD_MAX) can be
 * sampled by kmod-pebs; else what is wrong with them, in words.  Never
 * fails.
 */
BTS_API const char *bts_pebs_event_problem(uint64_t event, uint64_t period);

/* ------------------------------------------------------- in trace files */

/*
 * PEBS records of one thread as kmod-pebs's second region holds them, for
 * a trace (bts_writer_pebs()): @count records of @record_size bytes each
 * at @records (bts_pebs_record_size(@format); for the adaptive formats
 * each record's own size), oldest first, after @lost records that were
 * overwritten unread; the thread sampled @event once every @period events.
 */
struct bts_pebs_batch {
	unsigned int format;
	size_t record_size;
	uint64_t event;
	uint64_t period;
	uint64_t lost;
	const void *records;
	size_t count;
};

/*
 * Writes @b into the trace (the file's PEBS chunks, which a libbts older
 * than them skips).
 * Errors: the writer's (see "Trace files: writing"), and -BTS_E_INVAL (a
 * record does not decode, the event or period could not have been
 * sampled, or nothing is given).
 */
BTS_API int bts_writer_pebs(struct bts_writer *w, pid_t pid, pid_t tid,
			    const struct bts_pebs_batch *b);

/*
 * One PEBS record of a trace, decoded, and what it sampled.  The trace
 * owns it (bts_trace_pebs()); it only grows at its end, as @rec does.
 */
struct bts_pebs_sample {
	pid_t pid;
	pid_t tid;
	unsigned int format;	/* the record's PEBS format */
	uint64_t event;		/* as bts_pebs_batch */
	uint64_t period;
	struct bts_pebs rec;
};

/*
 * The PEBS records of a trace, in the order written (0 for most traces).
 * The trace's PEBS chunks are validated when it is opened: these never
 * fail.
 */
BTS_API size_t bts_trace_npebs(const struct bts_trace *t);
/* PEBS record @i, or NULL past the last. */
BTS_API const struct bts_pebs_sample *bts_trace_pebs(const struct bts_trace *t,
						     size_t i);
/* PEBS records the trace says were overwritten before they were read. */
BTS_API uint64_t bts_trace_pebs_lost(const struct bts_trace *t);

#ifdef __cplusplus
}
#endif

#endif /* BTS_H */
