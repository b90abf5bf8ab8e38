// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts on the virtual CPU: an unload while a recorded thread sits in
 * a ptrace stop with its preempt notifier registered is refused (the
 * thread's state holds the module), and the thread runs on safely.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

static int unload(void)
{
	return syscall(SYS_delete_module, "ptrace_bts", O_NONBLOCK) ? errno : 0;
}

KT_GUARDED_TEST(vcpu, kmod_bts_unload_refused_in_ptrace_stop)
{
	struct kt_run r;
	int st, ko, err = EAGAIN, i;

	ASSERT_EQ(kt_run_start_source(&r, kt_seq_loop, 3000000, KT_PAGE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	/* Resumed once: its notifier is registered; then stopped again. */
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	usleep(20000);
	ASSERT_EQ(kill(r.pid, SIGSTOP), 0);
	ASSERT_EQ(waitpid(r.pid, &st, 0), r.pid);
	ASSERT_TRUE(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	/* The session ends; the stopped thread's state still holds it. */
	close(r.fd);
	r.fd = -1;
	EXPECT_EQ(unload(), EAGAIN);
	EXPECT_EQ(access("/dev/ptrace_bts", F_OK), 0);
	/* The thread resumes fine and ends; then the unload goes through. */
	ASSERT_EQ(kt_seq_finish(r.pid), 0);
	for (i = 0; i < 5000 && err == EAGAIN; i++) {
		err = unload();
		if (err == EAGAIN)
			usleep(2000);
	}
	EXPECT_EQ(err, 0);
	ko = open("/ptrace_bts.ko", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(ko, 0);
	EXPECT_EQ(syscall(SYS_finit_module, ko, "", 0), 0);
	close(ko);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}
