// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stub's life around gdb's: gdb disconnecting (the program it started
 * is killed and the stub exits), the program killed under it, attaching
 * to a running process and detaching (it runs on, untraced), and --listen
 * with --persist (a second gdb finds the program where the first left it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdb_util.h"

/* The main thread's id, which is the program's pid (ptid is (pid, lwp, 0)). */
#define PY_PID "python print('@@pid', gdb.selected_thread().ptid[1])"

static pid_t pid_in(const struct harness_cmd *cmd)
{
	const char *p = strstr(cmd->out, "@@pid ");

	if (!p)
		FAIL("no pid in gdb's output:\n%s\nstderr:\n%s", cmd->out, cmd->err);
	return (pid_t)atoi(p + 6);
}

/* No "btrace:" line on stderr: the stub said nothing went wrong. */
static void expect_quiet_stub(const struct harness_cmd *cmd)
{
	if (strstr(cmd->err, "btrace:"))
		FAIL("the stub complained:\n%s", cmd->err);
}

TEST(gdb_session, disconnect_kills_program)
{
	static const char *const cmds[] = {
		"break seq_run", "continue", PY_PID, "disconnect", NULL,
	};
	struct harness_cmd cmd;
	pid_t pid;

	gdb_run(&cmd, "gdb-seq", NULL, cmds);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	pid = pid_in(&cmd);
	ASSERT_GT(pid, 0);
	EXPECT_TRUE(gdb_wait_gone(pid));
	expect_quiet_stub(&cmd);
	harness_cmd_free(&cmd);
}

TEST(gdb_session, program_killed)
{
	static const char *const cmds[] = {
		"break seq_run", "continue", PY_PID,
		"python import os; os.kill(gdb.selected_thread().ptid[1], 9)",
		"continue", NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "gdb-seq", NULL, cmds);
	gdb_expect_out(&cmd, "Program terminated with signal SIGKILL, Killed.");
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	EXPECT_TRUE(gdb_wait_gone(pid_in(&cmd)));
	expect_quiet_stub(&cmd);
	harness_cmd_free(&cmd);
}

static pid_t start_loop(void)
{
	char *path = PROG_PATH("gdb-loop");
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	free(path);
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	return pid;
}

/* 't' (traced or stopped) or another state letter of /proc/PID/stat. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] ? p[2] : '?';
}

TEST(gdb_session, attach_record_detach)
{
	static const char *const cmds[] = {
		"break tick", "continue", "record btrace bts", "continue",
		"echo @@begin py\\n",
		"python r = gdb.current_recording(); "
		"n = [f.symbol.name for f in r.function_call_history if f.symbol]; "
		"print(r.format, n[0], n[1], n[-1])",
		"echo @@end py\\n",
		"detach", NULL,
	};
	struct harness_cmd cmd;
	char target[256], *stub = BTRACE_PATH(), *py;
	pid_t pid = start_loop();
	int status;

	snprintf(target, sizeof(target),
		 "target remote | %s gdbserver --attach %d", stub, (int)pid);
	gdb_run(&cmd, "gdb-loop", target, (const char *const *)cmds);
	/* Detached: it runs on, traced by nobody. */
	EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0);
	EXPECT_NE(state_of(pid), 't');
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	gdb_expect_out(&cmd, "detached]");
	py = gdb_section(&cmd, "py");
	/* From tick's first instruction round the loop (usleep) back to tick. */
	EXPECT_STREQ(py, "bts tick main main\n");
	free(py);
	free(stub);
	harness_cmd_free(&cmd);
}

/* The stub with --listen in the background; its port from its stderr. */
static pid_t start_listening(int *port, int *errfd)
{
	char *stub = BTRACE_PATH(), *prog = PROG_PATH("gdb-seq");
	char buf[512];
	int pe[2];
	pid_t pid;
	char *p;

	if (pipe(pe))
		FAIL("pipe");
	pid = fork();
	if (pid == 0) {
		dup2(pe[1], 2);
		close(pe[0]);
		execl(stub, stub, "gdbserver", "--listen", "127.0.0.1:0",
		      "--persist", "--", prog, (char *)NULL);
		_exit(127);
	}
	close(pe[1]);
	free(stub);
	free(prog);
	gdb_read_line(pe[0], buf, sizeof(buf));
	p = strstr(buf, "listening on 127.0.0.1:");
	if (!p)
		FAIL("the stub did not listen: %s", buf);
	*port = atoi(p + strlen("listening on 127.0.0.1:"));
	*errfd = pe[0];
	return pid;
}

TEST(gdb_session, listen_persist)
{
	static const char *const first[] = {
		"break seq_run", "continue", "disconnect", NULL,
	};
	static const char *const second[] = {
		"echo @@begin pc\\n",
		"python print(int(gdb.parse_and_eval('$pc')) - "
		"int(gdb.parse_and_eval('(long)&seq_run')))",
		"echo @@end pc\\n",
		"continue", NULL,
	};
	struct harness_cmd cmd;
	char target[64], *pc;
	int port, errfd, status;
	pid_t stub = start_listening(&port, &errfd);

	snprintf(target, sizeof(target), "target remote 127.0.0.1:%d", port);
	gdb_run(&cmd, "gdb-seq", target, first);
	gdb_expect_out(&cmd, "Breakpoint 1, seq_run ()");
	harness_cmd_free(&cmd);
	/* The second gdb finds the program stopped where the first left it. */
	gdb_run(&cmd, "gdb-seq", target, second);
	pc = gdb_section(&cmd, "pc");
	EXPECT_STREQ(pc, "0\n");
	gdb_expect_exit(&cmd, "exited with code 03");
	/* The program is gone: the stub ends. */
	EXPECT_EQ(waitpid(stub, &status, 0), stub);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(errfd);
	free(pc);
	harness_cmd_free(&cmd);
}
