// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record records in a child, the recorder, and only waits for it.
 *
 * A ptrace tracer killed with SIGKILL cannot clean up: the kernel detaches
 * its tracees with the trap flag and the tracer's int3s still in them, and
 * they die of SIGTRAP at their next instruction or branch site; nothing
 * can take them over in time.  So the process a user knows as btrace (the
 * one a shell started, `kill -9` reaches) is not the tracer.  When it dies,
 * the recorder hears of it (PR_SET_PDEATHSIG, SIGTERM) and stops as for a
 * SIGTERM: it takes its int3s out, lets a process attached with -p run on
 * (kills a program it started) and completes the file.  Only a SIGKILL of
 * the recorder itself still costs the program; the file then holds what
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
#include "record-guard.h"

static volatile pid_t recorder;

/*
 * A signal sent to btrace alone is passed on: the recorder decides (a stop).
 * One from the terminal reached the recorder too (the whole foreground
 * group gets it): passing it on would make it a stop.
 */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (si->si_code != SI_KERNEL && recorder > 0)
		kill(recorder, sig);
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

/* The parent's part: the recorder's exit code, or what its death means. */
static int wait_recorder(pid_t pid, const char *output)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_RECORD_FAILED;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (output)
		error("the recorder (process %d) was killed by SIG%s: %s.tmp.%d holds "
		      "what was recorded until then, incomplete (btrace dump "
		      "--incomplete reads it)", (int)pid,
		      sigabbrev_np(WTERMSIG(status)) ?: "?", output, (int)pid);
	else
		error("the recorder (process %d) was killed by SIG%s", (int)pid,
		      sigabbrev_np(WTERMSIG(status)) ?: "?");
	return EXIT_RECORD_FAILED;
}

int record_guard(const char *output)
{
	pid_t parent = getpid(), pid;
	sigset_t all, old;

	/* Blocked until @recorder is known: a signal then is passed on. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	set_handlers(pass_on);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		error("record: fork: %s", strerror(errno));
		return EXIT_RECORD_FAILED;
	}
	if (pid) {
		recorder = pid;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return wait_recorder(pid, output);
	}
	set_handlers(NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* A parent gone before the prctl: nothing is traced yet, stop. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(EXIT_RECORD_FAILED);
	return RECORD_GUARD_RECORDER;
}
