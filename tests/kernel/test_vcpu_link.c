// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts records no longer than the ptrace link, also while the thread
 * runs on another CPU, where no slice of its ends by itself: a busy thread
 * alone on vCPU 1, its tracer on vCPU 0.  The moment the link ends
 * (PTRACE_DETACH, the tracer's exit, the tracer's exec) the CPU stores no
 * further record into the tracer's pages, although the thread runs on.
 *
 * The buffer is shared memory, so that the test sees it after the tracer
 * is gone: it is zeroed once the link ended, and must stay zero while the
 * thread makes progress (a counter in shared memory too).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

#define SIZE	(16 * KT_PAGE)
#define REC	sizeof(struct ptbts_record)

/* Shared with the thread: its progress. */
static volatile unsigned long *progress;

static void bump(void)
{
	(*progress)++;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * On vCPU 1, a call and a return per iteration, forever.  SCHED_FIFO, so
 * that no ordinary task there (a kworker, the load balancer's) ends its
 * slice: only RT throttling does, for 50 ms each second.  Without it such
 * switches come every few milliseconds and would end a recording that
 * outlived its link soon enough to hide it.
 */
static void busy_child(long arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	void (*volatile fn)(void) = bump;

	(void)arg;
	if (pin_to(1) || sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(95);
	raise(SIGSTOP);
	for (;;)
		fn();
}

static void *shared_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * The busy thread started, kmod-bts attached into @buf by the caller,
 * resumed, and seen to record (10 s at most).  Its pid, or -errno.
 */
static pid_t start_recording(int fd, void *buf)
{
	struct ptbts_config c;
	struct ptbts_status st;
	pid_t pid = kt_seq_start(busy_child, 0);
	int i;

	if (pid < 0)
		return pid;
	c = kt_step_config(pid, buf, SIZE, PTBTS_MODE_RING, 0);
	c.source = PTBTS_SOURCE_KMOD_BTS;
	if (kt_ioctl(fd, PTBTS_IOC_ATTACH, &c) || ptrace(PTRACE_CONT, pid, 0, 0))
		return -EIO;
	for (i = 0; i < 1000; i++) {
		if (kt_status(fd, pid, &st))
			return -EIO;
		if (kt_count(&st, SIZE) > 1000)
			return pid;
		sleep_ms(10);
	}
	return -ETIMEDOUT;
}

static bool all_zero(const void *p, size_t size)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < size; i++)
		if (c[i])
			return false;
	return true;
}

/*
 * The link ended: from now on the buffer stays as the caller leaves it,
 * zeroed, while the thread runs on (a million more calls, or 5 s).
 */
static void expect_no_more_records(void *buf)
{
	unsigned long from;
	int i;

	memset(buf, 0, SIZE);
	from = *progress;
	for (i = 0; i < 500 && *progress - from < 1000000; i++)
		sleep_ms(10);
	EXPECT_GT(*progress - from, 0ul);
	EXPECT_TRUE(all_zero(buf, SIZE));
}

static void kill_and_reap(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
}

struct link_test {
	void *buf;
	int fd;
};

static void link_test_init(struct link_test *lt)
{
	lt->buf = shared_map(SIZE);
	progress = shared_map(KT_PAGE);
	lt->fd = kt_open();
	ASSERT_TRUE(lt->buf != NULL && progress != NULL);
	ASSERT_GE(lt->fd, 0);
	ASSERT_EQ(pin_to(0), 0);
}

static void link_test_end(struct link_test *lt)
{
	cpu_set_t all;

	close(lt->fd);
	munmap(lt->buf, SIZE);
	munmap((void *)progress, KT_PAGE);
	CPU_ZERO(&all);
	CPU_SET(0, &all);
	CPU_SET(1, &all);
	sched_setaffinity(0, sizeof(all), &all);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * PTRACE_DETACH from a stop: the thread runs on, detached; STATUS says so,
 * and neither the position nor the wrap counter moves any more.
 */
KT_GUARDED_TEST(vcpu, kmod_bts_no_record_after_ptrace_detach)
{
	struct ptbts_status st, later;
	struct link_test lt;
	pid_t pid;
	int ws;

	link_test_init(&lt);
	pid = start_recording(lt.fd, lt.buf);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(kill(pid, SIGSTOP), 0);
	ASSERT_EQ(waitpid(pid, &ws, 0), pid);
	ASSERT_TRUE(WIFSTOPPED(ws));
	ASSERT_EQ(ptrace(PTRACE_DETACH, pid, 0, 0), 0);
	ASSERT_EQ(kt_status(lt.fd, pid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_DETACHED);
	expect_no_more_records(lt.buf);
	ASSERT_EQ(kt_status(lt.fd, pid, &later), 0);
	EXPECT_EQ(later.head, st.head);
	EXPECT_EQ(later.wraps, st.wraps);
	kill_and_reap(pid);
	link_test_end(&lt);
}

/*
 * A tracer with its own session that records the busy thread into @lt's
 * shared buffer, tells the test its pid through @to_test, then ends the
 * link: by exiting, or (@exec) by exec'ing a shell that says "x" once the
 * exec is over and sleeps.
 */
static int trace_then_end(struct link_test *lt, int to_test, bool exec)
{
	int fd = kt_open();
	pid_t pid;

	KT_CHECK(fd >= 0);
	pid = start_recording(fd, lt->buf);
	KT_CHECK(pid > 0);
	KT_CHECK(write(to_test, &pid, sizeof(pid)) == sizeof(pid));
	if (!exec)
		return 0;
	/* The session's fd stays open in the new image. */
	KT_CHECK(fcntl(fd, F_SETFD, 0) == 0);
	KT_CHECK(dup2(to_test, 3) == 3);
	execl("/bin/busybox", "sh", "-c", "echo x >&3; exec sleep 30",
	      (char *)NULL);
	return 99;
}

static void tracer_ends_link(bool exec)
{
	struct link_test lt;
	int p[2], ws;
	pid_t tracer, pid = 0;
	char c;

	link_test_init(&lt);
	/* Orphans come back to us, so that the thread can be reaped. */
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ASSERT_EQ(pipe(p), 0);
	tracer = fork();
	ASSERT_GE(tracer, 0);
	if (!tracer) {
		close(p[0]);
		_exit(trace_then_end(&lt, p[1], exec));
	}
	close(p[1]);
	ASSERT_EQ(read(p[0], &pid, sizeof(pid)), (ssize_t)sizeof(pid));
	if (exec) {
		ASSERT_EQ(read(p[0], &c, 1), 1);
	} else {
		ASSERT_EQ(waitpid(tracer, &ws, 0), tracer);
		EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	}
	expect_no_more_records(lt.buf);
	if (exec)
		kill_and_reap(tracer);
	kill_and_reap(pid);
	close(p[0]);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	link_test_end(&lt);
}

KT_GUARDED_TEST(vcpu, kmod_bts_no_record_after_tracer_exit)
{
	tracer_ends_link(false);
}

KT_GUARDED_TEST(vcpu, kmod_bts_no_record_after_tracer_exec)
{
	tracer_ends_link(true);
}
