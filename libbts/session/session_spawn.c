// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Starting a program traced from its first instruction.
 *
 * The child blocks on a pipe until the parent has seized it, then execs.
 * Tracing starts at PTRACE_EVENT_EXEC: nothing of the child's own code
 * before the exec is traced.  An exec failure comes back through a
 * close-on-exec pipe as an errno; the path is resolved in the parent first
 * so that the common failures get a precise message.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/session.h"
#include "trace/writer.h"

#define SPAWN_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
		       PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL | \
		       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
		       PTRACE_O_TRACESYSGOOD)

/* 0 when @path can be exec'd, else the errno exec would give. */
static int check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return EACCES;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return EACCES;
	return 0;
}

static int fail_exec(const char *name, int e)
{
	if (e == ENOENT || e == ENOTDIR)
		return bts_fail(BTS_E_NOENT, "%s: program not found", name);
	if (e == EACCES || e == ENOEXEC || e == EPERM || e == ETXTBSY)
		return bts_fail(BTS_E_NOEXEC, "%s: cannot run: %s", name, strerror(e));
	return bts_fail(BTS_E_NOEXEC, "%s: %s", name, strerror(e));
}

/* argv[0] as execvp would find it: PATH search unless it names a path. */
int bts_spawn_resolve(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	int e, seen = ENOENT;

	if (!*name)
		return bts_fail(BTS_E_NOENT, "empty program name");
	if (strchr(name, '/')) {
		e = check_file(name);
		if (e)
			return fail_exec(name, e);
		snprintf(out, len, "%s", name);
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(out, len, "%.*s%s%s", (int)(end - p), p,
				     end == p ? "" : "/", name) < len) {
			e = check_file(out);
			if (!e)
				return 0;
			if (e == EACCES)
				seen = EACCES;
		}
		if (!*end)
			break;
	}
	return fail_exec(name, seen);
}

static void child(const int sync[2], const int errp[2], const char *path,
		  char *const argv[])
{
	sigset_t none;
	char c;
	int e;

	/* The parent's ends: the sync pipe must see EOF when the parent closes. */
	close(sync[1]);
	close(errp[0]);

	/* The program gets the signal mask a shell would give it. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (read(sync[0], &c, 1) < 0 && errno == EINTR)
		;
	execv(path, argv);
	e = errno;
	while (write(errp[1], &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* The child is gone before its exec: collect it so no zombie stays. */
static void reap_child(pid_t pid)
{
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, __WALL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != pid || !bts_status_stopped(status))
			break;
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
}

/* Runs the child to its exec, passing on any signal that comes first. */
static int wait_exec(pid_t pid)
{
	struct bts_stop_event ev;
	int status, sig;

	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return bts_fail_errno(BTS_E_INTERNAL, "waitpid %d", (int)pid);
		}
		bts_stop_decode(pid, status, &ev);
		if (bts_ev_gone(&ev))
			return bts_fail(BTS_E_NOEXEC, "process %d ended before its exec",
					(int)pid);
		if (ev.kind == BTS_EV_EXEC)
			return 0;
		sig = bts_ev_sigstop(&ev) && ev.sig != SIGTRAP ? ev.sig : 0;
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
	}
}

/* Fork, seize, release, and learn whether the exec worked. */
static int start_child(const char *path, char *const argv[], pid_t *out)
{
	int sync[2], errp[2], e = 0, err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC))
		return bts_fail_errno(BTS_E_INTERNAL, "pipe");
	if (pipe2(errp, O_CLOEXEC)) {
		err = bts_fail_errno(BTS_E_INTERNAL, "pipe");
		goto close_sync;
	}
	pid = fork();
	if (pid < 0) {
		err = bts_fail_errno(BTS_E_NOMEM, "fork");
		goto close_err;
	}
	if (!pid)
		child(sync, errp, path, argv);
	close(sync[0]);
	close(errp[1]);
	sync[0] = errp[1] = -1;
	if (ptrace(PTRACE_SEIZE, pid, 0, SPAWN_OPTIONS)) {
		err = bts_fail_errno(BTS_E_PERM, "cannot trace the program (ptrace)");
		kill(pid, SIGKILL);
		reap_child(pid);
		goto close_err;
	}
	close(sync[1]);
	sync[1] = -1;
	do
		n = read(errp[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		reap_child(pid);
		err = fail_exec(argv[0], e);
		goto close_err;
	}
	err = wait_exec(pid);
	if (err)
		reap_child(pid);
	else
		*out = pid;
close_err:
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
close_sync:
	if (sync[0] >= 0)
		close(sync[0]);
	if (sync[1] >= 0)
		close(sync[1]);
	return err;
}

/*
 * The program's history starts at its entry point, where it stands (an
 * emulator's source writes its guest's, once it knows it).
 */
static int write_entry(struct bts_session *s, pid_t pid)
{
	struct user_regs_struct regs;

	if (!s->w || s->ops->caps & BTS_SRC_GUEST)
		return 0;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return bts_fail_errno(BTS_E_INTERNAL, "registers of %d", (int)pid);
	return bts_writer_start(s->w, pid, pid, regs.rip);
}

static int kill_and_fail(pid_t pid, int err)
{
	kill(pid, SIGKILL);
	reap_child(pid);
	return err;
}

int bts_session_spawn(const struct bts_session_setup *setup,
		      char *const argv[], const char *path,
		      struct bts_session **out)
{
	struct bts_session *s;
	struct bts_thread *t;
	char *const *cmd = argv;
	pid_t pid = 0;
	int err;

	err = bts_session_new(setup, 0, &s);
	if (err)
		return err;
	/* A source may run the program under another (its emulator). */
	err = s->ops->command ? s->ops->command(s, path, argv, &cmd) : 0;
	if (!err)
		err = start_child(cmd == argv ? path : cmd[0], cmd, &pid);
	if (err)
		goto free_session;
	s->pid = pid;
	s->spawned = true;
	err = bts_proc_is_64bit(pid);
	/* 32-bit programs: ptrace-step and kmod-step record them, not perf-bts. */
	if (err == 0 && !(s->ops->caps & BTS_SRC_ABI32))
		err = bts_fail(BTS_E_NOEXEC, "%s: 32-bit programs are traced by "
			       "ptrace-step or kmod-step only", argv[0]);
	if (err < 0)
		goto kill_child;
	err = bts_session_write_start(s);
	if (!err)
		err = bts_thread_add(s, pid, &t);
	if (!err)
		err = write_entry(s, pid);
	if (err)
		goto kill_child;
	s->ops->attach(s, t);
	*out = s;
	return 0;

kill_child:
	kill_and_fail(pid, err);
	s->w = NULL;
	while (s->nthreads)
		bts_thread_remove(s, s->threads[0]);
free_session:
	bts_session_free(s);
	return err;
}
