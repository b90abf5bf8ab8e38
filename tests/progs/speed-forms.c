// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speed-forms: prints the run-time address of every label of
 * speed-forms-asm.S ("label NAME 0xADDR"), runs speed_run, then makes
 * children that must not meet a breakpoint of the tracer's: a fork child
 * that compares speed_run's code with a copy taken before it ever ran
 * and runs code the tracer broke on, a vfork child that runs such code
 * before its exec, and posix_spawn.  Exits 0 when every check passed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPEED_FUNCS(X)							\
	X(speed_run) X(speed_leaf) X(speed_ret16) X(speed_stub)
#define SPEED_HANDLERS(X) X(speed_usr1_handler) X(speed_trap_handler)

#define SPEED_LABELS(X)							\
	X(speed_jz_taken) X(speed_after_jz) X(speed_jz_not)		\
	X(speed_loop_top) X(speed_loop) X(speed_loope_top) X(speed_loope) \
	X(speed_loopne_top) X(speed_loopne)				\
	X(speed_jrcxz_taken) X(speed_after_jrcxz) X(speed_jrcxz_not)	\
	X(speed_jecxz_taken) X(speed_after_jecxz)			\
	X(speed_call_rel) X(speed_after_call_rel)			\
	X(speed_call_mem) X(speed_after_call_mem)			\
	X(speed_call_rsp) X(speed_after_call_rsp)			\
	X(speed_call_reg) X(speed_after_call_reg)			\
	X(speed_call_fs) X(speed_after_call_fs)				\
	X(speed_jmp_table) X(speed_case0) X(speed_case1)		\
	X(speed_jmp_reg) X(speed_after_jmp_reg)				\
	X(speed_call_ret16) X(speed_after_ret16)			\
	X(speed_call_stub) X(speed_after_stub)				\
	X(speed_rep_stos) X(speed_rep_movs) X(speed_syscall)		\
	X(speed_after_kill) X(speed_int3) X(speed_after_int3)		\
	X(speed_count_top) X(speed_count_jnz) X(speed_run_ret)		\
	X(speed_fail) X(speed_run_end) X(speed_leaf_ret)		\
	X(speed_ret16_ret) X(speed_usr1_ret) X(speed_trap_ret)

#define DECL_FUNC(n) int n(void);
#define DECL_HANDLER(n) void n(int);
#define DECL_LABEL(n) extern char n[];
SPEED_FUNCS(DECL_FUNC)
SPEED_HANDLERS(DECL_HANDLER)
SPEED_LABELS(DECL_LABEL)
extern int speed_usr1_count, speed_trap_count;
__thread int (*speed_tls_fn)(void);

#define PRINT(n) printf("label %s %p\n", #n, (void *)n);

/* glibc's __restore_rt: mov $15,%rax; syscall (rt_sigreturn). */
static const unsigned char restorer_code[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
};

static int install(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

static int print_restorer(void)
{
	struct sigaction old;
	const unsigned char *r;

	if (sigaction(SIGUSR1, NULL, &old))
		return -1;
	r = (const unsigned char *)old.sa_restorer;
	if (!r || memcmp(r, restorer_code, sizeof(restorer_code)))
		return -1;
	printf("label speed_restorer %p\n", (void *)r);
	printf("label speed_restorer_syscall %p\n", (void *)(r + 7));
	return 0;
}

static int wait_ok(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A fork child: no int3 in its copy of the code, and the code runs. */
static int fork_child_clean(const unsigned char *copy, size_t len)
{
	pid_t pid = fork();

	if (!pid) {
		if (memcmp((const void *)speed_run, copy, len))
			_exit(1);
		/* Code the tracer broke on: a stray int3 would kill it. */
		_exit(speed_stub() == 0 && speed_leaf() == 0 ? 0 : 2);
	}
	return wait_ok(pid);
}

/* A vfork child runs code the tracer broke on, then execs. */
static int vfork_child_runs(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid = vfork();

	if (!pid) {
		if (speed_leaf() != 0)
			_exit(3);
		execv("/bin/true", argv);
		_exit(127);
	}
	return wait_ok(pid);
}

static int spawn_runs(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid;

	if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ))
		return 0;
	return wait_ok(pid);
}

int main(void)
{
	size_t len = (size_t)(speed_run_end - (char *)speed_run);
	unsigned char *copy = malloc(len);

	if (!copy || install(SIGUSR1, speed_usr1_handler) ||
	    install(SIGTRAP, speed_trap_handler) || print_restorer())
		return 2;
	/* speed_run has not run yet: no tracer has broken on it. */
	memcpy(copy, (const void *)speed_run, len);
	speed_tls_fn = speed_leaf;
	printf("label main %p\n", (void *)main);
	SPEED_FUNCS(PRINT)
	SPEED_HANDLERS(PRINT)
	SPEED_LABELS(PRINT)
	fflush(stdout);
	if (speed_run() != 0 || speed_usr1_count != 1 || speed_trap_count != 1)
		return 3;
	if (!fork_child_clean(copy, len))
		return 4;
	if (!vfork_child_runs())
		return 5;
	if (!spawn_runs())
		return 6;
	free(copy);
	return 0;
}
