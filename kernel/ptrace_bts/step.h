/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptrace_bts: the kmod-step source's own state, shared by step*.c only.
 *
 * kmod-step single-steps the attached thread itself: the trap flag stays
 * set in its user registers, and every single-step trap of the thread ends
 * in ptbts_step_trap() (a die notifier), which decides from the instruction
 * just executed whether it was a taken branch and writes the record.  The
 * thread never stops to the tracer for it.
 */
#ifndef PTBTS_STEP_H
#define PTBTS_STEP_H

#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include "ptbts.h"

struct ptbts_insn;
struct pt_regs;

/* Records one trap may need to hold while a BLOCK-mode buffer is full. */
#define PTBTS_STEP_DEFER	8

/**
 * struct ptbts_step - a thread whose trap flag the module set
 * @hnode:     in the table of stepped tasks, keyed by @task
 * @task:      the thread (a reference)
 * @thread:    the attachment records go to; NULL once it ended (the
 *             state stays until the thread's next trap or its exit, so
 *             that the trap flag the module set is taken back)
 * @ref:       the table, the attachment, each queued task_work
 * @hashed:    in the table (under the table's lock)
 * @twork:     the work run before the thread returns to user mode
 * @tw_queued: bit 0: @twork is queued
 * @tw_thread: the attachment @twork was queued for (a reference)
 * @kick:      takes the flag back once the attachment ended (step_table.c)
 * @kicked:    bit 0: @kick is queued
 * @rcu:       frees the state
 * @prev_pc:   the instruction the thread was about to run at its last trap
 * @prev_ax:   rax then (the syscall number, if it is a syscall)
 * @sigret_pc: where the rt_sigreturn at @prev_pc resumed, taken from the
 *             registers it restored (step_sigret.c)
 * @sig_from:  the pc a signal interrupted, until the handler's frame is set
 * @has_prev:  @prev_pc is known
 * @sigret_ok: @sigret_pc is known
 * @sigret_wait: an rt_sigreturn is running: the task_work looks where it
 *             resumed (step_sigret.c)
 * @up_wait:   the int3 at @prev_pc went to uprobes without the trap flag:
 *             the task_work takes over once uprobes is done (step_uprobe.c)
 * @sig_pending: a caught signal is being delivered
 * @frame_off: where the flags are in the frame being written for it, 0
 *             when it needs no change (step_frame.c)
 * @frame32:   they are 32 bits wide
 * @frame_handler: the handler the frame is for
 * @in_gap:    a GAP marker was written and no instruction decoded since
 * @off:       the program cleared the trap flag: recording ended
 * @ndefer:    records in @defer
 * @defer:     records waiting for room (BLOCK), oldest first
 *
 * The fields from @prev_pc on belong to the thread itself: only its own
 * trap notifier, tracepoint probes and task_work touch them, and those
 * never run at the same time.
 */
struct ptbts_step {
	struct hlist_node hnode;
	struct task_struct *task;
	struct ptbts_thread __rcu *thread;
	refcount_t ref;
	bool hashed;
	struct callback_head twork;
	unsigned long tw_queued;
	struct ptbts_thread *tw_thread;
	struct callback_head kick;
	unsigned long kicked;
	struct rcu_head rcu;

	u64 prev_pc;
	u64 prev_ax;
	u64 sigret_pc;
	u64 sig_from;
	bool has_prev;
	bool sigret_ok;
	bool sigret_wait;
	bool up_wait;
	bool sig_pending;
	bool frame32;
	u16 frame_off;
	unsigned long frame_handler;
	bool in_gap;
	bool off;
	u32 ndefer;
	struct ptbts_record defer[PTBTS_STEP_DEFER];
};

/* step_table.c */
struct ptbts_step *ptbts_step_find(struct task_struct *task);
void ptbts_step_put(struct ptbts_step *st);
bool ptbts_step_unhash(struct ptbts_step *st);

/* step_trap.c */
bool ptbts_step_taken(const struct ptbts_insn *insn, u64 pc, u64 next);
void ptbts_step_pend(struct ptbts_step *st, struct pt_regs *regs);
void ptbts_step_complete(struct ptbts_step *st, struct ptbts_thread *t,
			 struct pt_regs *regs);
void ptbts_step_emit(struct ptbts_step *st, struct ptbts_thread *t,
		     u64 from, u64 to, u32 kind);
int ptbts_step_notifier_init(void);
void ptbts_step_notifier_exit(void);

/* step_hooks.c */
void ptbts_step_rearm(void);
void ptbts_step_queue_work(struct ptbts_step *st, struct ptbts_thread *t);
void ptbts_step_end(struct ptbts_step *st, struct ptbts_thread *t);

/* step_uprobe.c */
int ptbts_step_uprobe_init(void);
void ptbts_step_uprobe_exit(void);
void ptbts_step_uprobe_done(struct ptbts_step *st);

/* step_frame.c */
struct k_sigaction;
void ptbts_step_frame_note(struct ptbts_step *st, const struct k_sigaction *ka,
			   const struct pt_regs *regs);
void ptbts_step_frame_untf(struct ptbts_step *st);

/* step_sigret.c */
bool ptbts_step_is_sigret(u64 nr, bool mode64);
void ptbts_step_sigret_done(struct ptbts_step *st);
int ptbts_step_sigret_init(void);
void ptbts_step_sigret_exit(void);

#endif /* PTBTS_STEP_H */
