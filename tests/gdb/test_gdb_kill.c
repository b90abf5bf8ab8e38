// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Killing the program from gdb: 'k' gets no reply (gdb reads none), and
 * the stub then reports the program's end, never a stopped thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
