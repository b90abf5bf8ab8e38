// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Multiprocess thread ids (pPID.TID), byte for byte: offered only when gdb
 * offers them (gdb 13 always does), then used in every thread id the stub
 * sends and understood in every one it receives; an id of another process
 * names no thread; the exit names the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"
#include "rsp_client.h"

static void start_calls(struct rsp_client *s)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH("gdb-calls");
	char *argv[] = { btrace, "gdbserver", "--", path, NULL };

	rsp_start(s, argv, 10000);
	free(btrace);
	free(path);
}

TEST(gdb_multiprocess, ids_both_ways)
{
	struct rsp_client s;
	unsigned int pid, tid;
	char want[128];
	const char *r;

	start_calls(&s);
	r = rsp_ask(&s, "qSupported:multiprocess+;swbreak+;fork-events+");
	EXPECT_STREQ(r, "PacketSize=4000;QStartNoAckMode+;swbreak+;multiprocess+;"
			"qXfer:auxv:read+;qXfer:exec-file:read+;"
			"qXfer:features:read+;Qbtrace:bts+;"
			"Qbtrace-conf:bts:size+;Qbtrace:off+;qXfer:btrace:read+;"
			"qXfer:btrace-conf:read+");
	r = rsp_ask(&s, "qC");
	if (sscanf(r, "QCp%x.%x", &pid, &tid) != 2)
		FAIL("qC reply %s", r);
	EXPECT_EQ(pid, tid);		/* stopped at its start: one thread */
	snprintf(want, sizeof(want), "thread:p%x.%x;", pid, tid);
	r = rsp_ask(&s, "?");
	EXPECT_TRUE(!strncmp(r, "T05", 3) && strstr(r, want));
	snprintf(want, sizeof(want), "mp%x.%x", pid, tid);
	EXPECT_STREQ(rsp_ask(&s, "qfThreadInfo"), want);
	EXPECT_STREQ(rsp_ask(&s, "qsThreadInfo"), "l");
	EXPECT_STREQ(rsp_ask(&s, "Hgp%x.%x", pid, tid), "OK");
	EXPECT_STREQ(rsp_ask(&s, "Hgp%x.%x", pid + 1, tid), "E.No such thread.");
	EXPECT_STREQ(rsp_ask(&s, "Hgp0.0"), "OK");
	EXPECT_STREQ(rsp_ask(&s, "Hcp%x.-1", pid), "OK");
	EXPECT_STREQ(rsp_ask(&s, "Hgp%x.", pid), "E01");	/* no TID */
	EXPECT_STREQ(rsp_ask(&s, "Tp%x.%x", pid, tid), "OK");
	EXPECT_STREQ(rsp_ask(&s, "Tp%x.%x", pid + 1, tid), "E01");
	EXPECT_STREQ(rsp_ask(&s, "D;%x", pid + 1), "E01");
	EXPECT_STREQ(rsp_ask(&s, "vKill;%x", pid + 1), "E01");
	EXPECT_STREQ(rsp_ask(&s, "D;zz"), "E01");
	/* Only another process's threads: nothing to resume. */
	EXPECT_STREQ(rsp_ask(&s, "vCont;c:p%x.-1", pid + 1), "E01");
	/* gdb-calls exits with 022. */
	snprintf(want, sizeof(want), "W12;process:%x", pid);
	EXPECT_STREQ(rsp_ask(&s, "vCont;c:p%x.-1", pid), want);
	EXPECT_STREQ(rsp_ask(&s, "?"), want);
	EXPECT_EQ(rsp_hang_up(&s), 0);
}

/* gdb without multiprocess: bare ids, and an exit without the process. */
TEST(gdb_multiprocess, bare_ids_unless_asked)
{
	struct rsp_client s;
	unsigned int tid;
	char want[64];
	const char *r;

	start_calls(&s);
	r = rsp_ask(&s, "qSupported:swbreak+");
	EXPECT_TRUE(strstr(r, "multiprocess") == NULL);
	r = rsp_ask(&s, "qC");
	if (sscanf(r, "QC%x", &tid) != 1 || strchr(r, 'p'))
		FAIL("qC reply %s", r);
	snprintf(want, sizeof(want), "m%x", tid);
	EXPECT_STREQ(rsp_ask(&s, "qfThreadInfo"), want);
	EXPECT_STREQ(rsp_ask(&s, "vCont;c"), "W12");
	EXPECT_EQ(rsp_hang_up(&s), 0);
}

/* Real gdb takes the ids: the inferior's pid is the program's, not a fake. */
TEST(gdb_multiprocess, gdb_sees_the_real_pid)
{
	static const char *const cmds[] = {
		"python t = gdb.selected_thread().ptid; "
		"print('@@ptid', t[0] == t[1], t[0] != 42000, t[2], "
		"gdb.selected_inferior().pid == t[0])",
		"continue", NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "gdb-calls", NULL, cmds);
	gdb_expect_out(&cmd, "@@ptid True True 0 True\n");
	gdb_expect_exit(&cmd, "exited with code 022");
	harness_cmd_free(&cmd);
}
