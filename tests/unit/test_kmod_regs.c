// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bts_thread_getregs(): the trap flag a kmod source keeps set in a thread's
 * registers is masked in what libbts reports (kmod-step's register
 * reader); every other value is the thread's, and the other sources'
 * readers show the flag as it is.  The module's flag is stood in for by one set with
 * PTRACE_SETREGS, which ptrace then shows as the module's is shown.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/session.h"
#include "sources/kmod/kmod.h"
#include "sources/sources.h"
#include "harness.h"

#define TF 0x100ull

/* A child in a ptrace stop, its trap flag set. */
static pid_t stopped_with_tf(void)
{
	struct user_regs_struct r;
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	r.eflags |= TF;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r))
		return -1;
	return pid;
}

TEST(kmod_regs, trap_flag_masked_for_kmod_threads)
{
	struct bts_session s = { .ops = &bts_kmod_step_ops };
	struct bts_kmod_thread k = { .attached = true };
	struct user_regs_struct raw, got;
	struct bts_thread t;
	pid_t pid = stopped_with_tf();

	ASSERT_GT(pid, 0);
	memset(&t, 0, sizeof(t));
	t.tid = pid;
	t.src = &k;
	ASSERT_EQ(ptrace(PTRACE_GETREGS, pid, 0, &raw), 0);
	EXPECT_EQ(raw.eflags & TF, TF);
	ASSERT_EQ(bts_thread_getregs(&s, &t, &got), 0);
	EXPECT_EQ(got.eflags & TF, 0ull);
	got.eflags |= TF;
	EXPECT_EQ(memcmp(&got, &raw, sizeof(raw)), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* kmod-step's reader of a thread not attached, and the other sources'. */
TEST(kmod_regs, trap_flag_kept_without_kmod)
{
	static const struct bts_source_ops *const ops[] = {
		&bts_kmod_step_ops, &bts_ptrace_step_ops, &bts_perf_bts_ops,
	};
	struct user_regs_struct got;
	struct bts_thread t;
	pid_t pid = stopped_with_tf();

	ASSERT_GT(pid, 0);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct bts_session s = { .ops = ops[i] };

		memset(&t, 0, sizeof(t));
		t.tid = pid;
		ASSERT_EQ(bts_thread_getregs(&s, &t, &got), 0);
		EXPECT_EQ(got.eflags & TF, TF);
		t.tid = 0x7ffffff0;
		EXPECT_EQ(bts_thread_getregs(&s, &t, &got), -ESRCH);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
