// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record and signals: a SIGTERM or SIGINT sent to btrace alone stops
 * the recording and completes the file (killing a program btrace started,
 * leaving one attached with -p running); a Ctrl-C typed in the terminal is
 * the program's business, and btrace records on until the program ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define LIMIT_S 120	/* a bound against hangs, never a timing assertion */

static void pause_a_little(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static char *tmp(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

/* In the child: stdin from @in (or /dev/null), outputs into DIR/@name.out|err. */
static void redirect(int in, const char *name)
{
	char path[4096];
	int fd;

	if (in < 0)
		in = open("/dev/null", O_RDONLY);
	dup2(in, 0);
	snprintf(path, sizeof(path), "%s/%s.out", harness_tmpdir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	snprintf(path, sizeof(path), "%s/%s.err", harness_tmpdir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
}

static pid_t start(char *const argv[], const char *name)
{
	pid_t pid = fork();

	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		redirect(-1, name);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* The exit code (128 + N for signal N); kills and fails after LIMIT_S. */
static int wait_exit(pid_t pid)
{
	time_t end = time(NULL) + LIMIT_S;
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (time(NULL) > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			FAIL("pid %d did not end within %d s", (int)pid, LIMIT_S);
		}
		pause_a_little();
	}
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* cli-loop writes its pid once it runs main(). */
static pid_t wait_pidfile(const char *path, pid_t btrace_pid)
{
	time_t end = time(NULL) + LIMIT_S;
	FILE *f;
	int pid;

	while (!(f = fopen(path, "r"))) {
		if (time(NULL) > end || (btrace_pid > 0 &&
					 waitpid(btrace_pid, NULL, WNOHANG) != 0))
			FAIL("the program never started (no %s)", path);
		pause_a_little();
	}
	ASSERT_EQ(fscanf(f, "%d", &pid), 1);
	fclose(f);
	return pid;
}

/*
 * State letter, tracer and voluntary context switches of a process, or 0
 * when it is gone.  Every ptrace stop is a context switch: their count
 * rising under a tracer shows that the tracer is stepping the program.
 */
static char proc_state_switches(pid_t pid, int *tracer, long *switches)
{
	char path[64], line[256];
	char state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	*tracer = -1;
	*switches = 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "State: %c", &state);
		sscanf(line, "TracerPid: %d", tracer);
		sscanf(line, "voluntary_ctxt_switches: %ld", switches);
	}
	fclose(f);
	return state;
}

static char proc_state(pid_t pid, int *tracer)
{
	long switches;

	return proc_state_switches(pid, tracer, &switches);
}

/* Dead: gone, or a zombie waiting for a parent that is not us. */
static void expect_gone(pid_t pid)
{
	time_t end = time(NULL) + LIMIT_S;
	int tracer;
	char st;

	while ((st = proc_state(pid, &tracer)) && st != 'Z') {
		if (time(NULL) > end)
			FAIL("pid %d still runs (state %c)", (int)pid, st);
		pause_a_little();
	}
}

static char *slurp(const char *name)
{
	char path[4096], *buf = calloc(1, 65536);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", harness_tmpdir(), name);
	f = fopen(path, "r");
	ASSERT_TRUE(f && buf);
	if (!fread(buf, 1, 65535, f) && ferror(f))
		FAIL("cannot read %s", path);
	fclose(f);
	return buf;
}

/* The trace reads back whole, with a section for thread @tid. */
static void expect_complete(const char *btr, pid_t tid)
{
	char *argv[] = { BTRACE_PATH(), "dump", "--raw", (char *)btr, NULL };
	struct harness_cmd c;
	char want[64];

	ASSERT_EQ(harness_run(argv, LIMIT_S, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 0);
	EXPECT_EQ(c.err_len, 0u);
	snprintf(want, sizeof(want), "# thread %d\n0x", (int)tid);
	if (!strstr(c.out, want))
		FAIL("no \"%s\" in the dump of %s", want, btr);
	harness_cmd_free(&c);
	free(argv[0]);
}

static void expect_summary(const char *err, const char *btr, const char *tail)
{
	char want[4200];
	const char *nl = strchr(err, '\n');

	snprintf(want, sizeof(want), " lost (ptrace-step) to %s%s\n", btr, tail);
	if (strncmp(err, "btrace: recorded ", 17) || !strstr(err, want) ||
	    !nl || nl[1])
		FAIL("expected one summary line ending \"%s\", got:\n%s", want, err);
}

TEST(cli_signals, sigterm_stops_a_spawned_program)
{
	char *btr = tmp("term.btr"), *pidfile = tmp("pid");
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "--",
			 PROG_PATH("cli-loop"), pidfile, NULL };
	pid_t bt = start(argv, "btrace"), prog;
	char *err;

	prog = wait_pidfile(pidfile, bt);
	ASSERT_EQ(kill(bt, SIGTERM), 0);
	EXPECT_EQ(wait_exit(bt), 128 + SIGKILL);
	err = slurp("btrace.err");
	expect_summary(err, btr, "; stopped by SIGTERM");
	expect_complete(btr, prog);
	expect_gone(prog);
	free(err);
	free(argv[0]);
	free(argv[5]);
	free(btr);
	free(pidfile);
}

TEST(cli_signals, sigint_detaches_from_an_attached_program)
{
	char *btr = tmp("attach.btr"), *pidfile = tmp("pid"), pidarg[16];
	char *loop[] = { PROG_PATH("cli-loop"), pidfile, NULL };
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "-p", pidarg, NULL };
	time_t end = time(NULL) + LIMIT_S;
	pid_t prog = start(loop, "prog"), bt;
	int tracer = -1, status;
	long switches, base = 0;
	char st, *err;

	ASSERT_EQ(wait_pidfile(pidfile, 0), prog);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)prog);
	bt = start(argv, "btrace");
	/*
	 * Stop it once it steps the program, so that there is something: the
	 * tracer is set at attach already, before the first step.
	 */
	while ((st = proc_state_switches(prog, &tracer, &switches)) &&
	       (tracer != bt || !base || switches < base + 100)) {
		if (time(NULL) > end)
			FAIL("btrace never traced %d", (int)prog);
		if (tracer == bt && !base)
			base = switches;
		pause_a_little();
	}
	ASSERT_EQ(kill(bt, SIGINT), 0);
	EXPECT_EQ(wait_exit(bt), 0);
	err = slurp("btrace.err");
	expect_summary(err, btr, "; stopped by SIGINT");
	expect_complete(btr, prog);
	/* The program runs on, untraced, and never saw the SIGINT. */
	st = proc_state(prog, &tracer);
	EXPECT_TRUE(st == 'R' || st == 'S');
	EXPECT_EQ(tracer, 0);
	ASSERT_EQ(waitpid(prog, &status, WNOHANG), 0);
	kill(prog, SIGKILL);
	ASSERT_EQ(waitpid(prog, &status, 0), prog);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	free(err);
	free(loop[0]);
	free(argv[0]);
	free(btr);
	free(pidfile);
}

/* btrace as a session leader with a pseudo-terminal as its terminal. */
static pid_t start_on_pty(char *const argv[], int *master)
{
	pid_t pid;

	*master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_TRUE(*master >= 0);
	ASSERT_EQ(grantpt(*master), 0);
	ASSERT_EQ(unlockpt(*master), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		int slave;

		setsid();
		/* The first terminal a session leader opens becomes its own. */
		slave = open(ptsname(*master), O_RDWR);
		if (slave < 0)
			_exit(126);
		redirect(slave, "btrace");
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

TEST(cli_signals, ctrl_c_in_the_terminal_goes_to_the_program)
{
	char *btr = tmp("ctrlc.btr"), *pidfile = tmp("pid");
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "--",
			 PROG_PATH("cli-loop"), pidfile, NULL };
	int master;
	pid_t bt = start_on_pty(argv, &master), prog;
	char *err;

	prog = wait_pidfile(pidfile, bt);
	/* ^C: the terminal signals the foreground group, btrace and all. */
	ASSERT_EQ(write(master, "\x03", 1), 1);
	/* cli-loop exits 42 on SIGINT; btrace records to the end. */
	EXPECT_EQ(wait_exit(bt), 42);
	close(master);
	err = slurp("btrace.err");
	expect_summary(err, btr, "");
	expect_complete(btr, prog);
	free(err);
	free(argv[0]);
	free(argv[5]);
	free(btr);
	free(pidfile);
}
