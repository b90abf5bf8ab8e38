/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A debugger's control of a kmod-step session (control_kmod.c): what
 * session_control.c hands over when the module records instead of the
 * ptrace-step source.
 */
#ifndef BTS_CONTROL_KMOD_H
#define BTS_CONTROL_KMOD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct bts_control;
struct bts_session;
struct ptbts_record;
struct bts_thread;

/* session_control.c: the session a control drives. */
struct bts_session *bts_control_session(struct bts_control *c);

/*
 * At bts_control_new(): no thread records until the debugger enables it
 * (bts_control_btrace_enable()); any thread attached so far is let go.
 */
void bts_kmod_ctl_init(struct bts_session *s);
/*
 * A step report (SIGTRAP of a single step) of @t, which is in its stop:
 * true when it ends the debugger's step (@t is then held), false when it
 * was dealt with here (@t runs on, or stays stopped by the session).
 */
bool bts_kmod_ctl_stepped(struct bts_session *s, struct bts_thread *t);
/* bts_control_resume() of the held @t. */
int bts_kmod_ctl_resume(struct bts_session *s, struct bts_thread *t,
			int action, int sig);
/* bts_control_setregs() of the held @t. */
int bts_kmod_ctl_setregs(struct bts_session *s, struct bts_thread *t,
			 const struct user_regs_struct *regs);
/* bts_control_trace() and bts_control_record() of @t. */
int bts_kmod_ctl_trace(struct bts_session *s, struct bts_thread *t,
		       uint64_t *oldest, uint64_t *written);
int bts_kmod_ctl_record(struct bts_session *s, struct bts_thread *t,
			uint64_t n, struct ptbts_record *rec);

#endif /* BTS_CONTROL_KMOD_H */
