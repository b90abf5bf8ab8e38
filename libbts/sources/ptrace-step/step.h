/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The ptrace-step source, inside: a thread's state (behind its opaque
 * t->src) and what its files share.
 *
 * step_source.c   single steps, signals, exec; the source's operations
 * step_fast.c     branch stops: whole blocks run between two int3s
 * step_emulate.c  the branch at a site, carried out by the tracer
 * step_hold.c     the other threads wait while an int3 is lifted
 * skip.c          objects run at full speed (--skip, skip.h)
 * abi32.c         32-bit programs: their code and sigreturns (abi32.h)
 * (the int3 table it plants in is the session's: ../../session/breakpoints.h)
 */
#ifndef BTS_STEP_H
#define BTS_STEP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "decode/insn.h"
#include "session/session.h"

/* One thread of a ptrace-step session. */
struct bts_step_thread {
	bool stepping;		/* false: runs untraced (PTRACE_CONT) */
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
	int resume_op;		/* PTRACE_SINGLESTEP, _CONT or _SYSCALL */
	struct bts_block blk;
	uint8_t hops_done;	/* hops of @blk already recorded */
	uint64_t lifted;	/* a site whose int3 is out while it steps */
	bool lift_held;		/* stopped while another's int3 is out */
	int lift_status;	/* its report, handed on once the int3 is back */
	uint64_t sigret_from;	/* in rt_sigreturn from this syscall insn */
};

/* A ptrace-step session's own state (s->src). */
struct bts_step_session {
	bool single;		/* BTS_STEP_MODE=single: step every instruction */
	struct bts_insn_cache *icache;	/* single steps' instructions */
	struct bts_block_cache *bcache;	/* branch stops' blocks */
	struct bts_skip *skip;	/* objects run at full speed; NULL: none */
	/*
	 * Under a debugger that has not enabled branch tracing yet: threads
	 * run untraced (PTRACE_CONT), no int3 of the source's is in the
	 * program (bts_step_pause/unpause).
	 */
	bool lazy;
	size_t lift_nheld;	/* threads with lift_held */
};

static inline struct bts_step_session *bts_step_of(const struct bts_session *s)
{
	return s->src;
}

/* The state of a thread of a ptrace-step session (set from its creation). */
static inline struct bts_step_thread *bts_step_thr(const struct bts_thread *t)
{
	return t->src;
}

/* step_source.c: single steps */
void bts_step_start(struct bts_session *s, struct bts_thread *t);
void bts_step_trap(struct bts_session *s, struct bts_thread *t);
int bts_step_signal(struct bts_session *s, struct bts_thread *t, int sig,
		    const siginfo_t *si);
void bts_step_restore(struct bts_session *s);
/*
 * Until bts_step_unpause(): nothing is recorded, the source's int3s are
 * out and every thread runs untraced (a debugger's steps are its own).
 * The threads must be stopped, as they must at unpause.
 */
void bts_step_pause(struct bts_session *s);
void bts_step_unpause(struct bts_session *s);
void bts_step_set_pending(struct bts_session *s, struct bts_thread *t,
			  const struct user_regs_struct *regs, bool fresh);

/* step_fast.c: branch stops */
void bts_fast_enter(struct bts_session *s, struct bts_thread *t,
		    struct user_regs_struct *regs, bool fresh, bool may_run,
		    bool dirty);
bool bts_fast_site(struct bts_session *s, struct bts_thread *t,
		   const siginfo_t *si);
void bts_fast_signal(struct bts_session *s, struct bts_thread *t,
		     struct user_regs_struct *regs);
void bts_fast_syscall(struct bts_session *s, struct bts_thread *t);
void bts_fast_relift(struct bts_session *s, struct bts_thread *t);
/* The thread stopped where its block was going: records of hops run so far. */
void bts_fast_sync(struct bts_session *s, struct bts_thread *t);
/* The code cached (blocks, instructions) is stale: forgotten. */
void bts_step_forget_code(struct bts_session *s);
/* The site of the block at @pc gets its int3 (when it has one). */
void bts_fast_plant_block(struct bts_session *s, pid_t tid, uint64_t pc);

/*
 * step_emulate.c: carries out the branch @br at @pc on @regs (and the
 * stack of @tid); 0, or -1 when it must run for real.  @taken: whether a
 * conditional branch was taken.
 */
int bts_branch_emulate(pid_t tid, uint64_t pc, const struct bts_branch *br,
		       struct user_regs_struct *regs, bool *taken);

/* step_hold.c: the other threads wait while an int3 is lifted */
void bts_lift_hold_others(struct bts_session *s, struct bts_thread *lifter);
/* A held thread's report, once no int3 is out: true and *tid, *status. */
bool bts_lift_next(struct bts_session *s, pid_t *tid, int *status);

#endif /* BTS_STEP_H */
