/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What a debugger's control (session_control.c) does differently by the
 * source that records: one table per source a debugger can drive
 * (BTS_SRC_DEBUGGER), found by the source's id.  control_step.c holds
 * ptrace-step's, control_kmod.c kmod-step's.  A NULL operation: nothing
 * to do.
 */
#ifndef BTS_CONTROL_SOURCE_H
#define BTS_CONTROL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

struct bts_control;
struct bts_session;
struct bts_thread;
struct ptbts_record;

struct bts_ctl_source {
	int id;			/* PTBTS_SOURCE_* */
	/* At bts_control_new(), before every thread is stopped, and after. */
	void (*init)(struct bts_control *c);
	void (*ready)(struct bts_control *c);
	/*
	 * A step report of the started @t, in its stop: true when it ends
	 * the debugger's step (@t is then held).  *@to_session: the session
	 * handles the stop as well (else it was dealt with here).
	 */
	bool (*stepped)(struct bts_control *c, struct bts_thread *t,
			bool *to_session);
	/* The held @t's stop signal is dropped: nothing ran since it stopped. */
	void (*drop_signal)(struct bts_control *c, struct bts_thread *t);
	/* The debugger's resume of the held @t, carried out. */
	void (*resume)(struct bts_control *c, struct bts_thread *t, int action,
		       int sig);
	/* New registers for the held @t; 0 or -BTS_E_*. */
	int (*setregs)(struct bts_control *c, struct bts_thread *t,
		       struct user_regs_struct *regs);
	/* bts_control_trace() and bts_control_record() of @t. */
	int (*trace)(struct bts_control *c, struct bts_thread *t,
		     uint64_t *oldest, uint64_t *written);
	int (*record)(struct bts_control *c, struct bts_thread *t, uint64_t n,
		      struct ptbts_record *rec);
	/* bts_control_btrace_enable() and _disable() of the stopped @t. */
	int (*enable)(struct bts_control *c, struct bts_thread *t,
		      uint64_t size, uint64_t *actual);
	void (*disable)(struct bts_control *c, struct bts_thread *t);
	/* Whether the source counts on an int3 at @addr. */
	bool (*site_in_use)(struct bts_control *c, uint64_t addr);
	/* The debugger wrote [@addr, +@len): the source's int3s there go back. */
	void (*code_written)(struct bts_control *c, uint64_t addr, size_t len);
	/* Whether the source keeps @t's report back (bts_session_held()). */
	bool (*report_kept)(const struct bts_control *c,
			    const struct bts_thread *t);
	/* Whether the running @t reports soon by itself: not interrupted. */
	bool (*reports_soon)(const struct bts_control *c,
			     const struct bts_thread *t);
};

extern const struct bts_ctl_source bts_ctl_ptrace_step;
extern const struct bts_ctl_source bts_ctl_kmod_step;

/* session_control.c: the session a control drives. */
struct bts_session *bts_control_session(struct bts_control *c);
/*
 * A signal the debugger gives the held @t other than the one it stopped
 * with: sent, and delivered when its stop comes back.
 */
void bts_control_inject(struct bts_control *c, struct bts_thread *t, int sig);

#endif /* BTS_CONTROL_SOURCE_H */
