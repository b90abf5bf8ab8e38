// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts on the virtual CPU: a BLOCK-mode thread that waits for room
 * stays stoppable.  PTRACE_INTERRUPT or a SIGSTOP stops it while it
 * waits (a tracer that waits for that stop before it ACKs must not
 * deadlock), and after the ACK it runs to its end, every loss marked.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)
#define SLOTS	(KT_PAGE / REC)

/* Reads the records up to @count, adding the LOST markers' counts. */
static uint64_t bts_consume(const struct ptbts_record *recs, uint64_t tail,
			    uint64_t count, uint64_t *lost_marked)
{
	for (; tail < count; tail++)
		if (PTBTS_KIND(recs[tail % SLOTS].flags) == PTBTS_KIND_LOST)
			*lost_marked += recs[tail % SLOTS].to;
	return tail;
}

static void bts_stop_while_waiting(int sig)
{
	struct ptbts_status st;
	struct ptbts_config cfg;
	struct { pid_t pid; int fd; } r;
	void *buf = kt_map(KT_PAGE);
	uint64_t tail = 0, lost_marked = 0;
	int status;

	ASSERT_TRUE(buf != NULL);
	r.fd = kt_open();
	ASSERT_GE(r.fd, 0);
	r.pid = kt_seized_loop(3000);
	ASSERT_GT(r.pid, 0);
	cfg = kt_step_config(r.pid, buf, KT_PAGE, PTBTS_MODE_BLOCK, KT_PAGE);
	cfg.source = PTBTS_SOURCE_KMOD_BTS;
	ASSERT_EQ(kt_ioctl(r.fd, PTBTS_IOC_ATTACH, &cfg), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	/* Woken only when the buffer is full: the thread then waits. */
	ASSERT_EQ(kt_wait(r.fd, r.pid, 10000000000ull, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_RUNNING);
	usleep(100000);

	if (sig)
		ASSERT_EQ(kill(r.pid, sig), 0);
	else
		ASSERT_EQ(ptrace(PTRACE_INTERRUPT, r.pid, 0, 0), 0);
	status = kt_stop_within(r.pid);
	if (status == -1) {
		/* It never stopped: free it, so that the test can end. */
		kill(r.pid, SIGKILL);
		waitpid(r.pid, NULL, __WALL);
	}
	ASSERT_NE(status, -1);
	EXPECT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(status >> 16, sig ? 0 : PTRACE_EVENT_STOP);
	if (sig)
		EXPECT_EQ(WSTOPSIG(status), sig);
	ASSERT_EQ(kt_status(r.fd, r.pid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_STOPPED);

	/* ACK in the stop, resume, and take everything to the end. */
	while (st.state != PTBTS_STATE_EXITED) {
		tail = bts_consume(buf, tail, kt_count(&st, KT_PAGE),
				   &lost_marked);
		ASSERT_EQ(kt_ack(r.fd, r.pid, tail), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
		ASSERT_EQ(kt_wait(r.fd, r.pid, 10000000000ull, &st), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(waitpid(r.pid, &status, __WALL), r.pid);
	}
	bts_consume(buf, tail, kt_count(&st, KT_PAGE), &lost_marked);
	ASSERT_EQ(waitpid(r.pid, &status, __WALL), r.pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* As under PMIs on this CPU: whatever is lost is marked. */
	EXPECT_EQ(st.lost, lost_marked);
	close(r.fd);
	kt_unmap(buf, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

KT_GUARDED_TEST(vcpu, kmod_bts_block_interrupt_while_waiting_for_room)
{
	bts_stop_while_waiting(0);
}

KT_GUARDED_TEST(vcpu, kmod_bts_block_sigstop_while_waiting_for_room)
{
	bts_stop_while_waiting(SIGSTOP);
}
