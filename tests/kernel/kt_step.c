// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers of the kmod-step tests: traced children and expected records. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kt.h"
#include "kt_step.h"

pid_t kt_seq_start(void (*fn)(long), long arg)
{
	pid_t pid = fork();
	int st, i;

	if (pid < 0)
		return -errno;
	if (!pid) {
		/* The tracee must not keep a session open. */
		for (i = 3; i < 1024; i++)
			close(i);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(90);
		fn(arg);
		_exit(91);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -errno;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		kt_reap(pid);
		return -ECHILD;
	}
	return pid;
}

int kt_seq_finish(pid_t pid)
{
	int st, sig = 0;

	for (;;) {
		if (ptrace(PTRACE_CONT, pid, 0, sig))
			return -1;
		if (waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return st;
		sig = WSTOPSIG(st);
		if (sig == SIGSTOP || sig == SIGTRAP)
			sig = 0;
	}
}

struct ptbts_config kt_step_config(pid_t tid, void *buf, uint64_t size,
				   uint32_t mode, uint64_t wakeup)
{
	struct ptbts_config c = kt_config(tid, buf, size);

	c.mode = mode;
	c.wakeup = wakeup;
	return c;
}

long kt_status(int fd, pid_t tid, struct ptbts_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->tid = tid;
	return kt_ioctl(fd, PTBTS_IOC_STATUS, st);
}

long kt_wait(int fd, pid_t tid, uint64_t timeout, struct ptbts_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->tid = tid;
	st->timeout_ns = timeout;
	return kt_ioctl(fd, PTBTS_IOC_WAIT, st);
}

long kt_ack(int fd, pid_t tid, uint64_t tail)
{
	struct ptbts_ack a = { .size = sizeof(a), .tid = (uint32_t)tid, .tail = tail };

	return kt_ioctl(fd, PTBTS_IOC_ACK, &a);
}

uint64_t kt_count(const struct ptbts_status *st, uint64_t size)
{
	uint64_t nslots = size / sizeof(struct ptbts_record);

	return st->wraps * nslots + st->head / sizeof(struct ptbts_record);
}

struct ptbts_record kt_rec(uint64_t from, uint64_t to, uint32_t kind)
{
	struct ptbts_record r = { from, to, PTBTS_MKKIND(kind) };

	return r;
}

size_t kt_loop_expect(struct ptbts_record *out, size_t max, long n,
		      const char *call, const char *after, const char *jnz)
{
	size_t k = 0;
	long i;

	for (i = 0; i < n && k + 3 <= max; i++) {
		out[k++] = kt_rec(KT_ADDR(call), KT_ADDR(kt_leaf), 0);
		out[k++] = kt_rec(KT_ADDR(kt_leaf), KT_ADDR(after), 0);
		if (i + 1 < n)
			out[k++] = kt_rec(KT_ADDR(jnz), KT_ADDR(call), 0);
	}
	return k;
}

size_t kt_records_diff(const struct ptbts_record *got,
		       const struct ptbts_record *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!memcmp(&got[i], &want[i], sizeof(got[i])))
			continue;
		fprintf(stderr, "record %zu: got {%#llx, %#llx, %#llx}, "
			"want {%#llx, %#llx, %#llx}\n", i,
			(unsigned long long)got[i].from,
			(unsigned long long)got[i].to,
			(unsigned long long)got[i].flags,
			(unsigned long long)want[i].from,
			(unsigned long long)want[i].to,
			(unsigned long long)want[i].flags);
		return i + 1;
	}
	return 0;
}

int kt_run_start(struct kt_run *r, void (*fn)(long), long arg, uint64_t size,
		 uint32_t mode, uint64_t wakeup)
{
	return kt_run_start_source(r, fn, arg, size, mode, wakeup,
				   PTBTS_SOURCE_KMOD_STEP);
}

int kt_run_start_source(struct kt_run *r, void (*fn)(long), long arg,
			uint64_t size, uint32_t mode, uint64_t wakeup,
			uint32_t source)
{
	struct ptbts_config c;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->size = size;
	r->pid = kt_seq_start(fn, arg);
	if (r->pid < 0)
		return r->pid;
	r->buf = kt_map(size);
	r->fd = kt_open();
	if (!r->buf || r->fd < 0)
		return -ENOMEM;
	c = kt_step_config(r->pid, r->buf, size, mode, wakeup);
	c.source = source;
	if (source == PTBTS_SOURCE_KMOD_PEBS) {
		r->buf2 = kt_map(size);
		if (!r->buf2)
			return -ENOMEM;
		c.buffer2 = (uintptr_t)r->buf2;
		c.buffer2_size = size;
	}
	return (int)kt_ioctl(r->fd, PTBTS_IOC_ATTACH, &c);
}

int kt_run_finish(struct kt_run *r)
{
	int st = kt_seq_finish(r->pid);

	kt_status(r->fd, r->pid, &r->st);
	return st;
}

void kt_run_end(struct kt_run *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	kt_unmap(r->buf, r->size);
	r->buf = NULL;
	kt_unmap(r->buf2, r->size);
	r->buf2 = NULL;
}

const struct ptbts_record *kt_run_recs(const struct kt_run *r)
{
	return r->buf;
}

/* The kernel's struct sigaction of x86-64 (rt_sigaction's layout). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

int kt_sig_install(int sig)
{
	struct ksigaction sa = {
		.handler = (void *)kt_sig_handler,
		.flags = 0x04000000,	/* SA_RESTORER */
		.restorer = (void *)kt_sig_restorer,
	};

	return syscall(SYS_rt_sigaction, sig, &sa, NULL, 8) ? -1 : 0;
}

void kt_sig_child(long arg)
{
	(void)arg;
	if (kt_sig_install(SIGUSR1))
		_exit(92);
	kt_seq_sig();
}

/*
 * kt_seq_loop(@iters) in a child that is not traced: it stops itself
 * with SIGSTOP, and the caller seizes it there (the seize turns the
 * group stop into a ptrace stop).  Its pid, or -1.
 */
pid_t kt_seized_loop(long iters)
{
	pid_t pid = fork();
	int st, i;

	if (pid < 0)
		return -1;
	if (!pid) {
		for (i = 3; i < 1024; i++)
			close(i);
		kt_seq_loop(iters);
		_exit(0);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SEIZE, pid, 0, 0) ||
	    waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return -1;
	}
	return pid;
}

/* The stop of @pid within 10 s: its waitpid() status, or -1. */
int kt_stop_within(pid_t pid)
{
	struct timespec tick = { 0, 2000000 };
	int st, i;

	for (i = 0; i < 5000; i++) {
		pid_t r = waitpid(pid, &st, __WALL | WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return -1;
		nanosleep(&tick, NULL);
	}
	return -1;
}
