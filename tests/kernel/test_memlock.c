// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RLIMIT_MEMLOCK holds: the buffers are charged to the tracer's user, so a
 * tracer that re-execs itself (a new mm, whose counters start at 0) finds
 * its old buffers still charged; a request past the limit is refused
 * before the kernel allocates anything for it; an mlock()ed buffer is
 * locked memory once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define REEXEC_ENV	"PTBTS_TEST_MEMLOCK_REEXEC"
#define LIMIT_PAGES	16

/* STATUS of @tid: its state, or -errno. */
static long state_of(int fd, pid_t tid)
{
	struct ptbts_status st;
	long r = kt_status(fd, tid, &st);

	return r < 0 ? r : (long)st.state;
}

/*
 * The tracer after its exec: the same session fd and tracee, a new mm.
 * Whatever the exec did to the first attachment (12 pages), the user never
 * holds more than its 16: while the first is held, 12 more are -ENOMEM
 * and 4 fit.  Returns 0 or the failing line.
 */
static int reexec_after(int fd, struct kt_tracee *t)
{
	uint8_t *p = kt_map(12 * KT_PAGE);
	long first = state_of(fd, t->pid);
	long r;

	KT_CHECK(p != NULL);
	KT_CHECK(kt_vmpin_kb() == 0);		/* the new mm shows none */
	KT_CHECK(first >= 0);
	r = kt_attach(fd, t->tids[1], p, 12 * KT_PAGE);
	KT_CHECK(kt_pinned() <= LIMIT_PAGES);
	if (first == PTBTS_STATE_DETACHED) {
		/* The exec ended the first: its charge came back with it. */
		KT_CHECK(r == 0);
		return 0;
	}
	KT_CHECK(r == -ENOMEM);
	KT_CHECK(kt_attach(fd, t->tids[1], p, 5 * KT_PAGE) == -ENOMEM);
	KT_CHECK(kt_attach(fd, t->tids[1], p, 4 * KT_PAGE) == 0);
	KT_CHECK(kt_pinned() == LIMIT_PAGES);
	return 0;
}

/*
 * Runs before main() in the re-exec'd image: "FD PID TID1" in the
 * environment says this is the tracer's second life.
 */
__attribute__((constructor)) static void reexec_entry(void)
{
	const char *env = getenv(REEXEC_ENV);
	struct kt_tracee t;
	int fd, line;

	if (!env)
		return;
	memset(&t, 0, sizeof(t));
	t.nr = 2;
	if (sscanf(env, "%d %d %d", &fd, &t.pid, &t.tids[1]) != 3)
		_exit(2);
	t.tids[0] = t.pid;
	line = reexec_after(fd, &t);
	if (line)
		fprintf(stderr, "memlock re-exec: the check at line %d failed\n",
			line);
	kt_tracee_kill(&t);
	_exit(line ? 1 : 0);
}

/* uid 1000, 16 pages: 12 charged, then the tracer execs itself. */
static int reexec_before(void)
{
	struct rlimit rl = { LIMIT_PAGES * KT_PAGE, LIMIT_PAGES * KT_PAGE };
	uint8_t *p = kt_map(12 * KT_PAGE);
	char env[64];
	struct kt_tracee t;
	int fd;

	KT_CHECK(p != NULL);
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(kt_become_user() == 0);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(fcntl(fd, F_SETFD, 0) == 0);	/* the exec keeps it */
	KT_CHECK(kt_tracee_start(&t, 1, 1) == 0);
	KT_CHECK(kt_attach(fd, t.pid, p, 12 * KT_PAGE) == 0);
	KT_CHECK(kt_vmpin_kb() == 48);
	snprintf(env, sizeof(env), "%d %d %d", fd, t.pid, t.tids[1]);
	setenv(REEXEC_ENV, env, 1);
	execl("/proc/self/exe", "kernel-tests", (char *)NULL);
	return __LINE__;
}

TEST(memlock, tracer_reexec_keeps_its_charge)
{
	pid_t pid = fork();
	int st;

	ASSERT_GE(pid, 0);
	if (!pid) {
		int line = reexec_before();

		fprintf(stderr, "memlock re-exec: the check at line %d failed\n",
			line);
		_exit(1);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * uid 1000, 64 KiB: a buffer of 128 GiB, and one of the largest size the
 * module takes (its page array alone would be 2 GiB), never mapped: both
 * -ENOMEM from the limit, before anything is allocated or pinned.
 */
static int huge_requests(void *arg)
{
	struct rlimit rl = { 16 * KT_PAGE, 16 * KT_PAGE };
	const uint64_t largest = (uint64_t)(0x7fffffff / 8) * KT_PAGE;
	void *at = (void *)(1ULL << 40);
	struct kt_tracee t;
	int fd;

	(void)arg;
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(kt_become_user() == 0);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_tracee_start(&t, 0, 1) == 0);
	KT_CHECK(kt_attach(fd, t.pid, at, largest) == -ENOMEM);
	KT_CHECK(kt_attach(fd, t.pid, at, 128ULL << 30) == -ENOMEM);
	KT_CHECK(kt_pinned() == 0);
	kt_tracee_kill(&t);
	close(fd);
	return 0;
}

TEST(memlock, huge_request_refused_before_any_allocation)
{
	int before = kt_klog_count("vmalloc error");

	ASSERT_GE(before, 0);
	EXPECT_EQ(kt_in_child(huge_requests, NULL), 0);
	EXPECT_EQ(kt_klog_count("vmalloc error"), before);
	EXPECT_EQ(kt_klog_count("Out of memory"), 0);
}

/* An mlock()ed buffer stays in VmLck once; the charge shows in VmPin. */
TEST(memlock, mlocked_buffer_charged_once)
{
	uint8_t *p = kt_map(4 * KT_PAGE);
	long lck0 = kt_vmlck_kb(), pin0 = kt_vmpin_kb();
	struct kt_tracee t;
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(mlock(p, 4 * KT_PAGE), 0);
	EXPECT_EQ(kt_vmlck_kb(), lck0 + 16);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, p, 4 * KT_PAGE), 0);
	EXPECT_EQ(kt_vmlck_kb(), lck0 + 16);
	EXPECT_EQ(kt_vmpin_kb(), pin0 + 16);
	EXPECT_EQ(kt_detach(fd, t.pid), 0);
	EXPECT_EQ(kt_vmlck_kb(), lck0 + 16);
	EXPECT_EQ(kt_vmpin_kb(), pin0);
	kt_tracee_kill(&t);
	close(fd);
	munlock(p, 4 * KT_PAGE);
	kt_unmap(p, 4 * KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}
