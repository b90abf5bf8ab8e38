// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Killing the program from gdb: 'k' gets no reply (gdb reads none), and
 * the stub then reports the program's end, never a stopped thread.
 * Killing the stub: a process it attached to runs on.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gdb_util.h"
#include "rsp_client.h"

static void start(struct rsp_client *s)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH("gdb-loop");
	char *argv[] = { btrace, "gdbserver", "--", path, NULL };

	rsp_start(s, argv, 10000);
	free(btrace);
	free(path);
}

/* k is acked, and the next frame is the reply to the '?' after it. */
TEST(gdb_kill, k_has_no_reply_and_status_is_the_exit)
{
	struct rsp_client s;

	start(&s);
	EXPECT_STREQ(rsp_ask(&s, "qSupported:swbreak+"),
		     "PacketSize=4000;QStartNoAckMode+;swbreak+;"
		     "qXfer:auxv:read+;qXfer:exec-file:read+;"
		     "qXfer:features:read+;Qbtrace:bts+;"
		     "Qbtrace-conf:bts:size+;Qbtrace:off+;qXfer:btrace:read+;"
		     "qXfer:btrace-conf:read+");
	EXPECT_EQ(strncmp(rsp_ask(&s, "?"), "T05", 3), 0);
	rsp_send(&s, "k");
	EXPECT_EQ(rsp_get(&s), '+');
	EXPECT_STREQ(rsp_ask(&s, "?"), "X09");
	EXPECT_STREQ(rsp_ask(&s, "g"), "E01");
	EXPECT_STREQ(rsp_ask(&s, "m0,1"), "E01");
	EXPECT_EQ(rsp_hang_up(&s), 0);
}

/* vKill has its OK; with multiprocess ids the exit names the process. */
TEST(gdb_kill, vkill_then_status_is_the_exit_of_the_process)
{
	struct rsp_client s;
	const char *r;
	char want[64];
	int pid;

	start(&s);
	r = rsp_ask(&s, "qSupported:multiprocess+");
	EXPECT_TRUE(strstr(r, "multiprocess+") != NULL);
	r = rsp_ask(&s, "?");
	ASSERT_TRUE(strstr(r, "thread:p") != NULL);
	pid = (int)strtol(strstr(r, "thread:p") + 8, NULL, 16);
	EXPECT_STREQ(rsp_ask(&s, "vKill;%x", pid), "OK");
	snprintf(want, sizeof(want), "X09;process:%x", pid);
	EXPECT_STREQ(rsp_ask(&s, "?"), want);
	EXPECT_EQ(rsp_hang_up(&s), 0);
}

/* A gdb-loop of our own, for --attach. */
static pid_t start_loop(void)
{
	char *path = PROG_PATH("gdb-loop");
	pid_t pid = fork();

	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	free(path);
	return pid;
}

/* /proc/@pid/status's TracerPid, or -1 when it is gone. */
static int tracer_of(pid_t pid)
{
	char path[64], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "TracerPid: %d", &tracer);
	fclose(f);
	return tracer;
}

/*
 * kill -9 of btrace gdbserver --attach, the program stopped (@run false)
 * or running under gdb's continue: the stub's tracer (its child) detaches
 * it with its code restored, and it runs on until killed.
 */
static void kill_the_stub(bool run)
{
	char *btrace = BTRACE_PATH(), pidarg[16];
	char *argv[] = { btrace, "gdbserver", "--attach", pidarg, NULL };
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	pid_t pid = start_loop();
	struct rsp_client s;
	int status, i;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	rsp_start(&s, argv, 10000);
	EXPECT_EQ(strncmp(rsp_ask(&s, "?"), "T05", 3), 0);
	/* Recorded: btrace's int3s go into its code as it runs. */
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace:bts"), "OK");
	for (i = 0; i < 50; i++)
		EXPECT_EQ(strncmp(rsp_ask(&s, "vCont;s"), "T05", 3), 0);
	if (run)
		rsp_send(&s, "vCont;c");
	EXPECT_TRUE(tracer_of(pid) > 0);
	ASSERT_EQ(kill(s.pid, SIGKILL), 0);
	for (i = 0; i < 6000 && tracer_of(pid) > 0; i++)
		nanosleep(&tick, NULL);
	EXPECT_EQ(tracer_of(pid), 0);
	/* Alive, and it dies of our SIGKILL only: no int3, no trap flag left. */
	for (i = 0; i < 10; i++)
		nanosleep(&tick, NULL);
	ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0);
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(rsp_hang_up(&s), 128 + SIGKILL);
	free(btrace);
}

TEST(gdb_kill, sigkill_of_the_stub_lets_a_stopped_process_run_on)
{
	kill_the_stub(false);
}

TEST(gdb_kill, sigkill_of_the_stub_lets_a_running_process_run_on)
{
	kill_the_stub(true);
}
