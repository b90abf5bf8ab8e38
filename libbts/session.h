/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A recording session: the traced threads, their rings, the known maps,
 * and the hooks of the branch source that drives them.
 *
 * session.c          the event loop (waitpid, dispatch, stop)
 * session_spawn.c    starting a program traced from its first instruction
 * session_attach.c   attaching to a running process, and detaching
 * session_threads.c  the thread table, rings, records to the writer
 * session_fork.c     children of the tracee: let go without our int3s
 * step_source.c      the ptrace-step source, single-stepping
 * step_fast.c        the ptrace-step source, one stop per basic block
 * step_emulate.c     branches carried out by the tracer
 * breakpoints.c      the int3s planted, and the bytes under them
 */
#ifndef BTS_SESSION_H
#define BTS_SESSION_H

#include <signal.h>
#include <sys/user.h>

#include "breakpoints.h"
#include "insn.h"
#include "internal.h"
#include "kmod.h"

#define BTS_DEFAULT_BUFFER	(4u << 20)

/* The executable mappings written to the trace so far, sorted. */
struct bts_mapset {
	struct bts_map *maps;
	size_t n;
	struct bts_map *last;	/* the last hit: most records stay in one map */
	uint64_t miss[8];	/* pages the maps did not explain: ask no more */
	unsigned int nmiss;
};

struct bts_thread {
	pid_t tid;
	struct bts_ring ring;
	void *mem;
	bool started;		/* its first stop was seen */
	bool stepping;		/* false: runs untraced (PTRACE_CONT) */
	bool running;		/* resumed; a stop or exit will be reported */
	bool exiting;		/* PTRACE_EVENT_EXIT seen */
	int detach_sig;		/* signal to pass on when detaching */

	/*
	 * The instruction about to run when the thread was last resumed.
	 * @fresh: it may not have run at the next trap (the thread was in a
	 * syscall that the kernel finishes or restarts first).
	 */
	bool has_pending;
	bool fresh;
	bool in_gap;		/* a gap marker was written, no code since */
	uint64_t pc;
	struct bts_insn insn;
	uint64_t nr;		/* rax before a syscall instruction */

	/* A caught signal was delivered: the next trap is its handler. */
	bool sig_entry;
	uint64_t sig_from;

	/*
	 * Branch-stop mode (step_fast.c): @fast, the thread runs to the site
	 * of @blk, where an int3 waits; else it single-steps as above.
	 */
	bool fast;
	bool shadow;		/* a vfork child: run through, nothing recorded */
	int resume_op;		/* PTRACE_SINGLESTEP, _CONT or _SYSCALL */
	struct bts_block blk;
	uint64_t lifted;	/* a site whose int3 is out while it steps */
	uint64_t sigret_from;	/* in rt_sigreturn from this syscall insn */

	struct bts_kmod_thread *kmod;	/* kmod sources: its buffer; else NULL */
};

/* A child the tracee forked, until its breakpoints are out and it is let go. */
struct bts_fork {
	pid_t pid;
	bool stopped;		/* its first stop came before its parent's event */
	bool known;		/* the parent's event came: @vfork is known */
	bool vfork;
};

struct bts_session {
	pid_t pid;
	bool spawned;
	int source;
	int mode;
	uint64_t buffer_size;
	struct bts_writer *w;
	volatile sig_atomic_t stop;
	int err;		/* the first failure to write the trace */

	struct bts_thread **threads;	/* live threads */
	size_t nthreads, cap;
	struct bts_thread *last;	/* the thread of the last event */

	struct bts_insn_cache *icache;
	struct bts_mapset maps;

	bool single;		/* BTS_STEP_MODE=single: step every instruction */
	bool bp_off;		/* no more breakpoints (the program is dying) */
	struct bts_bptab bps;
	struct bts_block_cache *bcache;
	struct bts_fork forks[16];
	size_t nforks;

	uint64_t nthreads_seen;
	uint64_t records;
	uint64_t lost;
	bool exited;
	int status;

	struct bts_kmod *kmod;	/* kmod sources: the device; else NULL */
};

/* session.c */
int bts_session_new(const struct bts_session_opts *opts, pid_t pid,
		    struct bts_session **out);
int bts_session_write_start(struct bts_session *s);
void bts_note_err(struct bts_session *s, int err);
int bts_resume(struct bts_session *s, struct bts_thread *t, int sig);
int bts_proc_is_64bit(pid_t pid);
void bts_reap(struct bts_session *s, struct bts_thread *t, int status);
bool bts_step_report(const siginfo_t *si);

/* session_attach.c */
int bts_detach_all(struct bts_session *s);

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

/* step_source.c: the ptrace-step source */
void bts_step_start(struct bts_session *s, struct bts_thread *t);
void bts_step_trap(struct bts_session *s, struct bts_thread *t);
int bts_step_signal(struct bts_session *s, struct bts_thread *t, int sig,
		    const siginfo_t *si);
void bts_step_exec(struct bts_session *s, struct bts_thread *t);
void bts_step_restore(struct bts_session *s);
void bts_step_set_pending(struct bts_session *s, struct bts_thread *t,
			  const struct user_regs_struct *regs, bool fresh);

/* step_fast.c: branch stops */
#define BTS_SYSCALL_STOP (SIGTRAP | 0x80)
void bts_fast_enter(struct bts_session *s, struct bts_thread *t,
		    struct user_regs_struct *regs, bool fresh, bool may_run,
		    bool dirty);
bool bts_fast_site(struct bts_session *s, struct bts_thread *t,
		   const siginfo_t *si);
void bts_fast_signal(struct bts_session *s, struct bts_thread *t,
		     struct user_regs_struct *regs);
void bts_fast_syscall(struct bts_session *s, struct bts_thread *t);
void bts_fast_relift(struct bts_session *s, struct bts_thread *t);
bool bts_fast_fatal(pid_t tid, int sig);

/*
 * step_emulate.c: carries out the branch @br at @pc on @regs (and the
 * stack of @tid); 0, or -1 when it must run for real.  @taken: whether a
 * conditional branch was taken.
 */
int bts_branch_emulate(pid_t tid, uint64_t pc, const struct bts_branch *br,
		       struct user_regs_struct *regs, bool *taken);

/* session_fork.c: children of the tracee */
void bts_fork_event(struct bts_session *s, struct bts_thread *t, bool vfork);
bool bts_fork_child_stop(struct bts_session *s, pid_t tid);
bool bts_fork_forget(struct bts_session *s, pid_t pid);
void bts_fork_kill_shadows(struct bts_session *s);

/* maps.c */
void bts_mapset_clear(struct bts_mapset *set);
bool bts_mapset_contains(struct bts_mapset *set, uint64_t addr);
int bts_mapset_refresh(struct bts_mapset *set, pid_t pid, uint64_t addr,
		       int (*emit)(void *arg, const struct bts_map *m),
		       void *arg);
/*
 * After the map @m was written: a copy of its code when no file holds it
 * (the vDSO), so that readers of the trace can name and decode it.
 */
int bts_map_write_code(struct bts_session *s, const struct bts_map *m);

#endif /* BTS_SESSION_H */
