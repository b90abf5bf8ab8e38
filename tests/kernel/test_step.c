// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-step: the records of programs whose branches are known exactly
 * (kt_seq.S), in each overflow mode, across syscalls, signals, a ptrace
 * stop, fork, vfork and exec.  Every test ends with no page pinned.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)

TEST(step, caps_offer_kmod_step)
{
	struct ptbts_caps c = { .size = sizeof(c) };
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, &c), 0);
	EXPECT_EQ(c.sources, 1u << PTBTS_SOURCE_KMOD_STEP);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_STEP], PTBTS_OK);
	close(fd);
}

TEST(step, loop_records_exactly)
{
	static struct ptbts_record want[64];
	size_t n = kt_loop_expect(want, 64, 10, kt_loop_call, kt_loop_after,
				  kt_loop_jnz);
	struct kt_run r;
	int st;

	ASSERT_EQ(n, 29u);
	ASSERT_EQ(kt_run_start(&r, kt_seq_loop, 10, KT_PAGE, PTBTS_MODE_RING, 0), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.state, (unsigned)PTBTS_STATE_EXITED);
	EXPECT_EQ(r.st.source, (unsigned)PTBTS_SOURCE_KMOD_STEP);
	EXPECT_EQ(r.st.head, n * REC);
	EXPECT_EQ(r.st.wraps, 0u);
	EXPECT_EQ(r.st.lost, 0u);
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, n), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

TEST(step, branch_after_syscall_is_recorded)
{
	struct ptbts_record want[] = {
		kt_rec(KT_ADDR(kt_sys_jmp), KT_ADDR(kt_sys_target), 0),
		kt_rec(KT_ADDR(kt_sys_call), KT_ADDR(kt_leaf), 0),
		kt_rec(KT_ADDR(kt_leaf), KT_ADDR(kt_sys_ret), 0),
	};
	struct kt_run r;
	int st;

	ASSERT_EQ(kt_run_start(&r, (void (*)(long))kt_seq_sys, 0, KT_PAGE,
			    PTBTS_MODE_RING, 0), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.head, sizeof(want));
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, 3), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* The loop, a ptrace signal-delivery-stop, PTRACE_CONT, the loop again. */
TEST(step, ptrace_stop_and_cont_mid_trace)
{
	static struct ptbts_record want[128];
	size_t n = kt_loop_expect(want, 128, 20, kt_stop1_call, kt_stop1_after,
				  kt_stop1_jnz);
	struct kt_run r;
	int st;

	n += kt_loop_expect(want + n, 128 - n, 20, kt_stop2_call,
			    kt_stop2_after, kt_stop2_jnz);
	ASSERT_EQ(n, 118u);
	ASSERT_EQ(kt_run_start(&r, kt_seq_stop, 20, KT_PAGE, PTBTS_MODE_RING, 0), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.head, n * REC);
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, n), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* Signal delivery and sigreturn give their asynchronous records. */
TEST(step, signal_and_sigreturn_records)
{
	struct ptbts_record want[] = {
		kt_rec(KT_ADDR(kt_sig_resume), KT_ADDR(kt_sig_handler),
		       PTBTS_KIND_SIGNAL),
		kt_rec(KT_ADDR(kt_sig_handler), KT_ADDR(kt_sig_restorer), 0),
		kt_rec(KT_ADDR(kt_sig_restorer_sys), KT_ADDR(kt_sig_resume),
		       PTBTS_KIND_SIGRETURN),
		kt_rec(KT_ADDR(kt_sig_resume), KT_ADDR(kt_sig_after), 0),
	};
	struct kt_run r;
	int st;

	ASSERT_EQ(kt_run_start(&r, kt_sig_child, 0, KT_PAGE, PTBTS_MODE_RING, 0), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.head, sizeof(want));
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, 4), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* RING keeps the newest records; the oldest are overwritten. */
TEST(step, ring_keeps_the_newest)
{
	static struct ptbts_record want[3000];
	const uint64_t slots = KT_PAGE / REC;
	size_t n = kt_loop_expect(want, 3000, 1000, kt_loop_call,
				  kt_loop_after, kt_loop_jnz);
	uint64_t count, k;
	size_t bad = 0;
	struct kt_run r;

	ASSERT_EQ(n, 2999u);
	ASSERT_EQ(kt_run_start(&r, kt_seq_loop, 1000, KT_PAGE, PTBTS_MODE_RING, 0), 0);
	kt_run_finish(&r);
	count = kt_count(&r.st, KT_PAGE);
	EXPECT_EQ(count, (uint64_t)n);
	EXPECT_EQ(r.st.wraps, n / slots);
	EXPECT_EQ(r.st.lost, 0u);
	for (k = count - slots; k < count && !bad; k++)
		bad = kt_records_diff(&kt_run_recs(&r)[k % slots], &want[k], 1);
	EXPECT_EQ(bad, 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* STOP keeps the oldest and counts the rest. */
TEST(step, stop_mode_counts_lost)
{
	static struct ptbts_record want[400];
	const uint64_t slots = KT_PAGE / REC;
	struct kt_run r;

	kt_loop_expect(want, 400, 100, kt_loop_call, kt_loop_after, kt_loop_jnz);
	ASSERT_EQ(kt_run_start(&r, kt_seq_loop, 100, KT_PAGE, PTBTS_MODE_STOP, 0), 0);
	kt_run_finish(&r);
	EXPECT_EQ(kt_count(&r.st, KT_PAGE), slots);
	EXPECT_EQ(r.st.lost, 299 - slots);
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, slots), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * BLOCK with a one-page buffer: the tracer consumes with WAIT and ACK, the
 * thread waits for it, and every record of a long run arrives in order.
 */
TEST(step, block_loses_nothing)
{
	const long iters = 3000;
	const uint64_t slots = KT_PAGE / REC;
	struct ptbts_record *want = calloc(3 * iters, sizeof(*want));
	uint64_t tail = 0, count, bad = 0, waits = 0;
	struct ptbts_status st;
	size_t n;
	struct kt_run r;
	int status = 0, done = 0;

	ASSERT_TRUE(want != NULL);
	n = kt_loop_expect(want, 3 * iters, iters, kt_loop_call, kt_loop_after,
			   kt_loop_jnz);
	ASSERT_EQ(kt_run_start(&r, kt_seq_loop, iters, KT_PAGE, PTBTS_MODE_BLOCK,
			    0), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	while (!done) {
		long w = kt_wait(r.fd, r.pid, 1000000000ull, &st);

		if (w == -ETIMEDOUT)
			continue;
		ASSERT_EQ(w, 0);
		waits++;
		count = kt_count(&st, KT_PAGE);
		ASSERT_LE(count - tail, slots);
		for (; tail < count; tail++)
			if (!bad && tail < n &&
			    kt_records_diff(&kt_run_recs(&r)[tail % slots], &want[tail], 1))
				bad = tail + 1;
		ASSERT_EQ(kt_ack(r.fd, r.pid, tail), 0);
		if (st.state == PTBTS_STATE_STOPPED) {
			/* Only the exit is left: reap it. */
			ASSERT_EQ(waitpid(r.pid, &status, WNOHANG), 0);
		}
		done = st.state == PTBTS_STATE_EXITED;
	}
	ASSERT_EQ(waitpid(r.pid, &status, 0), r.pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(tail, (uint64_t)n);
	EXPECT_EQ(st.lost, 0u);
	EXPECT_EQ(bad, 0u);
	/* One wakeup per half buffer, not one per record. */
	EXPECT_LE(waits, 2 * n / (slots / 2) + 4);
	kt_run_end(&r);
	free(want);
	EXPECT_EQ(kt_pinned(), 0);
}

/* poll() wakes once the unread records reach the threshold. */
TEST(step, poll_wakes_at_threshold)
{
	struct ptbts_status st;
	struct pollfd p;
	struct kt_run r;

	ASSERT_EQ(kt_run_start(&r, kt_seq_loop, 100000, KT_PAGE, PTBTS_MODE_BLOCK,
			    10 * REC), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	p.fd = r.fd;
	p.events = POLLIN;
	ASSERT_EQ(poll(&p, 1, 10000), 1);
	EXPECT_EQ(p.revents, POLLIN);
	ASSERT_EQ(kt_status(r.fd, r.pid, &st), 0);
	/* Running (it waits for room at most), with the threshold passed. */
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_RUNNING);
	EXPECT_GE(kt_count(&st, KT_PAGE), 10u);
	EXPECT_EQ(kt_wait(r.fd, r.pid, 0, &st), 0);
	kill(r.pid, SIGKILL);
	waitpid(r.pid, NULL, 0);
	EXPECT_EQ(kt_wait(r.fd, r.pid, PTBTS_WAIT_FOREVER, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_EXITED);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* A thread below its threshold and running: WAIT times out. */
TEST(step, wait_times_out_below_threshold)
{
	struct ptbts_status st;
	struct kt_tracee t;
	void *buf = kt_map(KT_PAGE);
	struct ptbts_config c;
	pid_t pid;
	int fd;

	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	pid = t.pid;
	fd = kt_open();
	ASSERT_GE(fd, 0);
	c = kt_step_config(t.pid, buf, KT_PAGE, PTBTS_MODE_RING, KT_PAGE);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), 0);
	/* Stopped: ready at once. */
	EXPECT_EQ(kt_wait(fd, t.pid, 0, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_STOPPED);
	ASSERT_EQ(ptrace(PTRACE_CONT, t.pid, 0, 0), 0);
	EXPECT_EQ(kt_wait(fd, t.pid, 50000000, &st), -ETIMEDOUT);
	kt_tracee_kill(&t);
	EXPECT_EQ(kt_wait(fd, pid, PTBTS_WAIT_FOREVER, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_EXITED);
	close(fd);
	kt_unmap(buf, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * A child of a stepped thread runs normally (no inherited trap flag), and
 * the parent's one branch, right after the syscall, is its only record.
 */
static void fork_child_runs(long nr)
{
	struct ptbts_record want =
		kt_rec(KT_ADDR(kt_fork_jnz), KT_ADDR(kt_fork_parent), 0);
	struct kt_run r;
	int st;

	ASSERT_EQ(kt_run_start(&r, kt_seq_fork, nr, 4 * KT_PAGE, PTBTS_MODE_RING,
			    0), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 7);
	EXPECT_EQ(kt_count(&r.st, 4 * KT_PAGE), 1u);
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), &want, 1), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

TEST(step, fork_child_runs_normally)
{
	fork_child_runs(SYS_fork);
}

TEST(step, vfork_child_runs_normally)
{
	fork_child_runs(SYS_vfork);
}

/* exec: an EXEC marker at the new entry point, and recording goes on. */
TEST(step, exec_marker_and_recording_goes_on)
{
	const uint64_t size = 64 * KT_PAGE;
	struct user_regs_struct regs;
	uint64_t count, k, exec_at = ~0ull, nexec = 0;
	struct kt_run r;
	int st;

	ASSERT_EQ(kt_run_start(&r, (void (*)(long))kt_seq_exec, 0, size,
			    PTBTS_MODE_STOP, 0), 0);
	/* The exec's SIGTRAP stop, at the new image's first instruction. */
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	ASSERT_EQ(waitpid(r.pid, &st, 0), r.pid);
	ASSERT_TRUE(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP);
	ASSERT_EQ(ptrace(PTRACE_GETREGS, r.pid, 0, &regs), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	count = kt_count(&r.st, size);
	for (k = 0; k < count; k++) {
		if (PTBTS_KIND(kt_run_recs(&r)[k].flags) != PTBTS_KIND_EXEC)
			continue;
		nexec++;
		exec_at = k;
	}
	EXPECT_EQ(nexec, 1u);
	ASSERT_LT(exec_at, count);
	EXPECT_EQ(exec_at, 0u);	/* nothing branches before the execve */
	EXPECT_EQ(kt_run_recs(&r)[exec_at].from, 0u);
	EXPECT_EQ(kt_run_recs(&r)[exec_at].to, (uint64_t)regs.rip);
	/* busybox true takes far more than ten branches. */
	EXPECT_GT(count, exec_at + 10);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* The tracer: attach, resume, and exit with the tracee mid-loop. */
static int trace_then_die(void *arg)
{
	pid_t *out = arg;
	struct kt_run r;

	KT_CHECK(kt_run_start(&r, kt_seq_loop, 20000, 64 * KT_PAGE,
			   PTBTS_MODE_RING, 0) == 0);
	KT_CHECK(ptrace(PTRACE_CONT, r.pid, 0, 0) == 0);
	*out = r.pid;
	return -(int)r.pid;
}

/*
 * State outlives the session: the tracer's exit detaches the running
 * tracee, whose next trap takes the module's trap flag back instead of
 * killing it with SIGTRAP.
 */
TEST(step, tracer_death_leaves_tracee_running)
{
	pid_t tracee = 0;
	int r, st;

	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	r = kt_in_child(trace_then_die, &tracee);
	ASSERT_LT(r, 0);
	tracee = -r;
	ASSERT_EQ(waitpid(tracee, &st, 0), tracee);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st), 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	EXPECT_EQ(kt_pinned(), 0);
}
