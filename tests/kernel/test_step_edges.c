// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-step at its edges: a program that clears the trap flag itself, a
 * tracer that changes where rt_sigreturn resumes, poll() and a ptrace
 * stop, exec by a thread that is not the leader, uprobes on the traced
 * code, and module unload while a thread still carries the module's flag
 * (running, asleep, in a ptrace stop, in an uninterruptible sleep).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)

/*
 * The program clears the flag with popf: the record stream ends with a
 * GAP marker (DISABLED), and the program saw the flag (pushf) before.
 */
TEST(step_edges, popf_ends_with_gap_marker)
{
	struct ptbts_record want[] = {
		kt_rec(KT_ADDR(kt_popf_jmp), KT_ADDR(kt_popf_target), 0),
		kt_rec(0, PTBTS_GAP_DISABLED, PTBTS_KIND_GAP),
	};
	struct kt_run r;
	int st;

	ASSERT_EQ(kt_run_start(&r, (void (*)(long))kt_seq_popf, 0, KT_PAGE,
			       PTBTS_MODE_RING, 0), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 1);	/* pushf showed the flag */
	EXPECT_EQ(r.st.head, sizeof(want));
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, 2), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* At rt_sigreturn's entry stop, the frame's pc becomes @to. */
static int run_poking_sigreturn(pid_t pid, uint64_t to, int *pokes)
{
	struct user_regs_struct regs;
	int st, sig = 0;
	long off = offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]);

	if (ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, sig) ||
		    waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return st;
		sig = WSTOPSIG(st);
		if (sig == (SIGTRAP | 0x80)) {
			sig = 0;
			if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
				return -1;
			if (regs.orig_rax != SYS_rt_sigreturn ||
			    regs.rax != (unsigned long long)-ENOSYS)
				continue;
			if (ptrace(PTRACE_POKEDATA, pid,
				   (void *)(uintptr_t)(regs.rsp + off),
				   (void *)(uintptr_t)to))
				return -1;
			(*pokes)++;
		} else if (sig == SIGSTOP || sig == SIGTRAP) {
			sig = 0;
		}
	}
}

/*
 * rt_sigreturn resumes where the frame said when it ran, not when the
 * thread reached the syscall: the tracer changes the frame at the entry
 * stop, and the SIGRETURN record names the pc the thread went to.
 */
TEST(step_edges, sigreturn_record_names_the_restored_pc)
{
	struct ptbts_record want[] = {
		kt_rec(KT_ADDR(kt_sig_resume), KT_ADDR(kt_sig_handler),
		       PTBTS_KIND_SIGNAL),
		kt_rec(KT_ADDR(kt_sig_handler), KT_ADDR(kt_sig_restorer), 0),
		kt_rec(KT_ADDR(kt_sig_restorer_sys), KT_ADDR(kt_sig_alt),
		       PTBTS_KIND_SIGRETURN),
		kt_rec(KT_ADDR(kt_sig_alt), KT_ADDR(kt_sig_after), 0),
	};
	struct kt_run r;
	int st, pokes = 0;

	ASSERT_EQ(kt_run_start(&r, kt_sig_child, 0, KT_PAGE, PTBTS_MODE_RING, 0), 0);
	st = run_poking_sigreturn(r.pid, KT_ADDR(kt_sig_alt), &pokes);
	EXPECT_EQ(pokes, 1);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(kt_status(r.fd, r.pid, &r.st), 0);
	EXPECT_EQ(r.st.head, sizeof(want));
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, 4), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* Until STATUS shows the thread running (PTRACE_CONT took effect). */
static int until_running(int fd, pid_t pid)
{
	struct ptbts_status st;
	int i;

	for (i = 0; i < 100000; i++) {
		if (kt_status(fd, pid, &st))
			return -1;
		if (st.state == PTBTS_STATE_RUNNING)
			return 0;
		sched_yield();
	}
	return -1;
}

static void pause_child(long arg)
{
	(void)arg;
	if (kt_sig_install(SIGUSR1))
		_exit(92);
	kt_seq_pause();
}

/* The syscall that task @tid sleeps in (/proc/TID/syscall), or -1. */
static long syscall_of(pid_t tid)
{
	char path[64], line[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	if (kt_read_line(path, line, sizeof(line)))
		return -1;
	return strtol(line, NULL, 10);
}

/* The state letter of task @tid (/proc/TID/stat), or 0. */
static char state_of(pid_t tid)
{
	char path[64], line[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (kt_read_line(path, line, sizeof(line)))
		return 0;
	p = strrchr(line, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Whether task @tid sleeps interruptibly (state S).  A thread a tracer
 * just resumed can show its old syscall while it is still waking
 * (TASK_WAKING): only S says that it sleeps in the syscall.
 */
static int sleeps(pid_t tid)
{
	return state_of(tid) == 'S';
}

/*
 * Waits until task @tid sleeps in syscall @nr or @nr2: 10 s at most by the
 * clock (under TCG on a busy host one usleep() may take milliseconds, so
 * a count of tries could add up to minutes), and no longer once *@stop
 * (if given) is set.
 */
static int until_in_syscall(pid_t tid, long nr, long nr2, const int *stop)
{
	struct timespec t0, t;
	long now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		now = syscall_of(tid);
		if ((now == nr || now == nr2) && sleeps(tid))
			return 0;
		if (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE))
			return -1;
		usleep(500);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 10);
	return -1;
}

/*
 * waitpid() for @pid, 20 s at most by the clock: a stop that never comes
 * fails the test (the tracee is killed) instead of hanging the guest.
 */
static pid_t wait_bounded(pid_t pid, int *ws)
{
	struct timespec t0, t;
	pid_t got;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		got = waitpid(pid, ws, WNOHANG);
		if (got)
			return got;
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 20);
	kt_reap(pid);
	return 0;
}

struct poller {
	pid_t tid;	/* the thread in poll() */
	pid_t tracee;
	int seen;	/* it was seen asleep in poll() */
	int sent;
	int done;	/* poll() returned: stop looking */
};

/*
 * Once the tracer sleeps in poll(), a signal makes its tracee stop.  The
 * signal is sent even when that was not seen, so that the tracer's
 * waitpid() ends and the test fails instead of hanging.
 */
static void *stop_tracee_later(void *arg)
{
	struct poller *p = arg;

	p->seen = !until_in_syscall(p->tid, SYS_poll, SYS_ppoll, &p->done);
	p->sent = !kill(p->tracee, SIGUSR2);
	return NULL;
}

/*
 * poll() wakes when a running thread, below its threshold, enters a ptrace
 * stop, as WAIT does: the tracee sleeps in pause() when a signal for it
 * (sent only once the tracer sleeps in poll()) stops it.
 */
TEST(step_edges, poll_wakes_on_ptrace_stop)
{
	struct poller pl = { 0 };
	struct ptbts_status st;
	struct timespec left = { .tv_sec = 30 };
	struct pollfd p;
	struct kt_run r;
	pthread_t th;
	int ws, ready;

	ASSERT_EQ(kt_run_start(&r, pause_child, 0, KT_PAGE, PTBTS_MODE_RING,
			       KT_PAGE), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	/* Not ready for its first stop any more. */
	ASSERT_EQ(until_running(r.fd, r.pid), 0);
	pl.tid = (pid_t)syscall(SYS_gettid);
	pl.tracee = r.pid;
	ASSERT_EQ(pthread_create(&th, NULL, stop_tracee_later, &pl), 0);
	p.fd = r.fd;
	p.events = POLLIN;
	p.revents = 0;
	/*
	 * ppoll() writes back the time left: it must not have run out (at its
	 * end poll() looks once more, and would find the stop anyway).
	 */
	ready = (int)syscall(SYS_ppoll, &p, 1, &left, NULL, 8);
	__atomic_store_n(&pl.done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	EXPECT_EQ(pl.seen, 1);
	EXPECT_EQ(pl.sent, 1);
	EXPECT_EQ(ready, 1);
	EXPECT_EQ(p.revents, POLLIN);
	EXPECT_TRUE(left.tv_sec > 0 || left.tv_nsec > 0);
	ASSERT_EQ(wait_bounded(r.pid, &ws), r.pid);
	EXPECT_TRUE(WIFSTOPPED(ws) && WSTOPSIG(ws) == SIGUSR2);
	ASSERT_EQ(kt_status(r.fd, r.pid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_STOPPED);
	/* Below the threshold: nothing but the stop made it ready. */
	EXPECT_LT(kt_count(&st, KT_PAGE), KT_PAGE / REC);
	/*
	 * pause() goes on; SIGUSR1's handler ends it: exit 5.  Only once the
	 * thread sleeps in pause() again: a signal that comes while it is
	 * still on its way back (the restart already set up) runs its handler
	 * before pause() is entered anew, and pause() then sleeps for good.
	 */
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	ASSERT_EQ(until_in_syscall(r.pid, SYS_pause, SYS_pause, NULL), 0);
	ASSERT_EQ(kill(r.pid, SIGUSR1), 0);
	ASSERT_EQ(wait_bounded(r.pid, &ws), r.pid);
	ASSERT_TRUE(WIFSTOPPED(ws) && WSTOPSIG(ws) == SIGUSR1);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, SIGUSR1), 0);
	ASSERT_EQ(wait_bounded(r.pid, &ws), r.pid);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 5);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

static void *exec_thread(void *arg)
{
	char *argv[] = { "busybox", "true", NULL };
	char *envp[] = { NULL };

	(void)arg;
	execve("/bin/busybox", argv, envp);
	_exit(93);
}

/* The leader starts a thread that execs, and waits for it forever. */
static void exec_child(long arg)
{
	pthread_t th;

	(void)arg;
	raise(SIGSTOP);
	if (pthread_create(&th, NULL, exec_thread, NULL))
		_exit(94);
	pthread_join(th, NULL);
	_exit(95);
}

struct exec_run {
	int fd;
	pid_t pid, tid;
	void *buf[2];
	int execs;
};

static int exec_attach(struct exec_run *e, int i, pid_t tid)
{
	struct ptbts_config c = kt_step_config(tid, e->buf[i], 64 * KT_PAGE,
					       PTBTS_MODE_STOP, 0);

	return (int)kt_ioctl(e->fd, PTBTS_IOC_ATTACH, &c);
}

/* Attaches the leader, then the thread at its first stop; runs to the end. */
static int exec_trace(struct exec_run *e)
{
	unsigned long msg;
	int st, sig, n;
	pid_t w;

	if (ptrace(PTRACE_SETOPTIONS, e->pid, 0,
		   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC) ||
	    exec_attach(e, 0, e->pid) || ptrace(PTRACE_CONT, e->pid, 0, 0))
		return -1;
	for (n = 0; n < 100; n++) {
		w = waitpid(-1, &st, __WALL);
		if (w < 0)
			return -1;
		if (w == e->pid && !WIFSTOPPED(st))
			return st;
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		if (st >> 16 == PTRACE_EVENT_CLONE &&
		    !ptrace(PTRACE_GETEVENTMSG, w, 0, &msg) && !e->tid)
			e->tid = (pid_t)msg;
		if (st >> 16 == PTRACE_EVENT_EXEC)
			e->execs++;
		/* The thread's first stop may come before the clone event. */
		if (w != e->pid && sig == SIGSTOP && !e->buf[1]) {
			e->tid = w;
			e->buf[1] = kt_map(64 * KT_PAGE);
			if (exec_attach(e, 1, w))
				return -1;
		}
		if (sig == SIGSTOP || sig == SIGTRAP)
			sig = 0;
		ptrace(PTRACE_CONT, w, 0, sig);
	}
	return -1;
}

/*
 * exec by a thread that is not the leader: the leader's attachment ends
 * (the exec killed it), the thread's goes on in the new image after an
 * EXEC marker, and every page goes back.
 */
TEST(step_edges, exec_by_non_leader_thread)
{
	const uint64_t size = 64 * KT_PAGE;
	const struct ptbts_record *recs;
	struct exec_run e = { 0 };
	struct ptbts_status st;
	uint64_t count, k, exec_at = ~0ull, nexec = 0;
	int ws;

	e.pid = kt_seq_start(exec_child, 0);
	ASSERT_GT(e.pid, 0);
	e.fd = kt_open();
	ASSERT_GE(e.fd, 0);
	e.buf[0] = kt_map(size);
	ws = exec_trace(&e);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	EXPECT_EQ(e.execs, 1);
	ASSERT_GT(e.tid, 0);
	ASSERT_TRUE(e.buf[1] != NULL);
	ASSERT_EQ(kt_status(e.fd, e.pid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_EXITED);
	ASSERT_EQ(kt_status(e.fd, e.tid, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_EXITED);
	recs = e.buf[1];
	count = kt_count(&st, size);
	for (k = 0; k < count; k++) {
		if (PTBTS_KIND(recs[k].flags) != PTBTS_KIND_EXEC)
			continue;
		nexec++;
		exec_at = k;
	}
	EXPECT_EQ(nexec, 1u);
	ASSERT_LT(exec_at, count);
	EXPECT_EQ(recs[exec_at].from, 0u);
	EXPECT_NE(recs[exec_at].to, 0u);
	/* The thread's way to execve, and busybox true after it. */
	EXPECT_GT(exec_at, 10u);
	EXPECT_GT(count, exec_at + 10);
	close(e.fd);
	kt_unmap(e.buf[0], size);
	kt_unmap(e.buf[1], size);
	EXPECT_EQ(kt_pinned(), 0);
}

#define TRACING "/sys/kernel/tracing"

static int write_file(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* The file and offset of this program's code at @addr, from its maps. */
static int code_offset(uint64_t addr, char *path, size_t size, uint64_t *off)
{
	unsigned long long lo, hi, pgoff;
	char line[512], file[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %255s", &lo, &hi,
			   &pgoff, file) != 4 || addr < lo || addr >= hi)
			continue;
		snprintf(path, size, "%s", file);
		*off = addr - lo + pgoff;
		found = 0;
	}
	fclose(f);
	return found;
}

static const char *const probe_names[] = { "leaf", "call", "jnz" };

static int probes_add(void)
{
	const char *syms[] = { kt_leaf, kt_loop_call, kt_loop_jnz };
	char path[256], def[400];
	uint64_t off;
	size_t i;

	if (access(TRACING "/uprobe_events", W_OK) &&
	    mount("nodev", TRACING, "tracefs", 0, NULL))
		return -errno;
	for (i = 0; i < 3; i++) {
		if (code_offset(KT_ADDR(syms[i]), path, sizeof(path), &off))
			return -ENOENT;
		snprintf(def, sizeof(def), "p:ptbts/%s %s:0x%llx\n",
			 probe_names[i], path, (unsigned long long)off);
		if (write_file(TRACING "/uprobe_events", def, O_APPEND))
			return -EINVAL;
	}
	return write_file(TRACING "/events/ptbts/enable", "1", 0);
}

static void probes_remove(void)
{
	char def[64];
	size_t i;

	write_file(TRACING "/events/ptbts/enable", "0", 0);
	for (i = 0; i < 3; i++) {
		snprintf(def, sizeof(def), "-:ptbts/%s\n", probe_names[i]);
		write_file(TRACING "/uprobe_events", def, O_APPEND);
	}
}

/*
 * Hits of the uprobe event ptbts/@name, from uprobe_profile ("FILE EVENT
 * HITS"; the event without its group on 6.1, with it on later kernels).
 */
static long probe_hits(const char *name)
{
	char line[512], file[256], event[128], want[64];
	FILE *f = fopen(TRACING "/uprobe_profile", "r");
	long hits, found = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "ptbts/%s", name);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %127s %ld", file, event, &hits) == 3 &&
		    (!strcmp(event, want) || !strcmp(event, name)))
			found = hits;
	fclose(f);
	return found;
}

/*
 * Runs @pid to its end passing every signal on (but the SIGSTOP that
 * kt_seq_start() left), so that a SIGTRAP would kill it; counts them.
 */
static int finish_counting_traps(pid_t pid, int *traps)
{
	int st, sig = 0;

	for (;;) {
		if (ptrace(PTRACE_CONT, pid, 0, sig) ||
		    waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return st;
		sig = WSTOPSIG(st);
		if (sig == SIGSTOP)
			sig = 0;
		*traps += sig == SIGTRAP;
	}
}

/*
 * uprobes on the traced code (a ret it steps out of line, a call and a jnz
 * it emulates): each fires, the program gets no SIGTRAP (uprobes sends one
 * for a trap flag it finds set) and exits normally, and the records are
 * those of the run without them.
 */
TEST(step_edges, uprobes_on_traced_code)
{
	static struct ptbts_record want[64];
	size_t n = kt_loop_expect(want, 64, 10, kt_loop_call, kt_loop_after,
				  kt_loop_jnz);
	struct kt_run r;
	int st = -1, err, traps = 0;

	ASSERT_EQ(n, 29u);
	err = probes_add();
	if (err)
		probes_remove();
	ASSERT_EQ(err, 0);
	err = kt_run_start(&r, kt_seq_loop, 10, KT_PAGE, PTBTS_MODE_RING, 0);
	if (!err)
		st = finish_counting_traps(r.pid, &traps);
	probes_remove();
	ASSERT_EQ(err, 0);
	EXPECT_EQ(traps, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(kt_status(r.fd, r.pid, &r.st), 0);
	EXPECT_EQ(r.st.head, n * REC);
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, n), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/* uprobe_profile is read while the events still exist. */
TEST(step_edges, uprobes_fire_on_traced_code)
{
	struct kt_run r;
	int err, st = -1;
	long hits[3] = { -1, -1, -1 };
	size_t i;

	err = probes_add();
	if (!err)
		err = kt_run_start(&r, kt_seq_loop, 10, KT_PAGE,
				   PTBTS_MODE_RING, 0);
	if (!err)
		st = kt_run_finish(&r);
	for (i = 0; i < 3; i++)
		hits[i] = probe_hits(probe_names[i]);
	probes_remove();
	ASSERT_EQ(err, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(hits[0], 10);
	EXPECT_EQ(hits[1], 10);
	EXPECT_EQ(hits[2], 10);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}


/*
 * delete_module() in a child process, so that an unload that waits for a
 * thread cannot hang the test.  Return: its pid (the result by
 * unload_result()).
 */
static pid_t unload_start(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(syscall(SYS_delete_module, "ptrace_bts", O_NONBLOCK) ?
		      errno : 0);
	return p;
}

/*
 * The unloader's result: 0 or its errno; ETIMEDOUT if it still waits
 * after @secs seconds (it is left running: the caller lets the thread it
 * waits for go on, then reaps it with unload_result(p, 30)).
 */
static int unload_result(pid_t p, int secs)
{
	struct timespec t0, t;
	int ws;

	if (p < 0)
		return errno;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (waitpid(p, &ws, WNOHANG) == p)
			return WIFEXITED(ws) ? WEXITSTATUS(ws) : EINTR;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= secs)
			return ETIMEDOUT;
		usleep(1000);
	}
}

/*
 * Unloads, retrying while the module is in use, for 10 s at most: a
 * thread told to take its trap flag back needs a moment to run.  Return:
 * 0 or the last errno; ETIMEDOUT for an unload that waits, whose pid is
 * left in *@waiting (else -1).
 */
static int unload_once_free(pid_t *waiting)
{
	struct timespec t0, t;
	int err;

	*waiting = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		*waiting = unload_start();
		err = unload_result(*waiting, 10);
		if (err == ETIMEDOUT)
			return err;
		*waiting = -1;
		if (err != EAGAIN)
			return err;
		usleep(2000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 10);
	return err;
}

/* After a successful unload: /dev/ptrace_bts is gone; load it again. */
static int reload(void)
{
	int ko, err;

	if (access("/dev/ptrace_bts", F_OK) == 0)
		return EEXIST;
	ko = open("/ptrace_bts.ko", O_RDONLY | O_CLOEXEC);
	if (ko < 0)
		return errno;
	err = (int)syscall(SYS_finit_module, ko, "", 0) ? errno : 0;
	close(ko);
	return err;
}

/*
 * Runs @pid until it exits, passing on every signal but SIGCHLD: first
 * resumed with @sig if it is stopped (@sig >= 0), else waited for.
 * Return: its exit code, 1000 + the signal that killed it, or -1.
 */
static int finish_passing_signals(pid_t pid, int sig)
{
	int st;

	for (;;) {
		if ((sig >= 0 && ptrace(PTRACE_CONT, pid, 0, sig)) ||
		    wait_bounded(pid, &st) != pid)
			return -1;
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (WIFSIGNALED(st))
			return 1000 + WTERMSIG(st);
		sig = WSTOPSIG(st) == SIGCHLD ? 0 : WSTOPSIG(st);
	}
}

/*
 * A pause_child() attached, resumed, and asleep in pause() with the flag
 * when its session is closed: no trap can take the flag back.  Return: 0,
 * or -1 (the thread is left to the caller).
 */
static int asleep_with_flag_closed(struct kt_run *r)
{
	int err = kt_run_start(r, pause_child, 0, KT_PAGE, PTBTS_MODE_RING, 0);

	if (!err)
		err = (int)ptrace(PTRACE_CONT, r->pid, 0, 0);
	if (!err)
		err = until_running(r->fd, r->pid);
	if (!err)
		err = until_in_syscall(r->pid, SYS_pause, SYS_pause, NULL);
	kt_run_end(r);
	return err ? -1 : 0;
}

/*
 * Module unload while a thread still carries the module's trap flag (its
 * session closed while it slept in pause()): closing the session told the
 * thread to take the flag back, which it does as it wakes, so the unload
 * succeeds (at once, or after a few "in use" while it wakes; it never
 * waits), and the thread goes on untraced: a signal's handler runs,
 * pause() returns, and it exits 5 (no SIGTRAP).  The module is loaded
 * again for the tests that follow.
 */
TEST(step_edges, unload_once_flagged_thread_lets_go)
{
	struct kt_run r;
	int st, err;
	pid_t un;

	ASSERT_EQ(asleep_with_flag_closed(&r), 0);
	err = unload_once_free(&un);
	EXPECT_EQ(err, 0);
	if (err == ETIMEDOUT)
		err = unload_result(un, 30);
	if (!err)
		EXPECT_EQ(reload(), 0);
	EXPECT_EQ(access("/dev/ptrace_bts", F_OK), 0);
	ASSERT_EQ(kill(r.pid, SIGUSR1), 0);
	ASSERT_EQ(waitpid(r.pid, &st, 0), r.pid);
	ASSERT_TRUE(WIFSTOPPED(st));
	EXPECT_EQ(WSTOPSIG(st), SIGUSR1);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, SIGUSR1), 0);
	ASSERT_EQ(waitpid(r.pid, &st, 0), r.pid);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WSTOPSIG(st), 5);
	if (!WIFEXITED(st) && !WIFSIGNALED(st))
		kt_reap(r.pid);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * The session closed while its thread slept in pause() with the flag,
 * then the thread stopped for a signal (a ptrace stop, which no kick
 * wakes): rmmod must not wait for the tracer to resume it.  It succeeds
 * within 10 s (it used to hang, unkillable, until the thread ran again),
 * and the thread, resumed, runs its handler and exits 5 without SIGTRAP.
 */
TEST(step_edges, unload_not_held_by_ptrace_stop)
{
	struct kt_run r;
	int st, err;
	pid_t un;

	ASSERT_EQ(asleep_with_flag_closed(&r), 0);
	ASSERT_EQ(kill(r.pid, SIGUSR1), 0);
	ASSERT_EQ(wait_bounded(r.pid, &st), r.pid);
	ASSERT_TRUE(WIFSTOPPED(st));
	EXPECT_EQ(WSTOPSIG(st), SIGUSR1);
	err = unload_once_free(&un);
	EXPECT_EQ(err, 0);
	if (err == ETIMEDOUT) {
		/* The old unload: it ends once the thread runs. */
		ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, SIGUSR1), 0);
		EXPECT_EQ(unload_result(un, 30), 0);
		EXPECT_EQ(reload(), 0);
		ASSERT_EQ(wait_bounded(r.pid, &st), r.pid);
		EXPECT_TRUE(WIFEXITED(st));
		return;
	}
	if (!err)
		EXPECT_EQ(reload(), 0);
	EXPECT_EQ(finish_passing_signals(r.pid, SIGUSR1), 5);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * Stops for the attach (as kt_seq_*() do), then vfork()s a child that
 * waits in pause(), and exits 5 once that child is gone.
 */
static void vfork_child(long arg)
{
	pid_t c;

	(void)arg;
	raise(SIGSTOP);
	c = vfork();
	if (c == 0) {
		syscall(SYS_pause);
		_exit(0);
	}
	_exit(c > 0 ? 5 : 93);
}

/* The only child of @pid (/proc/PID/task/PID/children), or -1. */
static pid_t child_of(pid_t pid)
{
	char path[80], line[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	if (kt_read_line(path, line, sizeof(line)) || !line[0])
		return -1;
	return (pid_t)strtol(line, NULL, 10);
}

/*
 * A thread with the flag waits in vfork() for its child (a killable
 * sleep, state D: a kick does not wake it) when its session closes:
 * rmmod fails at once with "in use" (it used to wait until the child
 * died), and succeeds once the child is gone and the thread took its flag
 * back; the thread exits 5 without SIGTRAP.
 */
TEST(step_edges, unload_refused_while_thread_sleeps_in_d)
{
	struct kt_run r;
	pid_t un, child;
	int err, i;

	ASSERT_EQ(kt_run_start(&r, vfork_child, 0, KT_PAGE, PTBTS_MODE_RING,
			       0), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	ASSERT_EQ(until_running(r.fd, r.pid), 0);
	for (i = 0; i < 10000 && !(syscall_of(r.pid) == SYS_vfork &&
				   state_of(r.pid) == 'D'); i++)
		usleep(1000);
	ASSERT_EQ(state_of(r.pid), 'D');
	child = child_of(r.pid);
	ASSERT_GT(child, 0);
	kt_run_end(&r);
	un = unload_start();
	err = unload_result(un, 10);
	EXPECT_EQ(err, EAGAIN);
	ASSERT_EQ(kill(child, SIGKILL), 0);
	if (err == ETIMEDOUT) {
		/* The old unload: it ends once the thread runs. */
		EXPECT_EQ(unload_result(un, 30), 0);
	} else {
		EXPECT_EQ(unload_once_free(&un), 0);
	}
	EXPECT_EQ(reload(), 0);
	/* Running: its child's death woke it. */
	EXPECT_EQ(finish_passing_signals(r.pid, -1), 5);
	EXPECT_EQ(kt_pinned(), 0);
}
