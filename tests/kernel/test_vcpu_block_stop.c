// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts on the virtual CPU: a BLOCK-mode thread that waits for room
 * stays stoppable.  PTRACE_INTERRUPT or a SIGSTOP stops it while it
 * waits (a tracer that waits for that stop before it ACKs must not
 * deadlock), the freezer of a suspend freezes it there, and after the
 * ACK it runs to its end, every loss marked.
 * Resumed before the ACK, it goes back to user mode with its records
 * held back: it must wait again at once, losing no user branch.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)
#define SLOTS	(KT_PAGE / REC)

struct consumed {
	uint64_t lost_marked;	/* the LOST markers' counts */
	uint64_t user;		/* branches from user mode to user mode */
};

static bool user_addr(uint64_t a)
{
	return a < 0xffff800000000000ull;
}

/* Reads the records up to @count. */
static uint64_t bts_consume(const struct ptbts_record *recs, uint64_t tail,
			    uint64_t count, struct consumed *c)
{
	for (; tail < count; tail++) {
		const struct ptbts_record *rec = &recs[tail % SLOTS];

		if (PTBTS_KIND(rec->flags) == PTBTS_KIND_LOST)
			c->lost_marked += rec->to;
		else if (!PTBTS_KIND(rec->flags) && user_addr(rec->from) &&
			 user_addr(rec->to))
			c->user++;
	}
	return tail;
}

/* The state letter of /proc/PID/stat, or 0. */
static char thread_state(pid_t pid)
{
	char path[64], line[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Waits (10 s at most) until @pid sleeps: it waits for room. */
static bool sleeps_within(pid_t pid)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (thread_state(pid) == 'S')
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * @sig (0: PTRACE_INTERRUPT) stops the thread while it waits for room;
 * with @freeze, every task is frozen and thawed instead.
 * @ack_late: the tracer resumes it first and ACKs only once it waits
 * again, so that it goes back to user mode with nothing acknowledged.
 */
static void bts_stop_while_waiting(int sig, bool freeze, bool ack_late)
{
	static struct ptbts_record want[4 * 3000];
	struct ptbts_status st;
	struct ptbts_config cfg;
	struct { pid_t pid; int fd; } r;
	void *buf = kt_map(KT_PAGE);
	uint64_t tail = 0;
	struct consumed c = { 0, 0 };
	size_t n = kt_loop_expect(want, 4 * 3000, 3000, kt_loop_call,
				  kt_loop_after, kt_loop_jnz);
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

	if (freeze) {
		/* Frozen where it waits, thawed: still waiting, not stopped. */
		EXPECT_EQ(kt_freeze_all(), 0);
		ASSERT_EQ(kt_status(r.fd, r.pid, &st), 0);
		EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_RUNNING);
	} else {
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
	}

	if (ack_late) {
		ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
		EXPECT_TRUE(sleeps_within(r.pid));
		ASSERT_EQ(kt_status(r.fd, r.pid, &st), 0);
	}
	/* ACK (in the stop, or late), resume, take everything to the end. */
	while (st.state != PTBTS_STATE_EXITED) {
		tail = bts_consume(buf, tail, kt_count(&st, KT_PAGE), &c);
		ASSERT_EQ(kt_ack(r.fd, r.pid, tail), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
		ASSERT_EQ(kt_wait(r.fd, r.pid, 10000000000ull, &st), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(waitpid(r.pid, &status, __WALL), r.pid);
	}
	bts_consume(buf, tail, kt_count(&st, KT_PAGE), &c);
	ASSERT_EQ(waitpid(r.pid, &status, __WALL), r.pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* As under PMIs on this CPU: whatever is lost is marked. */
	EXPECT_EQ(st.lost, c.lost_marked);
	/* Only interrupt entries may be lost, never a user branch. */
	EXPECT_EQ(c.user, (uint64_t)n);
	close(r.fd);
	kt_unmap(buf, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

KT_GUARDED_TEST(vcpu, kmod_bts_block_interrupt_while_waiting_for_room)
{
	bts_stop_while_waiting(0, false, false);
}

KT_GUARDED_TEST(vcpu, kmod_bts_block_sigstop_while_waiting_for_room)
{
	bts_stop_while_waiting(SIGSTOP, false, false);
}

/*
 * A suspend freezes every task; a thread that waited for room in a sleep
 * the freezer cannot enter (a killable one) failed the freeze (EBUSY).
 */
KT_GUARDED_TEST(vcpu, kmod_bts_block_frozen_while_waiting_for_room)
{
	bts_stop_while_waiting(0, true, false);
}

/*
 * Resumed from the stop before any ACK, the thread runs back into user
 * mode with its records held back and must wait again at its first
 * record; the tracer ACKs only once it sleeps.  No user branch is lost.
 */
KT_GUARDED_TEST(vcpu, kmod_bts_block_resumed_without_room_loses_no_branch)
{
	bts_stop_while_waiting(0, false, true);
}

/*
 * User branches kt_seq_loop(@n) has taken when it stands at @rip with
 * @rbx iterations to go: three per iteration (call, ret, jnz).
 */
static uint64_t loop_branches_at(long n, uint64_t rip, uint64_t rbx)
{
	uint64_t done = (uint64_t)n - rbx;

	if (rip == (uint64_t)(uintptr_t)kt_leaf)
		return 3 * done + 1;
	if (rip == (uint64_t)(uintptr_t)kt_loop_after)
		return 3 * done + 2;
	if (rip == (uint64_t)(uintptr_t)kt_loop_jnz)
		return 3 * (done - 1) + 2;	/* rbx counted down already */
	return 3 * done;			/* at the call */
}

/*
 * The link ends (PTRACE_DETACH) while records are held back in the
 * scratch area: the tracer has made room, so they go into the buffer
 * before the final GAP marker.  Every user branch the thread took while
 * traced is read, none vanishes at the end.
 */
KT_GUARDED_TEST(vcpu, kmod_bts_block_detach_keeps_held_records)
{
	struct ptbts_status st;
	struct ptbts_config cfg;
	struct user_regs_struct regs;
	struct consumed c = { 0, 0 };
	void *buf = kt_map(KT_PAGE);
	const struct ptbts_record *recs = buf;
	uint64_t tail = 0, want, count;
	pid_t pid;
	int fd, status;

	ASSERT_TRUE(buf != NULL);
	fd = kt_open();
	ASSERT_GE(fd, 0);
	pid = kt_seized_loop(3000);
	ASSERT_GT(pid, 0);
	cfg = kt_step_config(pid, buf, KT_PAGE, PTBTS_MODE_BLOCK, KT_PAGE);
	cfg.source = PTBTS_SOURCE_KMOD_BTS;
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &cfg), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	ASSERT_EQ(kt_wait(fd, pid, 10000000000ull, &st), 0);
	/* Stopped in its wait, resumed without room: it holds records. */
	ASSERT_EQ(ptrace(PTRACE_INTERRUPT, pid, 0, 0), 0);
	ASSERT_NE(kt_stop_within(pid), -1);
	ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	EXPECT_TRUE(sleeps_within(pid));
	ASSERT_EQ(ptrace(PTRACE_INTERRUPT, pid, 0, 0), 0);
	ASSERT_NE(kt_stop_within(pid), -1);
	ASSERT_EQ(ptrace(PTRACE_GETREGS, pid, 0, &regs), 0);
	want = loop_branches_at(3000, regs.rip, regs.rbx);

	/* Room for all of them, then the link ends. */
	ASSERT_EQ(kt_status(fd, pid, &st), 0);
	tail = bts_consume(recs, tail, kt_count(&st, KT_PAGE), &c);
	ASSERT_EQ(kt_ack(fd, pid, tail), 0);
	ASSERT_EQ(ptrace(PTRACE_DETACH, pid, 0, 0), 0);
	ASSERT_EQ(kt_status(fd, pid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_DETACHED);
	count = kt_count(&st, KT_PAGE);
	EXPECT_GT(count, tail);
	bts_consume(recs, tail, count, &c);
	EXPECT_EQ(c.user, want);
	EXPECT_EQ(st.lost, c.lost_marked);
	EXPECT_EQ(PTBTS_KIND(recs[(count - 1) % SLOTS].flags),
		  (uint32_t)PTBTS_KIND_GAP);
	EXPECT_EQ(recs[(count - 1) % SLOTS].to,
		  (unsigned long long)PTBTS_GAP_DISABLED);
	/* Detached, it is back in the group stop of its own SIGSTOP. */
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, __WALL), pid);
	close(fd);
	kt_unmap(buf, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}
