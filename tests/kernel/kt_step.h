/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the kmod-step tests: a traced child that runs one of the
 * programs of kt_seq.S, the records it must give, and a reader of what the
 * module wrote.
 */
#ifndef KT_STEP_H
#define KT_STEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/ptrace_bts.h>

/* kt_seq.S */
void kt_seq_loop(long n);
void kt_seq_stop(long n);
void kt_seq_sys(void);
void kt_seq_sig(void);
void kt_seq_fork(long nr);
void kt_seq_exec(void);
void kt_seq_popf(void);
void kt_seq_pause(void);
extern const char kt_leaf[];
extern const char kt_loop_call[], kt_loop_after[], kt_loop_jnz[];
void kt_seq_two(long n, long m, void *stack);
extern const char kt_two_a_call[], kt_two_a_after[], kt_two_a_jnz[];
extern const char kt_two_b_call[], kt_two_b_after[], kt_two_b_jnz[];
extern const char kt_two_jz[], kt_two_b[], kt_two_a_exit[], kt_two_b_exit[];
extern const char kt_stop1_call[], kt_stop1_after[], kt_stop1_jnz[];
extern const char kt_stop2_call[], kt_stop2_after[], kt_stop2_jnz[];
extern const char kt_sys_jmp[], kt_sys_target[], kt_sys_call[], kt_sys_ret[];
extern const char kt_sig_resume[], kt_sig_after[], kt_sig_handler[];
extern const char kt_sig_restorer[], kt_sig_restorer_sys[], kt_sig_alt[];
extern const char kt_popf_jmp[], kt_popf_target[];
extern const char kt_fork_jnz[], kt_fork_parent[];

#define KT_ADDR(sym)	((uint64_t)(uintptr_t)(sym))

/*
 * A child, traced by the caller with PTRACE_TRACEME, that runs @fn(@arg)
 * and sits in the signal-delivery-stop of its own SIGSTOP.  Returns its pid
 * or -errno.
 */
pid_t kt_seq_start(void (*fn)(long), long arg);

/*
 * Resumes @pid and every stop after it (passing signals on, but for the
 * SIGSTOP and SIGTRAP of the test itself) until it exits.  Returns the
 * waitpid() status.
 */
int kt_seq_finish(pid_t pid);

/* An attach config for kmod-step with @mode and @wakeup bytes. */
struct ptbts_config kt_step_config(pid_t tid, void *buf, uint64_t size,
				   uint32_t mode, uint64_t wakeup);

/* STATUS into @st; 0 or -errno. */
long kt_status(int fd, pid_t tid, struct ptbts_status *st);
/* WAIT for @tid, @timeout ns at most, into @st; 0 or -errno. */
long kt_wait(int fd, pid_t tid, uint64_t timeout, struct ptbts_status *st);
/* ACK @tail records of @tid; 0 or -errno. */
long kt_ack(int fd, pid_t tid, uint64_t tail);
/* Records written since attach, for a buffer of @size bytes. */
uint64_t kt_count(const struct ptbts_status *st, uint64_t size);

/* The records of kt_seq_loop(n) from record @first on, into @out. */
size_t kt_loop_expect(struct ptbts_record *out, size_t max, long n,
		      const char *call, const char *after, const char *jnz);

/* 0 when @n records at @got equal @want, else the index + 1 of the first
 * difference (printed). */
size_t kt_records_diff(const struct ptbts_record *got,
		       const struct ptbts_record *want, size_t n);

struct ptbts_record kt_rec(uint64_t from, uint64_t to, uint32_t kind);

/* A traced run of @fn(@arg), attached to kmod-step with a fresh buffer. */
struct kt_run {
	pid_t pid;
	int fd;
	void *buf;
	void *buf2;	/* kmod-pebs's PEBS region, of the same size */
	uint64_t size;
	struct ptbts_status st;
};

/* Starts it with a buffer of @size bytes; 0 or -errno (of ATTACH). */
int kt_run_start(struct kt_run *r, void (*fn)(long), long arg, uint64_t size,
		 uint32_t mode, uint64_t wakeup);
/*
 * The same with another source of the module (kmod-bts; kmod-pebs, with
 * a PEBS region of @size bytes too).
 */
int kt_run_start_source(struct kt_run *r, void (*fn)(long), long arg,
			uint64_t size, uint32_t mode, uint64_t wakeup,
			uint32_t source);
/* Runs to the end; the status of the thread afterwards into r->st. */
int kt_run_finish(struct kt_run *r);
/* Closes the session and unmaps the buffer. */
void kt_run_end(struct kt_run *r);
const struct ptbts_record *kt_run_recs(const struct kt_run *r);

/*
 * kt_sig_handler for @sig, returning through kt_sig_restorer (rt_sigaction
 * with SA_RESTORER, as kt_seq.S's records expect); 0 or -1.
 */
int kt_sig_install(int sig);
/* A kt_run child: kt_sig_install(SIGUSR1) (or exit 92), then kt_seq_sig(). */
void kt_sig_child(long arg);

/* kt_seq_loop(@iters) in a child seized in its SIGSTOP; its pid, or -1. */
pid_t kt_seized_loop(long iters);
/* The stop of @pid within 10 s: its waitpid() status, or -1. */
int kt_stop_within(pid_t pid);

#endif /* KT_STEP_H */
