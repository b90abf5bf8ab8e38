// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A BLOCK-mode thread that waits for room stays stoppable: PTRACE_INTERRUPT
 * or a SIGSTOP stops it while it waits (a tracer that waits for that stop before it
 * ACKs must not deadlock), and the freezer of a suspend freezes it there
 * (a tracer cannot hold up a suspend).  After the ACK it goes on with
 * every record written once, in order.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)
#define SLOTS	(KT_PAGE / REC)

struct consumer {
	const struct ptbts_record *recs;	/* the buffer */
	const struct ptbts_record *want;
	size_t n;				/* records wanted */
	uint64_t tail;				/* read and acknowledged */
	uint64_t bad;				/* first wrong record + 1 */
};

/* Checks the records up to @count against the wanted ones. */
static void consume(struct consumer *c, uint64_t count)
{
	for (; c->tail < count; c->tail++)
		if (!c->bad && (c->tail >= c->n ||
				kt_records_diff(&c->recs[c->tail % SLOTS],
						&c->want[c->tail], 1)))
			c->bad = c->tail + 1;
}

/*
 * Stops the thread while it waits for room, by PTRACE_INTERRUPT (@sig 0)
 * or by @sig (its signal-delivery stop; the signal is then suppressed),
 * or, with @freeze, freezes and thaws every task instead, and takes every
 * record of the run after the ACK.
 */
static void stop_while_waiting(int sig, bool freeze)
{
	const long iters = 1000;
	struct ptbts_record *want = calloc(3 * iters, sizeof(*want));
	void *buf = kt_map(KT_PAGE);
	struct ptbts_status st;
	struct ptbts_config cfg;
	struct consumer c = { 0 };
	int fd = kt_open(), status;
	pid_t pid;

	ASSERT_TRUE(want != NULL && buf != NULL);
	ASSERT_GE(fd, 0);
	c.want = want;
	c.recs = buf;
	c.n = kt_loop_expect(want, 3 * iters, iters, kt_loop_call,
			     kt_loop_after, kt_loop_jnz);
	ASSERT_GT(c.n, 3 * SLOTS);
	pid = kt_seized_loop(iters);
	ASSERT_GT(pid, 0);
	/* Woken only when the buffer is full: the thread then waits. */
	cfg = kt_step_config(pid, buf, KT_PAGE, PTBTS_MODE_BLOCK, KT_PAGE);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &cfg), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	ASSERT_EQ(kt_wait(fd, pid, 10000000000ull, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_RUNNING);
	EXPECT_EQ(kt_count(&st, KT_PAGE), (uint64_t)SLOTS);
	/* Let it reach its wait: its next record finds no room. */
	usleep(100000);

	if (freeze) {
		/* Frozen where it waits, thawed: still waiting, not stopped. */
		EXPECT_EQ(kt_freeze_all(), 0);
		ASSERT_EQ(kt_status(fd, pid, &st), 0);
		EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_RUNNING);
		EXPECT_EQ(kt_count(&st, KT_PAGE), (uint64_t)SLOTS);
	} else {
		if (sig)
			ASSERT_EQ(kill(pid, sig), 0);
		else
			ASSERT_EQ(ptrace(PTRACE_INTERRUPT, pid, 0, 0), 0);
		status = kt_stop_within(pid);
		if (status == -1) {
			/* It never stopped: free it, so that the test can end. */
			kill(pid, SIGKILL);
			waitpid(pid, NULL, __WALL);
			close(fd);
			free(want);
		}
		ASSERT_NE(status, -1);
		EXPECT_TRUE(WIFSTOPPED(status));
		EXPECT_EQ(status >> 16, sig ? 0 : PTRACE_EVENT_STOP);
		if (sig)
			EXPECT_EQ(WSTOPSIG(status), sig);
		ASSERT_EQ(kt_status(fd, pid, &st), 0);
		EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_STOPPED);
		EXPECT_EQ(kt_count(&st, KT_PAGE), (uint64_t)SLOTS);	/* no more */
	}

	/* ACK (in the stop, or running), and take everything to the end. */
	while (st.state != PTBTS_STATE_EXITED) {
		consume(&c, kt_count(&st, KT_PAGE));
		ASSERT_EQ(kt_ack(fd, pid, c.tail), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
		ASSERT_EQ(kt_wait(fd, pid, 10000000000ull, &st), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(waitpid(pid, &status, __WALL), pid);
	}
	consume(&c, kt_count(&st, KT_PAGE));
	ASSERT_EQ(waitpid(pid, &status, __WALL), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(c.tail, (uint64_t)c.n);
	EXPECT_EQ(c.bad, 0u);
	EXPECT_EQ(st.lost, 0u);
	close(fd);
	kt_unmap(buf, KT_PAGE);
	free(want);
	EXPECT_EQ(kt_pinned(), 0);
}

TEST(block_stop, interrupt_while_waiting_for_room)
{
	stop_while_waiting(0, false);
}

TEST(block_stop, sigstop_while_waiting_for_room)
{
	stop_while_waiting(SIGSTOP, false);
}

/*
 * A suspend freezes every task; a thread that waited for room in a sleep
 * the freezer cannot enter (a killable one) failed the freeze (EBUSY).
 */
TEST(block_stop, frozen_while_waiting_for_room)
{
	stop_while_waiting(0, true);
}
