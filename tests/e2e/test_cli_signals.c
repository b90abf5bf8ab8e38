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

/*
 * Whether @tracer is btrace @bt or its recorder, a child of @bt (btrace
 * records in a child that outlives a SIGKILL of btrace itself).
 */
static bool traced_by(pid_t bt, int tracer)
{
	char path[64], line[256];
	bool child = false;
	int ppid;
	FILE *f;

	if (tracer == bt)
		return true;
	if (tracer <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", tracer);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			child = ppid == bt;
	fclose(f);
	return child;
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

/*
 * Waits until btrace @bt steps @prog, so that there is something recorded
 * (the tracer is set at attach already, before the first step); returns
 * the tracer, btrace's recorder.
 */
static pid_t wait_stepped(pid_t prog, pid_t bt)
{
	time_t end = time(NULL) + LIMIT_S;
	int tracer = -1;
	long switches, base = 0;

	while (proc_state_switches(prog, &tracer, &switches) &&
	       (!traced_by(bt, tracer) || !base || switches < base + 100)) {
		if (time(NULL) > end)
			FAIL("btrace never traced %d", (int)prog);
		if (traced_by(bt, tracer) && !base)
			base = switches;
		pause_a_little();
	}
	return tracer;
}

/* @prog, our child, still runs: it dies of the SIGKILL sent now, no other. */
static void expect_alive_until_killed(pid_t prog)
{
	int status;

	ASSERT_EQ(waitpid(prog, &status, WNOHANG), 0);
	kill(prog, SIGKILL);
	ASSERT_EQ(waitpid(prog, &status, 0), prog);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
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
	pid_t prog = start(loop, "prog"), bt;
	int tracer = -1;
	char st, *err;

	ASSERT_EQ(wait_pidfile(pidfile, 0), prog);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)prog);
	bt = start(argv, "btrace");
	wait_stepped(prog, bt);
	ASSERT_EQ(kill(bt, SIGINT), 0);
	EXPECT_EQ(wait_exit(bt), 0);
	err = slurp("btrace.err");
	expect_summary(err, btr, "; stopped by SIGINT");
	expect_complete(btr, prog);
	/* The program runs on, untraced, and never saw the SIGINT. */
	st = proc_state(prog, &tracer);
	EXPECT_TRUE(st == 'R' || st == 'S');
	EXPECT_EQ(tracer, 0);
	expect_alive_until_killed(prog);
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

/* Waits until @pid has no tracer (and runs); fails if it is gone. */
static void wait_untraced(pid_t pid)
{
	time_t end = time(NULL) + LIMIT_S;
	int tracer = -1;
	char st;

	while ((st = proc_state(pid, &tracer)) && st != 'Z' && tracer != 0) {
		if (time(NULL) > end)
			FAIL("pid %d is still traced by %d", (int)pid, tracer);
		pause_a_little();
	}
	if (!st || st == 'Z')
		FAIL("pid %d died when its tracer let it go", (int)pid);
}

/* Waits until DIR/@name holds @want (the recorder's last words). */
static char *wait_text(const char *name, const char *want)
{
	time_t end = time(NULL) + LIMIT_S;
	char *text;

	while (!strstr(text = slurp(name), want)) {
		if (time(NULL) > end)
			FAIL("no \"%s\" in %s: %s", want, name, text);
		free(text);
		pause_a_little();
	}
	return text;
}

/*
 * kill -9 of btrace: the process a shell knows is not the tracer, and its
 * recorder, told of the death, detaches the program with its code restored
 * (it runs on, as after a SIGINT) and completes the file.
 */
TEST(cli_signals, sigkill_of_btrace_leaves_an_attached_program_running)
{
	char *btr = tmp("killed.btr"), *pidfile = tmp("pid"), pidarg[16];
	char *loop[] = { PROG_PATH("cli-loop"), pidfile, NULL };
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "-p", pidarg, NULL };
	pid_t prog = start(loop, "prog"), bt;
	char *err;

	ASSERT_EQ(wait_pidfile(pidfile, 0), prog);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)prog);
	bt = start(argv, "btrace");
	wait_stepped(prog, bt);
	ASSERT_EQ(kill(bt, SIGKILL), 0);
	EXPECT_EQ(wait_exit(bt), 128 + SIGKILL);
	wait_untraced(prog);
	err = wait_text("btrace.err", "btrace: recorded ");
	expect_summary(err, btr, "; stopped by SIGTERM");
	expect_complete(btr, prog);
	/* Alive and untraced: no int3 and no trap flag were left in it. */
	expect_alive_until_killed(prog);
	free(err);
	free(loop[0]);
	free(argv[0]);
	free(btr);
	free(pidfile);
}

/* btrace dump [--incomplete] --raw @path: its exit code, output into @c. */
static int dump_raw(const char *path, bool incomplete, struct harness_cmd *c)
{
	char *argv[] = { BTRACE_PATH(), "dump", "--raw", (char *)path, NULL, NULL };

	if (incomplete) {
		argv[3] = (char *)"--incomplete";
		argv[4] = (char *)path;
	}
	ASSERT_EQ(harness_run(argv, LIMIT_S, c), 0);
	free(argv[0]);
	return harness_exit_code(c);
}

/*
 * kill -9 of the recorder itself: what it recorded until a second before
 * is in FILE.tmp.PID, which reads as truncated and, with --incomplete,
 * gives its records with a warning; btrace says where it is (exit 125).
 */
TEST(cli_signals, sigkill_of_the_recorder_leaves_an_incomplete_file)
{
	char *btr = tmp("cut.btr"), *pidfile = tmp("pid"), pidarg[16];
	char *loop[] = { PROG_PATH("cli-loop"), pidfile, NULL };
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "-p", pidarg, NULL };
	pid_t prog = start(loop, "prog"), bt, rec;
	char part[4200], want[8600], *err;
	time_t end = time(NULL) + LIMIT_S;
	struct harness_cmd c;
	int status;

	ASSERT_EQ(wait_pidfile(pidfile, 0), prog);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)prog);
	bt = start(argv, "btrace");
	rec = wait_stepped(prog, bt);
	snprintf(part, sizeof(part), "%s.tmp.%d", btr, (int)rec);
	snprintf(want, sizeof(want), "# thread %d\n0x", (int)prog);
	/* Records reach the file while the recording goes on. */
	for (;;) {
		dump_raw(part, true, &c);
		if (strstr(c.out, want))
			break;
		harness_cmd_free(&c);
		if (time(NULL) > end)
			FAIL("no records of %d reached %s", (int)prog, part);
		pause_a_little();
	}
	harness_cmd_free(&c);
	ASSERT_EQ(kill(rec, SIGKILL), 0);
	EXPECT_EQ(wait_exit(bt), 125);
	err = slurp("btrace.err");
	snprintf(want, sizeof(want), "btrace: the recorder (process %d) was killed "
		 "by SIGKILL: %s holds what was recorded until then, incomplete "
		 "(btrace dump --incomplete reads it)\n", (int)rec, part);
	EXPECT_STREQ(err, want);
	/* Never taken for whole: plain dump refuses it. */
	EXPECT_EQ(dump_raw(part, false, &c), 1);
	EXPECT_TRUE(strstr(c.err, "trace file is truncated") != NULL);
	harness_cmd_free(&c);
	EXPECT_EQ(dump_raw(part, true, &c), 0);
	snprintf(want, sizeof(want), "btrace: warning: %s is incomplete (its "
		 "recording was cut short): what its first ", part);
	EXPECT_TRUE(!strncmp(c.err, want, strlen(want)));
	snprintf(want, sizeof(want), "# thread %d\n0x", (int)prog);
	EXPECT_TRUE(strstr(c.out, want) != NULL);
	harness_cmd_free(&c);
	EXPECT_FALSE(access(btr, F_OK) == 0);
	/* ptrace-step leaves it its int3s and trap flag: it may be dead. */
	kill(prog, SIGKILL);
	ASSERT_EQ(waitpid(prog, &status, 0), prog);
	free(err);
	free(loop[0]);
	free(argv[0]);
	free(btr);
	free(pidfile);
}
