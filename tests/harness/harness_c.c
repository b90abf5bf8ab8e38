// SPDX-License-Identifier: GPL-2.0-or-later
/* The C half of the harness: registration, ASSERT's escape, temp dirs. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

struct harness_test *harness_tests;
static jmp_buf harness_bail;
static char harness_dir[256];

void harness_register(struct harness_test *t)
{
	t->next = harness_tests;
	harness_tests = t;
}

/*
 * ASSERT_* jumps back here.  Test bodies are C: there are no destructors
 * for the jump to skip.
 */
extern char **environ;

static char **environ_copy(void)
{
	size_t n = 0, i;
	char **copy;

	while (environ[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		abort();
	for (i = 0; i < n; i++)
		if (!(copy[i] = strdup(environ[i])))
			abort();
	return copy;
}

/* Puts back the environment of @copy and frees it. */
static void environ_restore(char **copy)
{
	char **e, *eq;

	clearenv();
	for (e = copy; *e; e++) {
		eq = strchr(*e, '=');
		if (eq) {
			*eq = 0;
			setenv(*e, eq + 1, 1);
		}
		free(*e);
	}
	free(copy);
}

/*
 * A test that sets a variable (BTS_STEP_MODE=single) or turns ASLR off
 * and then fails an ASSERT never reaches its own undo: every test gets
 * the environment and persona it started with back, so that one failure
 * does not change what the tests after it run.
 */
static __attribute__((noinline)) void run_body(const struct harness_test *t)
{
	if (!setjmp(harness_bail))
		t->fn();
}

void harness_call(const struct harness_test *t)
{
	int persona = personality(0xffffffff);
	char **env = environ_copy();

	run_body(t);
	harness_cleanup();
	environ_restore(env);
	if (persona >= 0)
		personality((unsigned long)persona);
}

/*
 * Whether the kernel runs i386 programs: execve() of one fails with
 * ENOEXEC where IA32 emulation is not built in or is off (ia32_emulation=0).
 * The answer is the kernel's, so it is asked once.
 */
bool harness_can_run_i386(void)
{
	static int answer = -1;
	char *prog, *argv[2];
	int fds[2], err = 0, status;
	pid_t pid;

	if (answer >= 0)
		return answer;
	prog = PROG_PATH("i386-oracle");
	argv[0] = prog;
	argv[1] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		abort();
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(prog, argv);
		err = errno;
		if (write(fds[1], &err, sizeof(err)) != sizeof(err))
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	free(prog);
	answer = err != ENOEXEC;
	return answer;
}

void harness_abort(void)
{
	longjmp(harness_bail, 1);
}

const char *harness_tmpdir(void)
{
	if (!harness_dir[0]) {
		snprintf(harness_dir, sizeof(harness_dir), "%s/bts-test.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(harness_dir)) {
			harness_dir[0] = 0;
			FAIL("mkdtemp: %m");
		}
	}
	return harness_dir;
}

static int remove_one(const char *path, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

void harness_cleanup(void)
{
	if (harness_dir[0])
		nftw(harness_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	harness_dir[0] = 0;
}

char *harness_path(const char *dir, const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		abort();
	return p;
}
