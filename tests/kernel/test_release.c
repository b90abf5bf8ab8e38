// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Release on every path: detach, fd close, tracee exit, tracer exit.  Each
 * leaves the module's pinned-page counter at zero and, for a tracer that
 * survives, its VmPin where it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define BUF_SIZE (4 * KT_PAGE)

static long status_state(int fd, pid_t tid)
{
	struct ptbts_status s;
	long r;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.tid = tid;
	r = kt_ioctl(fd, PTBTS_IOC_STATUS, &s);
	return r ? r : (long)s.state;
}

TEST(release, thousand_attach_detach_cycles)
{
	void *buf = kt_map(BUF_SIZE);
	long vmpin = kt_vmpin_kb();
	struct kt_tracee t;
	int fd = kt_open(), i, bad = 0;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	for (i = 0; i < 1000; i++) {
		if (kt_attach(fd, t.pid, buf, BUF_SIZE) != 0 ||
		    kt_detach(fd, t.pid) != 0)
			bad++;
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_vmpin_kb(), vmpin);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

TEST(release, close_with_threads_attached)
{
	long vmpin = kt_vmpin_kb();
	struct kt_tracee t;
	void *buf[4];
	int fd = kt_open(), i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 3, 1), 0);
	for (i = 0; i < 4; i++) {
		buf[i] = kt_map(BUF_SIZE);
		ASSERT_EQ(kt_attach(fd, t.tids[i], buf[i], BUF_SIZE), 0);
	}
	EXPECT_EQ(kt_pinned(), 16);
	EXPECT_EQ(kt_vmpin_kb(), vmpin + 64);
	close(fd);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_vmpin_kb(), vmpin);
	/* The tracees are still ours and still stopped. */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(ptrace(PTRACE_CONT, t.tids[i], 0, 0), 0);
	kt_tracee_kill(&t);
	for (i = 0; i < 4; i++)
		kt_unmap(buf[i], BUF_SIZE);
}

TEST(release, tracee_killed_while_attached)
{
	long vmpin = kt_vmpin_kb();
	void *buf = kt_map(BUF_SIZE), *buf2 = kt_map(BUF_SIZE);
	struct kt_tracee t;
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 1, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);
	ASSERT_EQ(kt_attach(fd, t.tids[1], buf2, BUF_SIZE), 0);
	EXPECT_EQ(kt_pinned(), 8);
	kt_tracee_kill(&t);
	/* The fd is still open: the exits alone released the pages. */
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_vmpin_kb(), vmpin);
	EXPECT_EQ(status_state(fd, t.tids[0]), PTBTS_STATE_EXITED);
	EXPECT_EQ(status_state(fd, t.tids[1]), PTBTS_STATE_EXITED);
	EXPECT_EQ(kt_detach(fd, t.tids[1]), 0);
	close(fd);
	EXPECT_EQ(kt_pinned(), 0);
	kt_unmap(buf, BUF_SIZE);
	kt_unmap(buf2, BUF_SIZE);
}

/* A thread of the tracee exits on its own; the rest stays attached. */
static void *exit_soon(void *arg)
{
	(void)arg;
	return NULL;
}

TEST(release, tracee_thread_exits_on_its_own)
{
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open(), st;
	unsigned long msg;
	pthread_t th;
	pid_t pid, tid;

	ASSERT_GE(fd, 0);
	/* A child whose one thread we attach, then let run to its end. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		raise(SIGSTOP);
		pthread_create(&th, NULL, exit_soon, NULL);
		pthread_join(th, NULL);
		for (;;)
			pause();
	}
	ASSERT_EQ(waitpid(pid, &st, WUNTRACED), pid);
	ASSERT_EQ(ptrace(PTRACE_SEIZE, pid, 0,
			 PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT), 0);
	ASSERT_EQ(kill(pid, SIGCONT), 0);
	/* The clone event: the new thread's id. */
	for (;;) {
		ASSERT_EQ(waitpid(pid, &st, __WALL), pid);
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_CLONE << 8)))
			break;
		ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	}
	ASSERT_EQ(ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg), 0);
	tid = (pid_t)msg;
	/* The new thread starts in a ptrace stop. */
	ASSERT_EQ(waitpid(tid, &st, __WALL), tid);
	ASSERT_EQ(kt_attach(fd, tid, buf, BUF_SIZE), 0);
	EXPECT_EQ(kt_pinned(), 4);
	ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, tid, 0, 0), 0);
	/* Its exit stop, then its end. */
	ASSERT_EQ(waitpid(tid, &st, __WALL), tid);
	ASSERT_EQ(ptrace(PTRACE_CONT, tid, 0, 0), 0);
	ASSERT_EQ(waitpid(tid, &st, __WALL), tid);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(status_state(fd, tid), PTBTS_STATE_EXITED);
	kt_reap(pid);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

/* The tracer process exits without closing anything. */
static int trace_and_exit(void *arg)
{
	pid_t *out = arg;
	void *buf = kt_map(BUF_SIZE);
	struct kt_tracee t;
	int fd = kt_open();

	KT_CHECK(fd >= 0);
	KT_CHECK(kt_tracee_start(&t, 0, 1) == 0);
	KT_CHECK(kt_attach(fd, t.pid, buf, BUF_SIZE) == 0);
	KT_CHECK(kt_pinned() == 4);
	*out = t.pid;
	return -(int)t.pid;	/* the tracee lives on; the caller reaps it */
}

TEST(release, tracer_process_exits_while_attached)
{
	pid_t tracee = 0;
	int r, st;

	/* Orphans come back to us, so that the tracee can be reaped. */
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	r = kt_in_child(trace_and_exit, &tracee);
	ASSERT_LT(r, 0);
	EXPECT_EQ(kt_pinned(), 0);
	tracee = -r;
	kill(tracee, SIGKILL);
	EXPECT_EQ(waitpid(tracee, &st, __WALL), tracee);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

/*
 * The tracer is one thread of a process that lives on, and so does the
 * session fd: the tracer thread's exit alone releases the buffer.
 */
struct tracer_thread {
	int fd;
	void *buf;
	struct kt_tracee t;
	long r;
	pid_t tid;
};

static void *tracer_thread(void *arg)
{
	struct tracer_thread *tt = arg;

	tt->tid = gettid();
	tt->r = kt_tracee_start(&tt->t, 0, 1);
	if (!tt->r)
		tt->r = kt_attach(tt->fd, tt->t.pid, tt->buf, BUF_SIZE);
	if (!tt->r && kt_pinned() != 4)
		tt->r = -1000;
	return NULL;
}

TEST(release, tracer_thread_exits_while_attached)
{
	struct tracer_thread tt;
	long vmpin = kt_vmpin_kb();
	pthread_t th;
	int st;

	memset(&tt, 0, sizeof(tt));
	tt.fd = kt_open();
	tt.buf = kt_map(BUF_SIZE);
	ASSERT_GE(tt.fd, 0);
	ASSERT_EQ(pthread_create(&th, NULL, tracer_thread, &tt), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(tt.r, 0);
	/*
	 * pthread_join() returns before the thread's exit is over; its
	 * /proc entry goes only after the exit hooks ran.
	 */
	EXPECT_TRUE(kt_thread_gone(tt.tid));
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_vmpin_kb(), vmpin);
	EXPECT_EQ(status_state(tt.fd, tt.t.pid), PTBTS_STATE_DETACHED);
	EXPECT_EQ(kt_detach(tt.fd, tt.t.pid), 0);
	close(tt.fd);
	kill(tt.t.pid, SIGKILL);
	EXPECT_EQ(waitpid(tt.t.pid, &st, __WALL), tt.t.pid);
	kt_unmap(tt.buf, BUF_SIZE);
}

/* A tid that exited and was listed as EXITED can be attached anew. */
TEST(release, exited_entry_gives_way)
{
	void *buf = kt_map(BUF_SIZE);
	struct kt_tracee t;
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);
	kt_tracee_kill(&t);
	EXPECT_EQ(status_state(fd, t.tids[0]), PTBTS_STATE_EXITED);
	/* The id is free; attaching it again is -ESRCH, not -EEXIST. */
	EXPECT_EQ(kt_attach(fd, t.tids[0], buf, BUF_SIZE), -ESRCH);
	EXPECT_EQ(status_state(fd, t.tids[0]), -ESRCH);
	EXPECT_EQ(kt_pinned(), 0);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

/* Detaches through the session once the main thread waits. */
struct detach_later {
	int fd;
	pid_t tid;
	long r;
};

static void *detach_later(void *arg)
{
	struct detach_later *d = arg;
	struct timespec ts = { 0, 200 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	d->r = kt_detach(d->fd, d->tid);
	return NULL;
}

/* A WAIT that a DETACH ends returns the thread as DETACHED. */
TEST(release, wait_ended_by_detach_says_detached)
{
	struct detach_later d = { 0 };
	void *buf = kt_map(BUF_SIZE);
	struct ptbts_status st;
	struct kt_tracee t;
	pthread_t th;

	d.fd = kt_open();
	ASSERT_GE(d.fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	d.tid = t.pid;
	ASSERT_EQ(kt_attach(d.fd, t.pid, buf, BUF_SIZE), 0);
	/* It sleeps and records nothing: WAIT has nothing to return for. */
	ASSERT_EQ(ptrace(PTRACE_CONT, t.pid, 0, 0), 0);
	ASSERT_EQ(pthread_create(&th, NULL, detach_later, &d), 0);
	EXPECT_EQ(kt_wait(d.fd, t.pid, PTBTS_WAIT_FOREVER, &st), 0);
	EXPECT_EQ(st.state, (uint32_t)PTBTS_STATE_DETACHED);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	EXPECT_EQ(d.r, 0);
	EXPECT_EQ(kt_pinned(), 0);
	kt_tracee_kill(&t);
	close(d.fd);
	kt_unmap(buf, BUF_SIZE);
}

/* A tracee that runs branches until it is killed. */
static volatile unsigned long spin_sink;

static void spin_leaf(void)
{
	spin_sink++;
}

static void spin_child(long arg)
{
	void (*volatile fn)(void) = spin_leaf;

	(void)arg;
	raise(SIGSTOP);
	for (;;)
		fn();
}

/*
 * The tracer attaches a running program, then exec's with the session
 * still open: its old image's buffer is no longer anyone's to read, and
 * the recording ends, although the ptrace link itself survives the exec.
 */
static int attach_then_exec(int to_test, int from_test)
{
	struct kt_run r;
	char c;

	KT_CHECK(kt_run_start(&r, spin_child, 0, 16 * KT_PAGE,
			      PTBTS_MODE_RING, 0) == 0);
	KT_CHECK(ptrace(PTRACE_CONT, r.pid, 0, 0) == 0);
	KT_CHECK(write(to_test, &r.pid, sizeof(r.pid)) == sizeof(r.pid));
	KT_CHECK(read(from_test, &c, 1) == 1);
	/* The session's fd stays open in the new image. */
	KT_CHECK(fcntl(r.fd, F_SETFD, 0) == 0);
	execl("/bin/busybox", "sleep", "30", (char *)NULL);
	return 99;
}

TEST(release, tracer_exec_ends_recording)
{
	int to_test[2], to_tracer[2], i, st;
	pid_t tracer, tracee = 0;
	long pinned = -1;

	/* Orphans come back to us, so that the tracee can be reaped. */
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ASSERT_EQ(pipe(to_test), 0);
	ASSERT_EQ(pipe(to_tracer), 0);
	tracer = fork();
	ASSERT_GE(tracer, 0);
	if (!tracer)
		_exit(attach_then_exec(to_test[1], to_tracer[0]));
	ASSERT_EQ(read(to_test[0], &tracee, sizeof(tracee)),
		  (ssize_t)sizeof(tracee));
	EXPECT_EQ(kt_pinned(), 16);
	/* Now the tracer exec's; the tracee records on until it sees it. */
	ASSERT_EQ(write(to_tracer[1], "x", 1), 1);
	for (i = 0; i < 100 && pinned; i++) {
		usleep(50 * 1000);
		pinned = kt_pinned();
	}
	EXPECT_EQ(pinned, 0);
	kill(tracer, SIGKILL);
	kt_reap(tracer);
	kill(tracee, SIGKILL);
	EXPECT_EQ(waitpid(tracee, &st, __WALL), tracee);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	close(to_test[0]);
	close(to_test[1]);
	close(to_tracer[0]);
	close(to_tracer[1]);
}
