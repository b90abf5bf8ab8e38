// SPDX-License-Identifier: GPL-2.0-or-later
/* ATTACH, DETACH and STATUS: who may attach what, and what STATUS says. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"

#define BUF_SIZE (4 * KT_PAGE)

TEST(attach, tracer_attaches_and_detaches)
{
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	EXPECT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);
	EXPECT_EQ(kt_pinned(), 4);
	EXPECT_EQ(kt_detach(fd, t.pid), 0);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_detach(fd, t.pid), -ESRCH);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

TEST(attach, no_such_thread_is_esrch)
{
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(kt_attach(fd, 0, buf, BUF_SIZE), -ESRCH);
	EXPECT_EQ(kt_attach(fd, 4194304 + 1, buf, BUF_SIZE), -ESRCH);
	EXPECT_EQ(kt_attach(fd, -1, buf, BUF_SIZE), -ESRCH);
	EXPECT_EQ(kt_detach(fd, 12345), -ESRCH);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

/* Stopped, but by SIGSTOP: nobody traces it. */
TEST(attach, untraced_thread_is_eperm)
{
	void *buf = kt_map(BUF_SIZE);
	pid_t pid = kt_stopped_child();
	int fd = kt_open();

	ASSERT_GT(pid, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(kt_attach(fd, pid, buf, BUF_SIZE), -EPERM);
	EXPECT_EQ(kt_attach(fd, getpid(), buf, BUF_SIZE), -EPERM);
	EXPECT_EQ(kt_pinned(), 0);
	kt_reap(pid);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

/* Traced and stopped, but by another process. */
static int attach_others_tracee(void *arg)
{
	pid_t tid = *(pid_t *)arg;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open();

	KT_CHECK(fd >= 0);
	KT_CHECK(kt_attach(fd, tid, buf, BUF_SIZE) == -EPERM);
	return 0;
}

TEST(attach, other_tracers_thread_is_eperm)
{
	struct kt_tracee t;

	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	EXPECT_EQ(kt_in_child(attach_others_tracee, &t.pid), 0);
	kt_tracee_kill(&t);
}

/* The same, as an unprivileged user: no capability changes the answer. */
static int attach_others_tracee_as_user(void *arg)
{
	KT_CHECK(kt_become_user() == 0);
	return attach_others_tracee(arg);
}

TEST(attach, other_tracers_thread_is_eperm_as_user)
{
	struct kt_tracee t;

	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	EXPECT_EQ(kt_in_child(attach_others_tracee_as_user, &t.pid), 0);
	kt_tracee_kill(&t);
}

/* An unprivileged tracer attaches its own tracee. */
static int attach_as_user(void *arg)
{
	struct kt_tracee t;
	void *buf;
	int fd;

	(void)arg;
	KT_CHECK(kt_become_user() == 0);
	buf = kt_map(BUF_SIZE);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_tracee_start(&t, 0, 1) == 0);
	KT_CHECK(kt_attach(fd, t.pid, buf, BUF_SIZE) == 0);
	KT_CHECK(kt_vmpin_kb() == BUF_SIZE / 1024);
	KT_CHECK(kt_detach(fd, t.pid) == 0);
	KT_CHECK(kt_vmpin_kb() == 0);
	kt_tracee_kill(&t);
	return 0;
}

TEST(attach, unprivileged_tracer)
{
	EXPECT_EQ(kt_in_child(attach_as_user, NULL), 0);
	EXPECT_EQ(kt_pinned(), 0);
}

TEST(attach, running_tracee_is_ebusy)
{
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 0), 0);
	EXPECT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), -EBUSY);
	EXPECT_EQ(kt_pinned(), 0);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

TEST(attach, twice_is_eexist)
{
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open(), fd2 = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);
	EXPECT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), -EEXIST);
	EXPECT_EQ(kt_attach(fd2, t.pid, buf, BUF_SIZE), -EEXIST);
	EXPECT_EQ(kt_pinned(), 4);
	EXPECT_EQ(kt_detach(fd, t.pid), 0);
	/* Free again: the other session may take it. */
	EXPECT_EQ(kt_attach(fd2, t.pid, buf, BUF_SIZE), 0);
	EXPECT_EQ(kt_detach(fd2, t.pid), 0);
	kt_tracee_kill(&t);
	close(fd);
	close(fd2);
	kt_unmap(buf, BUF_SIZE);
}

/* The tracer let the thread go through ptrace: another tracer may take it. */
static int seize_and_attach(void *arg)
{
	pid_t tid = *(pid_t *)arg;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open(), st;

	KT_CHECK(fd >= 0);
	KT_CHECK(ptrace(PTRACE_SEIZE, tid, 0, 0) == 0);
	KT_CHECK(ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0);
	KT_CHECK(waitpid(tid, &st, __WALL) == tid);
	KT_CHECK(kt_attach(fd, tid, buf, BUF_SIZE) == 0);
	KT_CHECK(kt_pinned() == 4);
	return 0;
}

TEST(attach, ptrace_detach_frees_the_thread)
{
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open();
	struct ptbts_status s;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);
	ASSERT_EQ(ptrace(PTRACE_DETACH, t.pid, 0, 0), 0);
	EXPECT_EQ(kt_in_child(seize_and_attach, &t.pid), 0);
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.tid = t.pid;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, &s), 0);
	EXPECT_EQ(s.state, (unsigned)PTBTS_STATE_DETACHED);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_detach(fd, t.pid), 0);
	close(fd);
	kt_tracee_kill(&t);
	kt_unmap(buf, BUF_SIZE);
}

/* The fd is the tracer's: a child that inherited it can do nothing with it. */
static int use_inherited_fd(void *arg)
{
	int fd = *(int *)arg;
	struct ptbts_status s = { .size = sizeof(s), .tid = 1 };
	struct ptbts_caps c = { .size = sizeof(c) };
	struct ptbts_config cfg = kt_config(1, NULL, KT_PAGE);

	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_STATUS, &s) == -EPERM);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_ATTACH, &cfg) == -EPERM);
	KT_CHECK(kt_detach(fd, 1) == -EPERM);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_CAPS, &c) == 0);
	return 0;
}

TEST(attach, other_process_cannot_use_the_session)
{
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(kt_in_child(use_inherited_fd, &fd), 0);
	close(fd);
}

TEST(status, of_a_stopped_and_a_running_thread)
{
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE);
	struct ptbts_status s;
	int fd = kt_open();
	size_t i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);
	/* Output fields are not read; reserved ones must be zero. */
	memset(&s, 0xa5, sizeof(s));
	s.size = sizeof(s);
	s.tid = t.pid;
	memset(s.__reserved, 0, sizeof(s.__reserved));
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, &s), 0);
	EXPECT_EQ(s.size, (unsigned)sizeof(s));
	EXPECT_EQ(s.tid, (unsigned)t.pid);
	EXPECT_EQ(s.state, (unsigned)PTBTS_STATE_STOPPED);
	EXPECT_EQ(s.source, (unsigned)PTBTS_SOURCE_KMOD_STEP);
	EXPECT_EQ(s.head, 0ull);
	EXPECT_EQ(s.wraps, 0ull);
	EXPECT_EQ(s.lost, 0ull);
	EXPECT_EQ(s.head2, 0ull);
	EXPECT_EQ(s.wraps2, 0ull);
	EXPECT_EQ(s.timeout_ns, 0ull);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(s.__reserved[i], 0ull);

	ASSERT_EQ(ptrace(PTRACE_CONT, t.pid, 0, 0), 0);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, &s), 0);
	EXPECT_EQ(s.state, (unsigned)PTBTS_STATE_RUNNING);
	s.tid = t.pid + 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, &s), -ESRCH);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

TEST(status, size_rules)
{
	unsigned char raw[sizeof(struct ptbts_status) + 32];
	struct ptbts_status *s = (struct ptbts_status *)raw;
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open();
	size_t i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, BUF_SIZE), 0);

	/* A larger struct: its tail must be zero, and stays so. */
	memset(raw, 0xa5, sizeof(raw));
	s->size = sizeof(raw);
	s->tid = t.pid;
	memset(s->__reserved, 0, sizeof(s->__reserved));
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, s), -E2BIG);
	memset(raw + sizeof(struct ptbts_status), 0,
	       sizeof(raw) - sizeof(struct ptbts_status));
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, s), 0);
	EXPECT_EQ(s->size, (unsigned)sizeof(struct ptbts_status));
	for (i = sizeof(struct ptbts_status); i < sizeof(raw); i++)
		EXPECT_EQ(raw[i], 0);

	memset(raw, 0xa5, sizeof(raw));
	s->size = PTBTS_STATUS_SIZE_VER0;
	s->tid = t.pid;
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, s), 0);
	EXPECT_EQ(s->size, (unsigned)PTBTS_STATUS_SIZE_VER0);
	EXPECT_EQ(s->state, (unsigned)PTBTS_STATE_STOPPED);
	for (i = PTBTS_STATUS_SIZE_VER0; i < sizeof(raw); i++)
		EXPECT_EQ(raw[i], 0xa5);

	s->size = PTBTS_STATUS_SIZE_VER0 - 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, s), -EINVAL);
	s->size = KT_PAGE + 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, s), -E2BIG);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, NULL), -EFAULT);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}

/* One session holds every thread of a process. */
TEST(attach, many_threads_one_session)
{
	struct kt_tracee t;
	void *buf[3];
	struct ptbts_status s;
	int fd = kt_open(), i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 2, 1), 0);
	for (i = 0; i < 3; i++) {
		buf[i] = kt_map(BUF_SIZE);
		EXPECT_EQ(kt_attach(fd, t.tids[i], buf[i], BUF_SIZE), 0);
	}
	EXPECT_EQ(kt_pinned(), 12);
	for (i = 0; i < 3; i++) {
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.tid = t.tids[i];
		EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_STATUS, &s), 0);
		EXPECT_EQ(s.state, (unsigned)PTBTS_STATE_STOPPED);
	}
	EXPECT_EQ(kt_detach(fd, t.tids[1]), 0);
	EXPECT_EQ(kt_pinned(), 8);
	close(fd);
	EXPECT_EQ(kt_pinned(), 0);
	kt_tracee_kill(&t);
	for (i = 0; i < 3; i++)
		kt_unmap(buf[i], BUF_SIZE);
}

/*
 * A thread in its PTRACE_EVENT_EXIT stop is exiting (PF_EXITING comes
 * later): attaching it is -ESRCH, as for any exiting thread.
 */
TEST(attach, exit_stop_is_exiting)
{
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open(), st;
	pid_t pid;

	ASSERT_GE(fd, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		raise(SIGSTOP);
		_exit(3);
	}
	ASSERT_EQ(waitpid(pid, &st, WUNTRACED), pid);
	ASSERT_EQ(ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXIT), 0);
	ASSERT_EQ(kill(pid, SIGCONT), 0);
	for (;;) {
		ASSERT_EQ(waitpid(pid, &st, __WALL), pid);
		ASSERT_TRUE(WIFSTOPPED(st));
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
			break;
		ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	}
	EXPECT_EQ(kt_attach(fd, pid, buf, BUF_SIZE), -ESRCH);
	EXPECT_EQ(kt_pinned(), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	ASSERT_EQ(waitpid(pid, &st, __WALL), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
}
