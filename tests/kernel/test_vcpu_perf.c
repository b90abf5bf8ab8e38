// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts next to Linux's own BTS user, perf's intel_bts, on the same
 * vCPU (README, "Hardware sources"): kmod-bts borrows the BTS fields of
 * perf's DS area for its slices and puts them back, so perf's recording of
 * another task stays exact; attaching is refused while perf's BTS is on,
 * and a slice that finds it on is skipped and marked as a GAP, leaving
 * perf's recording alone.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)
#define ITERS	100
#define MAXREC	4096

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t all;

	CPU_ZERO(&all);
	CPU_SET(0, &all);
	CPU_SET(1, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

/* The user branches of kt_seq_stop(ITERS), in order: both loops. */
static size_t stop_expect(struct ptbts_record *want, size_t max, bool first,
			  bool second)
{
	size_t n = 0;

	if (first)
		n = kt_loop_expect(want, max, ITERS, kt_stop1_call,
				   kt_stop1_after, kt_stop1_jnz);
	if (second)
		n += kt_loop_expect(want + n, max - n, ITERS, kt_stop2_call,
				    kt_stop2_after, kt_stop2_jnz);
	return n;
}

/* Runs @pid (traced by us, in a stop) to its next SIGSTOP; 0 or -1. */
static int run_to_stop(pid_t pid)
{
	int st;

	if (ptrace(PTRACE_CONT, pid, 0, 0) || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP ? 0 : -1;
}

/*
 * perf records program B with intel_bts (a task event); halfway, B stops,
 * and program A, recorded by kmod-bts, runs from start to end on the same
 * vCPU, in perf's DS area.  Then B finishes.  perf's stream is exactly
 * B's two loops, one after the other: A's slices gave perf's BTS fields
 * back as they found them.  A's stream is exact too.
 */
KT_GUARDED_TEST(vcpu, intel_bts_task_exact_around_kmod_bts_slices)
{
	static struct ptbts_record want[MAXREC], got[MAXREC], user[MAXREC];
	struct kt_intel_bts b;
	size_t n, nuser, nwant;
	struct kt_run a;
	pid_t pid;
	int st;

	ASSERT_EQ(pin_to(1), 0);
	ASSERT_EQ(kt_run_start_source(&a, kt_seq_loop, ITERS, 64 * KT_PAGE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	pid = kt_seq_start(kt_seq_stop, ITERS);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(kt_intel_bts_open(&b, pid, -1), 0);
	ASSERT_EQ(run_to_stop(pid), 0);
	st = kt_run_finish(&a);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = kt_seq_finish(pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unpin();

	n = kt_intel_bts_read(&b, got, MAXREC);
	kt_intel_bts_close(&b);
	ASSERT_NE(kt_split_user(got, n, user, &nuser), ~(size_t)0);
	nwant = stop_expect(want, MAXREC, true, true);
	ASSERT_EQ(nwant, 6u * ITERS - 2);
	ASSERT_EQ(nuser, nwant);
	EXPECT_EQ(kt_records_diff(user, want, nwant), 0u);

	n = a.st.head / REC;
	ASSERT_LE(n, (size_t)MAXREC);
	EXPECT_EQ(a.st.lost, 0u);
	ASSERT_NE(kt_split_user(kt_run_recs(&a), n, user, &nuser), ~(size_t)0);
	nwant = kt_loop_expect(want, MAXREC, ITERS, kt_loop_call,
			       kt_loop_after, kt_loop_jnz);
	ASSERT_EQ(nuser, nwant);
	EXPECT_EQ(kt_records_diff(user, want, nwant), 0u);
	kt_run_end(&a);
	EXPECT_EQ(kt_pinned(), 0);
}

/* The index of @want's @n records as one run in @got, or ~0. */
static size_t find_run(const struct ptbts_record *got, size_t ngot,
		       const struct ptbts_record *want, size_t n)
{
	size_t i;

	for (i = 0; i + n <= ngot; i++)
		if (!memcmp(&got[i], want, n * sizeof(*want)))
			return i;
	return ~(size_t)0;
}

static size_t count_kind(const struct ptbts_record *r, size_t n,
			 uint32_t kind)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += PTBTS_KIND(r[i].flags) == kind;
	return c;
}

/*
 * perf records every task on vCPU 1 (a CPU event of intel_bts): its BTS
 * is on there.  Attaching kmod-bts is refused for it (PERF_BUSY); program
 * A, attached before, runs its first loop there unrecorded by kmod-bts,
 * recorded by perf; perf's event ends while A sits in its SIGSTOP, and A's
 * second loop is kmod-bts's again, after one GAP marker for what it
 * missed.  Once perf is gone, attaching works again.
 */
KT_GUARDED_TEST(vcpu, kmod_bts_gives_way_to_intel_bts_on_its_cpu)
{
	static struct ptbts_record want[MAXREC], got[MAXREC], user[MAXREC];
	struct ptbts_config c;
	struct ptbts_caps caps;
	struct kt_intel_bts b;
	size_t n, nuser, nwant;
	void *buf = kt_map(KT_PAGE);
	struct kt_run a;
	pid_t other;
	int st;

	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(pin_to(1), 0);
	ASSERT_EQ(kt_run_start_source(&a, kt_seq_stop, ITERS, 64 * KT_PAGE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	ASSERT_EQ(pin_to(0), 0);
	other = kt_seq_start(kt_seq_loop, 10);
	ASSERT_GT(other, 0);

	ASSERT_EQ(kt_intel_bts_open(&b, -1, 1), 0);
	ASSERT_EQ(kt_caps(&caps), 0);
	EXPECT_EQ(caps.unavail[PTBTS_SOURCE_KMOD_BTS],
		  (unsigned)PTBTS_UNAVAIL_PERF_BUSY);
	c = kt_config(other, buf, KT_PAGE);
	c.source = PTBTS_SOURCE_KMOD_BTS;
	EXPECT_EQ(kt_ioctl(a.fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
	ASSERT_EQ(run_to_stop(a.pid), 0);
	n = kt_intel_bts_read(&b, got, MAXREC);
	kt_intel_bts_close(&b);

	EXPECT_EQ(kt_ioctl(a.fd, PTBTS_IOC_ATTACH, &c), 0);
	st = kt_run_finish(&a);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unpin();

	/* perf: A's first loop, whole, on vCPU 1. */
	ASSERT_NE(kt_split_user(got, n, user, &nuser), ~(size_t)0);
	nwant = stop_expect(want, MAXREC, true, false);
	EXPECT_NE(find_run(user, nuser, want, nwant), ~(size_t)0);
	/* kmod-bts: a GAP, then the second loop exactly. */
	n = a.st.head / REC;
	ASSERT_LE(n, (size_t)MAXREC);
	ASSERT_GE(n, 1u);
	EXPECT_EQ(PTBTS_KIND(kt_run_recs(&a)[0].flags), (unsigned)PTBTS_KIND_GAP);
	EXPECT_EQ(count_kind(kt_run_recs(&a), n, PTBTS_KIND_GAP), 1u);
	ASSERT_NE(kt_split_user(kt_run_recs(&a) + 1, n - 1, user, &nuser),
		  ~(size_t)0);
	nwant = stop_expect(want, MAXREC, false, true);
	ASSERT_EQ(nuser, nwant);
	EXPECT_EQ(kt_records_diff(user, want, nwant), 0u);
	kt_run_end(&a);
	kill(other, SIGKILL);
	kt_reap(other);
	kt_unmap(buf, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}
