// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-step and signal frames: a frame written while the thread was
 * stepped must never bring the module's trap flag back once the module let
 * the thread go (detach, tracer death, unload, a child forked in the
 * handler), and a frame written before the attachment must not end the
 * recording when the handler returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define BUF_SIZE	(16 * KT_PAGE)

/* What the tracee and its tracers share: a page mapped before the forks. */
struct handshake {
	volatile int in_handler;	/* the SIGUSR1 handler runs */
	volatile int go;		/* the handler may return */
	volatile int tracer_ready;	/* tracer_dies: the tracer is done */
	volatile pid_t tracee;
};

static struct handshake *hs;
static pid_t tracee_main;
static volatile int fork_result = -1;
static long child_mode;

enum { WAIT_IN_HANDLER, FORK_IN_HANDLER };

/* A few hundred taken branches, one per iteration. */
static __attribute__((noinline)) void spin(int n)
{
	volatile int i;

	for (i = 0; i < n; i++)
		;
}

/* The fork child returns from the handler; the parent notes how it ended. */
static void fork_in_handler(void)
{
	pid_t c = fork();
	int ws;

	if (!c)
		return;
	if (c < 0 || waitpid(c, &ws, 0) != c)
		fork_result = 98;
	else
		fork_result = WIFEXITED(ws) ? WEXITSTATUS(ws) :
			      100 + WTERMSIG(ws);
}

static void on_usr1(int sig)
{
	(void)sig;
	if (child_mode == FORK_IN_HANDLER) {
		fork_in_handler();
		return;
	}
	hs->in_handler = 1;
	while (!hs->go)
		usleep(1000);
}

/*
 * The tracee: stops itself (kt_seq_start()), takes SIGUSR1 and its handler
 * (which waits for hs->go, or forks), then branches a while and exits 0
 * (the parent of FORK_IN_HANDLER: how its child ended).
 */
static void handler_child(long mode)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	child_mode = mode;
	tracee_main = getpid();
	if (sigaction(SIGUSR1, &sa, NULL))
		_exit(92);
	raise(SIGSTOP);
	raise(SIGUSR1);
	if (getpid() != tracee_main)
		_exit(0);
	spin(300);
	_exit(mode == FORK_IN_HANDLER ? fork_result : 0);
}

static struct handshake *handshake_new(void)
{
	void *p = mmap(NULL, KT_PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Until @flag is set: 20 s at most by the clock. */
static int until_set(volatile int *flag)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (*flag)
			return 0;
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 20);
	return -1;
}

/* The next stop of @pid must be signal @sig.  0 or -1. */
static int next_stop(pid_t pid, int sig)
{
	int ws;

	if (waitpid(pid, &ws, 0) != pid)
		return -1;
	return WIFSTOPPED(ws) && WSTOPSIG(ws) == sig ? 0 : -1;
}

/*
 * From the tracee's first stop into its handler, where it waits; then
 * stopped there by a SIGSTOP when @stop_there.
 */
static int into_handler(pid_t pid, int stop_there)
{
	if (ptrace(PTRACE_CONT, pid, 0, 0) || next_stop(pid, SIGUSR1) ||
	    ptrace(PTRACE_CONT, pid, 0, SIGUSR1) || until_set(&hs->in_handler))
		return -1;
	if (!stop_there)
		return 0;
	return kill(pid, SIGSTOP) || next_stop(pid, SIGSTOP) ? -1 : 0;
}

/*
 * Resumes a traced @pid until it exits, passing its signals on; each
 * SIGTRAP (none is the test's) is counted in *@traps.  The exit status.
 */
static int finish_counting_traps(pid_t pid, int *traps)
{
	int ws, sig = 0;

	*traps = 0;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, 0, sig) || waitpid(pid, &ws, 0) != pid)
			return -1;
		if (!WIFSTOPPED(ws))
			return ws;
		sig = WSTOPSIG(ws);
		if (sig == SIGTRAP) {
			++*traps;
			sig = 0;
		}
	}
}

static int exit_code(int ws)
{
	return WIFEXITED(ws) ? WEXITSTATUS(ws) :
	       WIFSIGNALED(ws) ? 1000 + WTERMSIG(ws) : -1;
}

/*
 * The tracee sits in a ptrace stop in its handler, whose frame was written
 * while it was stepped; the tracer ends the session and PTRACE_DETACHes.
 * The handler returns, and the program exits 0: no trap flag comes back
 * from the frame to kill it with SIGTRAP.
 */
TEST(step_traps, detach_in_handler)
{
	struct kt_run r;
	int ws;

	ASSERT_TRUE((hs = handshake_new()) != NULL);
	ASSERT_EQ(kt_run_start(&r, handler_child, WAIT_IN_HANDLER, BUF_SIZE,
			       PTBTS_MODE_RING, 0), 0);
	ASSERT_EQ(into_handler(r.pid, 1), 0);
	kt_run_end(&r);
	ASSERT_EQ(ptrace(PTRACE_DETACH, r.pid, 0, 0), 0);
	hs->go = 1;
	ASSERT_EQ(waitpid(r.pid, &ws, 0), r.pid);
	EXPECT_EQ(exit_code(ws), 0);
	munmap(hs, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

/* The tracer of tracer_dies: attaches, lets the tracee into its handler. */
static void tracer_of_handler(void)
{
	struct kt_run r;

	if (kt_run_start(&r, handler_child, WAIT_IN_HANDLER, BUF_SIZE,
			 PTBTS_MODE_RING, 0) || into_handler(r.pid, 0))
		_exit(1);
	hs->tracee = r.pid;
	hs->tracer_ready = 1;
	for (;;)
		pause();
}

static int tracer_dies_in(void *arg)
{
	pid_t tracer;
	int ws;

	(void)arg;
	/* The tracee, orphaned by its tracer's death, is reaped here. */
	KT_CHECK(!prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	tracer = fork();
	KT_CHECK(tracer >= 0);
	if (!tracer)
		tracer_of_handler();
	KT_CHECK(!until_set(&hs->tracer_ready));
	KT_CHECK(!kill(tracer, SIGKILL));
	KT_CHECK(waitpid(tracer, &ws, 0) == tracer);
	hs->go = 1;
	KT_CHECK(waitpid(hs->tracee, &ws, 0) == hs->tracee);
	KT_CHECK(exit_code(ws) == 0);
	return 0;
}

/*
 * The tracer dies (SIGKILL) while its tracee waits in a handler whose
 * frame was written while it was stepped: the handler returns, and the
 * program exits 0.
 */
TEST(step_traps, tracer_dies_in_handler)
{
	ASSERT_TRUE((hs = handshake_new()) != NULL);
	EXPECT_EQ(kt_in_child(tracer_dies_in, NULL), 0);
	if (hs->tracee > 0 && !hs->go)
		kill(hs->tracee, SIGKILL);
	munmap(hs, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * A stepped thread forks in its handler: the child, which nobody traces,
 * returns from the handler through the frame it inherited and exits 0, and
 * the traced parent, recorded on, gets no SIGTRAP either.
 */
TEST(step_traps, fork_in_handler)
{
	struct kt_run r;
	int ws, traps;

	ASSERT_TRUE((hs = handshake_new()) != NULL);
	ASSERT_EQ(kt_run_start(&r, handler_child, FORK_IN_HANDLER, BUF_SIZE,
			       PTBTS_MODE_RING, 0), 0);
	ws = finish_counting_traps(r.pid, &traps);
	EXPECT_EQ(exit_code(ws), 0);
	EXPECT_EQ(traps, 0);
	kt_run_end(&r);
	munmap(hs, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

static int reload_module(void)
{
	int ko, err;

	if (syscall(SYS_delete_module, "ptrace_bts", O_NONBLOCK))
		return -errno;
	ko = open("/ptrace_bts.ko", O_RDONLY | O_CLOEXEC);
	if (ko < 0)
		return -errno;
	err = (int)syscall(SYS_finit_module, ko, "", 0);
	err = err ? -errno : 0;
	close(ko);
	return err;
}

/*
 * Module unload while a thread waits in a handler whose frame was written
 * while it was stepped (its session closed first): the handler returns and
 * the program exits 0 with no SIGTRAP, not even one its tracer would see.
 */
TEST(step_traps, unload_with_handler_frame)
{
	struct kt_run r;
	int ws, traps;

	ASSERT_TRUE((hs = handshake_new()) != NULL);
	ASSERT_EQ(kt_run_start(&r, handler_child, WAIT_IN_HANDLER, BUF_SIZE,
			       PTBTS_MODE_RING, 0), 0);
	ASSERT_EQ(into_handler(r.pid, 0), 0);
	kt_run_end(&r);
	EXPECT_EQ(reload_module(), 0);
	EXPECT_EQ(access("/dev/ptrace_bts", F_OK), 0);
	ASSERT_EQ(kill(r.pid, SIGSTOP), 0);
	ASSERT_EQ(next_stop(r.pid, SIGSTOP), 0);
	hs->go = 1;
	ws = finish_counting_traps(r.pid, &traps);
	EXPECT_EQ(exit_code(ws), 0);
	EXPECT_EQ(traps, 0);
	munmap(hs, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * Attached while the thread is in its handler (whose frame has no trap
 * flag): rt_sigreturn does not end the recording.  The SIGRETURN record
 * leads back to the interrupted code, and spin()'s 300 branches follow it.
 */
TEST(step_traps, attach_in_handler_records_on)
{
	const struct ptbts_record *rec;
	struct ptbts_config c;
	struct ptbts_status st;
	uint64_t i, n, sigret = 0;
	void *buf = kt_map(BUF_SIZE);
	int fd = kt_open(), ws, traps;
	pid_t pid;

	ASSERT_TRUE(buf != NULL);
	ASSERT_GE(fd, 0);
	ASSERT_TRUE((hs = handshake_new()) != NULL);
	pid = kt_seq_start(handler_child, WAIT_IN_HANDLER);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(into_handler(pid, 1), 0);
	c = kt_step_config(pid, buf, BUF_SIZE, PTBTS_MODE_RING, 0);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), 0);
	hs->go = 1;
	ws = finish_counting_traps(pid, &traps);
	EXPECT_EQ(exit_code(ws), 0);
	EXPECT_EQ(traps, 0);
	ASSERT_EQ(kt_status(fd, pid, &st), 0);
	n = kt_count(&st, BUF_SIZE);
	EXPECT_EQ(st.wraps, 0u);
	rec = buf;
	for (i = 0; i < n && i < BUF_SIZE / sizeof(*rec); i++)
		if (PTBTS_KIND(rec[i].flags) == PTBTS_KIND_SIGRETURN)
			sigret++;
	EXPECT_EQ(sigret, 1u);
	EXPECT_GE(n, 300u);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
	munmap(hs, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}
