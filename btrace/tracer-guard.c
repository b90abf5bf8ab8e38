// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record and gdbserver trace from a child, the recorder or the
 * stub, and only wait for it.
 *
 * A ptrace tracer killed with SIGKILL cannot clean up: the kernel detaches
 * its tracees with the trap flag and the tracer's int3s still in them, and
 * they die of SIGTRAP at their next instruction or branch site; nothing
 * can take them over in time.  So the process a user knows as btrace (the
 * one a shell started, `kill -9` reaches) is not the tracer.  When it dies,
 * the child hears of it (PR_SET_PDEATHSIG, SIGTERM) and stops as for a
 * SIGTERM: it takes its int3s out, lets an attached process run on (kills
 * a program it started) and completes the file.  Only a SIGKILL of
 * the tracer itself still costs the program; a recording then holds what
 * was recorded up to a second before (libbts syncs it that often).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "btrace.h"
#include "tracer-guard.h"

static volatile pid_t tracer;

/*
 * A signal sent to btrace alone is passed on: the tracer decides (a stop).
 * One from the terminal reached the tracer too (the whole foreground
 * group gets it): passing it on would make it a stop.
 */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (si->si_code != SI_KERNEL && tracer > 0)
		kill(tracer, sig);
	errno = saved;
}

static void set_handlers(void (*fn)(int, siginfo_t *, void *))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP };
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	if (!fn) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
	}
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* The parent's part: the tracer's exit code, or what its death means. */
static int wait_tracer(pid_t pid, const char *who, const char *output)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_RECORD_FAILED;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (output)
		error("%s (process %d) was killed by SIG%s: %s.tmp.%d holds "
		      "what was recorded until then, incomplete (btrace dump "
		      "--incomplete reads it)", who, (int)pid,
		      sigabbrev_np(WTERMSIG(status)) ?: "?", output, (int)pid);
	else
		error("%s (process %d) was killed by SIG%s", who, (int)pid,
		      sigabbrev_np(WTERMSIG(status)) ?: "?");
	return EXIT_RECORD_FAILED;
}

int tracer_guard(const char *who, const char *output)
{
	pid_t parent = getpid(), pid;
	sigset_t all, old;

	/* Blocked until @tracer is known: a signal then is passed on. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	set_handlers(pass_on);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		error("%s: fork: %s", who, strerror(errno));
		return EXIT_RECORD_FAILED;
	}
	if (pid) {
		tracer = pid;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return wait_tracer(pid, who, output);
	}
	set_handlers(NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* A parent gone before the prctl: nothing is traced yet, stop. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(EXIT_RECORD_FAILED);
	return TRACER_GUARD_CHILD;
}
