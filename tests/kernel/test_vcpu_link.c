// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts and kmod-pebs record no longer than the ptrace link, also while
 * the thread runs on another CPU, where no slice of its ends by itself: a
 * busy thread alone on vCPU 1, its tracer on vCPU 0.  The moment the link
 * ends (PTRACE_DETACH, the tracer's exit, the tracer's exec) the stream
 * ends with the final GAP marker (disabled) and the CPU stores no further
 * record into the tracer's pages, although the thread runs on.
 *
 * The buffers are shared memory, so that the test sees them after the
 * tracer is gone: they are zeroed once the link ended, and must stay zero
 * while the thread makes progress (a counter in shared memory too).
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
#include "kt_hw.h"
#include "kt_step.h"

#define SIZE	(16 * KT_PAGE)
#define SIZE2	(16 * KT_PAGE)	/* kmod-pebs's PEBS region */
#define REC	sizeof(struct ptbts_record)
#define NSLOTS	(SIZE / REC)

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

struct link_test {
	void *buf;
	void *buf2;	/* kmod-pebs's second region */
	uint32_t source;
	int fd;
	int watchdog;	/* the NMI watchdog was on */
};

/*
 * The busy thread started, @lt's source attached into @lt's buffers by the
 * caller, resumed, and seen to record (10 s at most).  Its pid, or -errno.
 */
static pid_t start_recording(int fd, const struct link_test *lt)
{
	struct ptbts_config c;
	struct ptbts_status st;
	pid_t pid = kt_seq_start(busy_child, 0);
	int i;

	if (pid < 0)
		return pid;
	c = kt_step_config(pid, lt->buf, SIZE, PTBTS_MODE_RING, 0);
	c.source = lt->source;
	if (lt->source == PTBTS_SOURCE_KMOD_PEBS) {
		c.buffer2 = (uintptr_t)lt->buf2;
		c.buffer2_size = SIZE2;
	}
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

/* The slot of the one marker of the ring at @r, or -1 if not just one. */
static long only_marker(const struct ptbts_record *r)
{
	long i, at = -1;

	for (i = 0; i < (long)NSLOTS; i++) {
		if (!PTBTS_KIND(r[i].flags))
			continue;
		if (at >= 0)
			return -1;
		at = i;
	}
	return at;
}

/*
 * The link ended: the stream ends with the final marker, a GAP (disabled),
 * the only marker in the ring, right after the entry into the kernel that
 * took the thread out of user mode last (the interrupt that ended its
 * slice, or the one that stopped it).  Its slot, or -1.
 */
static long expect_final_gap(const void *buf)
{
	const struct ptbts_record *r = buf, *prev;
	long at = only_marker(r);

	EXPECT_GE(at, 0);
	if (at < 0)
		return -1;
	EXPECT_EQ(r[at].from, 0ull);
	EXPECT_EQ(r[at].to, (unsigned long long)PTBTS_GAP_DISABLED);
	EXPECT_EQ(PTBTS_KIND(r[at].flags), (uint32_t)PTBTS_KIND_GAP);
	prev = &r[(at + NSLOTS - 1) % NSLOTS];
	EXPECT_EQ(PTBTS_KIND(prev->flags), (uint32_t)PTBTS_KIND_BRANCH);
	EXPECT_FALSE(kt_kernel_addr(prev->from));
	EXPECT_TRUE(kt_kernel_addr(prev->to));
	return at;
}

/*
 * The link ended: from now on the buffers stay as the caller leaves them,
 * zeroed, while the thread runs on (a million more calls, or 5 s).
 */
static void expect_no_more_records(struct link_test *lt)
{
	unsigned long from;
	int i;

	memset(lt->buf, 0, SIZE);
	if (lt->buf2)
		memset(lt->buf2, 0, SIZE2);
	from = *progress;
	for (i = 0; i < 500 && *progress - from < 1000000; i++)
		sleep_ms(10);
	EXPECT_GT(*progress - from, 0ul);
	EXPECT_TRUE(all_zero(lt->buf, SIZE));
	if (lt->buf2)
		EXPECT_TRUE(all_zero(lt->buf2, SIZE2));
}

static void kill_and_reap(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
}

/* kmod-pebs needs the counters that the NMI watchdog holds: off for it. */
static void link_test_init(struct link_test *lt, uint32_t source)
{
	memset(lt, 0, sizeof(*lt));
	lt->source = source;
	lt->buf = shared_map(SIZE);
	progress = shared_map(KT_PAGE);
	lt->fd = kt_open();
	ASSERT_TRUE(lt->buf != NULL && progress != NULL);
	ASSERT_GE(lt->fd, 0);
	if (source == PTBTS_SOURCE_KMOD_PEBS) {
		lt->buf2 = shared_map(SIZE2);
		ASSERT_TRUE(lt->buf2 != NULL);
		lt->watchdog = kt_watchdog_set("0");
		ASSERT_GE(lt->watchdog, 0);
	}
	ASSERT_EQ(pin_to(0), 0);
}

static void link_test_end(struct link_test *lt)
{
	cpu_set_t all;

	close(lt->fd);
	munmap(lt->buf, SIZE);
	if (lt->buf2)
		munmap(lt->buf2, SIZE2);
	if (lt->watchdog > 0)
		kt_watchdog_set("1");
	munmap((void *)progress, KT_PAGE);
	CPU_ZERO(&all);
	CPU_SET(0, &all);
	CPU_SET(1, &all);
	sched_setaffinity(0, sizeof(all), &all);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * PTRACE_DETACH from a stop: the thread runs on, detached; STATUS says so,
 * the final marker is the last record it counts (written by the thread's
 * next slice or by this STATUS, whichever noticed first), and neither the
 * position nor the wrap counter moves any more.
 */
static void ptrace_detach_ends(uint32_t source)
{
	struct ptbts_status st, later;
	struct link_test lt;
	pid_t pid;
	int ws;

	link_test_init(&lt, source);
	pid = start_recording(lt.fd, &lt);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(kill(pid, SIGSTOP), 0);
	ASSERT_EQ(waitpid(pid, &ws, 0), pid);
	ASSERT_TRUE(WIFSTOPPED(ws));
	ASSERT_EQ(ptrace(PTRACE_DETACH, pid, 0, 0), 0);
	ASSERT_EQ(kt_status(lt.fd, pid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_DETACHED);
	EXPECT_EQ(st.lost, 0ull);
	EXPECT_EQ(expect_final_gap(lt.buf),
		  (long)((kt_count(&st, SIZE) - 1) % NSLOTS));
	expect_no_more_records(&lt);
	ASSERT_EQ(kt_status(lt.fd, pid, &later), 0);
	EXPECT_EQ(later.head, st.head);
	EXPECT_EQ(later.wraps, st.wraps);
	EXPECT_EQ(later.head2, st.head2);
	EXPECT_EQ(later.wraps2, st.wraps2);
	kill_and_reap(pid);
	link_test_end(&lt);
}

KT_GUARDED_TEST(vcpu, kmod_bts_no_record_after_ptrace_detach)
{
	ptrace_detach_ends(PTBTS_SOURCE_KMOD_BTS);
}

KT_GUARDED_TEST(vcpu, kmod_pebs_no_record_after_ptrace_detach)
{
	ptrace_detach_ends(PTBTS_SOURCE_KMOD_PEBS);
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
	pid = start_recording(fd, lt);
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

static void tracer_ends_link(uint32_t source, bool exec)
{
	struct link_test lt;
	int p[2], ws;
	pid_t tracer, pid = 0;
	char c;

	link_test_init(&lt, source);
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
	expect_final_gap(lt.buf);
	expect_no_more_records(&lt);
	if (exec)
		kill_and_reap(tracer);
	kill_and_reap(pid);
	close(p[0]);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	link_test_end(&lt);
}

KT_GUARDED_TEST(vcpu, kmod_bts_no_record_after_tracer_exit)
{
	tracer_ends_link(PTBTS_SOURCE_KMOD_BTS, false);
}

KT_GUARDED_TEST(vcpu, kmod_bts_no_record_after_tracer_exec)
{
	tracer_ends_link(PTBTS_SOURCE_KMOD_BTS, true);
}

KT_GUARDED_TEST(vcpu, kmod_pebs_no_record_after_tracer_exit)
{
	tracer_ends_link(PTBTS_SOURCE_KMOD_PEBS, false);
}

KT_GUARDED_TEST(vcpu, kmod_pebs_no_record_after_tracer_exec)
{
	tracer_ends_link(PTBTS_SOURCE_KMOD_PEBS, true);
}
