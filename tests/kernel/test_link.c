// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A recording lasts as long as the ptrace link and no longer: it ends when
 * the tracer lets the thread go (PTRACE_DETACH), and at an exec that makes
 * the thread non-dumpable, as a setuid program does.  Either way the
 * thread is DETACHED, the last record is a GAP marker, nothing of what ran
 * afterwards is in the buffer, and its pages are back.  The setuid program
 * is /kt-suid of the guest image, which reads the root-only /kt-secret.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define SIZE	(64 * KT_PAGE)

static volatile unsigned long sink;

static void leaf(void)
{
	sink++;
}

/* At least 2 * @n taken branches (kt_seq.S's programs exit at their end). */
static void calls(long n)
{
	void (*volatile fn)(void) = leaf;

	while (n--)
		fn();
}

static void run_suid(void)
{
	char *argv[] = { (char *)"kt-suid", NULL }, *envp[] = { NULL };

	execve("/kt-suid", argv, envp);
	_exit(98);
}

/* Records while traced, stops for the tracer's PTRACE_DETACH, goes on. */
static void detach_child(long arg)
{
	(void)arg;
	raise(SIGSTOP);
	calls(100);
	raise(SIGSTOP);
	calls(100);
	run_suid();
}

/* The number of records of @kind in @n records at @recs. */
static uint64_t count_kind(const struct ptbts_record *recs, uint64_t n,
			   uint32_t kind)
{
	uint64_t k, c = 0;

	for (k = 0; k < n; k++)
		c += PTBTS_KIND(recs[k].flags) == kind;
	return c;
}

/* The final marker is the last record, and nothing follows it. */
static int ended_with_gap(const struct kt_run *r, uint64_t count)
{
	const struct ptbts_record *last;

	if (!count || count > SIZE / sizeof(*last))
		return 0;
	last = &kt_run_recs(r)[count - 1];
	return PTBTS_KIND(last->flags) == PTBTS_KIND_GAP && !last->from &&
	       last->to == PTBTS_GAP_DISABLED;
}

/*
 * A uid-1000 tracer detaches its uid-1000 tracee, which then runs the
 * setuid program: no record after the detach, the tracer cannot learn
 * what the root program did.  With @arg, the tracer asks for the status
 * at once and sees the end, unless the thread, resumed by the detach, got
 * to its first trap before and wrote the final marker; without, the
 * thread always finds it there.  Either way nothing else follows.
 */
static int detach_then_suid(void *arg)
{
	struct ptbts_status st;
	uint64_t at_detach;
	struct kt_run r;
	int ws;

	KT_CHECK(kt_become_user() == 0);
	KT_CHECK(kt_run_start(&r, detach_child, 0, SIZE, PTBTS_MODE_STOP,
			      0) == 0);
	KT_CHECK(ptrace(PTRACE_CONT, r.pid, 0, 0) == 0);
	KT_CHECK(waitpid(r.pid, &ws, 0) == r.pid);
	KT_CHECK(WIFSTOPPED(ws) && WSTOPSIG(ws) == SIGSTOP);
	KT_CHECK(kt_status(r.fd, r.pid, &st) == 0);
	KT_CHECK(st.state == PTBTS_STATE_STOPPED);
	at_detach = kt_count(&st, SIZE);
	KT_CHECK(at_detach >= 200);
	KT_CHECK(ptrace(PTRACE_DETACH, r.pid, 0, 0) == 0);
	if (arg) {
		KT_CHECK(kt_status(r.fd, r.pid, &st) == 0);
		KT_CHECK(st.state == PTBTS_STATE_DETACHED);
		KT_CHECK(kt_pinned() == 0);
	}
	/* Still our child: the setuid program ran as root. */
	KT_CHECK(waitpid(r.pid, &ws, 0) == r.pid);
	KT_CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	KT_CHECK(kt_status(r.fd, r.pid, &st) == 0);
	KT_CHECK(st.state == PTBTS_STATE_DETACHED);
	KT_CHECK(kt_pinned() == 0);
	/* Unless the tracer's STATUS ended it first, the thread's marker. */
	if (!arg || kt_count(&st, SIZE) != at_detach) {
		KT_CHECK(kt_count(&st, SIZE) == at_detach + 1);
		KT_CHECK(ended_with_gap(&r, at_detach + 1));
	}
	KT_CHECK(count_kind(kt_run_recs(&r), at_detach, PTBTS_KIND_EXEC) == 0);
	kt_run_end(&r);
	return 0;
}

TEST(link, ptrace_detach_seen_by_the_tracer)
{
	EXPECT_EQ(kt_in_child(detach_then_suid, (void *)1), 0);
	EXPECT_EQ(kt_pinned(), 0);
}

TEST(link, ptrace_detach_seen_at_the_next_trap)
{
	EXPECT_EQ(kt_in_child(detach_then_suid, NULL), 0);
	EXPECT_EQ(kt_pinned(), 0);
}

/* A uid-1000 tracee of a root tracer: runs, then execs the setuid program. */
static void suid_child(long arg)
{
	(void)arg;
	if (kt_become_user())
		_exit(97);
	raise(SIGSTOP);
	calls(100);
	run_suid();
}

/*
 * The tracer may trace the program it becomes (it has CAP_SYS_PTRACE, so
 * the exec does make it root), but the exec made it non-dumpable, and so,
 * as for perf, the recording ends there: no EXEC marker, not one record of
 * the new image, and the thread goes on without the trap flag.
 */
TEST(link, setuid_exec_ends_recording)
{
	struct ptbts_status st;
	struct kt_run r;
	uint64_t count;
	int ws;

	ASSERT_EQ(kt_run_start(&r, suid_child, 0, SIZE, PTBTS_MODE_STOP, 0), 0);
	ws = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	EXPECT_EQ(r.st.state, (uint32_t)PTBTS_STATE_DETACHED);
	count = kt_count(&r.st, SIZE);
	EXPECT_GE(count, 200u);
	EXPECT_EQ(count_kind(kt_run_recs(&r), count, PTBTS_KIND_EXEC), 0u);
	EXPECT_TRUE(ended_with_gap(&r, count));
	EXPECT_EQ(kt_pinned(), 0);
	/* WAIT answers at once, with the same. */
	EXPECT_EQ(kt_wait(r.fd, r.pid, PTBTS_WAIT_FOREVER, &st), 0);
	EXPECT_EQ(st.state, (uint32_t)PTBTS_STATE_DETACHED);
	EXPECT_EQ(kt_count(&st, SIZE), count);
	kt_run_end(&r);
}

/*
 * The same with the CPU recording (kmod-bts and kmod-pebs, on the virtual
 * CPU of make test-vcpu only): the exec into the setuid program ends the
 * slice where it stands, and the final GAP marker follows the last record,
 * the execve entry into the kernel: not one user branch of the new image
 * reaches the tracer's pages.
 */
static void hw_setuid_exec_ends(uint32_t source)
{
	const struct ptbts_record *execve;
	struct kt_run r;
	uint64_t count;
	int ws, wd = 0;

	/* kmod-pebs needs the counters that the NMI watchdog holds. */
	if (source == PTBTS_SOURCE_KMOD_PEBS) {
		wd = kt_watchdog_set("0");
		ASSERT_GE(wd, 0);
	}
	ASSERT_EQ(kt_run_start_source(&r, suid_child, 0, SIZE, PTBTS_MODE_STOP,
				      0, source), 0);
	ws = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	EXPECT_EQ(r.st.state, (uint32_t)PTBTS_STATE_DETACHED);
	EXPECT_EQ(r.st.wraps, 0u);
	EXPECT_EQ(r.st.lost, 0u);
	count = kt_count(&r.st, SIZE);
	ASSERT_GE(count, 200u);
	EXPECT_TRUE(ended_with_gap(&r, count));
	EXPECT_EQ(count_kind(kt_run_recs(&r), count - 1, PTBTS_KIND_BRANCH),
		  count - 1);
	execve = &kt_run_recs(&r)[count - 2];
	EXPECT_LT(execve->from, 1ull << 47);	/* from the old image, */
	EXPECT_GE(execve->to, 1ull << 63);	/* into the kernel: execve */
	kt_run_end(&r);
	if (wd > 0)
		kt_watchdog_set("1");
	EXPECT_EQ(kt_pinned(), 0);
}

KT_GUARDED_TEST(vcpu, kmod_bts_setuid_exec_ends_recording)
{
	hw_setuid_exec_ends(PTBTS_SOURCE_KMOD_BTS);
}

KT_GUARDED_TEST(vcpu, kmod_pebs_setuid_exec_ends_recording)
{
	hw_setuid_exec_ends(PTBTS_SOURCE_KMOD_PEBS);
}
