// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stub's protocol, byte for byte, without gdb: acks, a bad checksum,
 * malformed, oversized and unknown packets, btrace errors, no-ack mode,
 * and Ctrl-C while the program runs traced (over tests/progs/gdb-loop).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"
#include "rsp_client.h"

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* The stub exits 0 once its input is closed. */
static void stop(struct rsp_client *s)
{
	EXPECT_EQ(rsp_hang_up(s), 0);
}

TEST(gdb_protocol, errors_and_interrupt)
{
	static char big[0x4000 + 64];
	struct rsp_client s;
	const char *r;
	int i;

	gdb_stub_start(&s, "gdb-loop");
	r = rsp_ask(&s, "qSupported:swbreak+;xmlRegisters=i386");
	EXPECT_STREQ(r, "PacketSize=4000;QStartNoAckMode+;swbreak+;"
			"qXfer:auxv:read+;qXfer:exec-file:read+;"
			"qXfer:features:read+;Qbtrace:bts+;"
			"Qbtrace-conf:bts:size+;Qbtrace:off+;qXfer:btrace:read+;"
			"qXfer:btrace-conf:read+");
	rsp_put(&s, "$g#00", 5);		/* bad checksum */
	EXPECT_EQ(rsp_get(&s), '-');
	EXPECT_STREQ(rsp_ask(&s, "vMustReplyEmpty"), "");
	EXPECT_STREQ(rsp_ask(&s, "m0,10"), "E01");
	EXPECT_STREQ(rsp_ask(&s, "mzz"), "E01");
	EXPECT_STREQ(rsp_ask(&s, "Z0,1"), "E01");
	EXPECT_STREQ(rsp_ask(&s, "vCont;x"), "E01");
	EXPECT_STREQ(rsp_ask(&s, "Hg7fffffff"), "E.No such thread.");
	memset(big, 'm', sizeof(big) - 1);
	EXPECT_STREQ(rsp_ask(&s, "%s", big), "E01");	/* longer than PacketSize */
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace:xyz"),
		     "E.Bad Qbtrace operation.  Use bts, pt, or off.");
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace-conf:bts:size=0x1ffffffff"), "E.Bad size value.");
	EXPECT_STREQ(rsp_ask(&s, "qXfer:btrace:read:all:0,1000"), "E.Btrace not enabled.");
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace:off"), "E.Branch tracing not enabled.");
	/* Two records kept: the run below overflows them. */
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace-conf:bts:size=0x30"), "OK");
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace:bts"), "OK");
	EXPECT_STREQ(rsp_ask(&s, "Qbtrace:bts"), "E.Btrace already enabled.");
	EXPECT_STREQ(rsp_ask(&s, "qXfer:btrace:read:bogus:0,1000"), "E.Bad annex.");
	EXPECT_STREQ(rsp_ask(&s, "qXfer:btrace-conf:read::0,1000"),
		     "l<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
		     "<btrace-conf version=\"1.0\">\n<bts size=\"0x30\" />\n"
		     "</btrace-conf>\n");
	EXPECT_STREQ(rsp_ask(&s, "QStartNoAckMode"), "OK");
	s.noack = true;
	/* 200 instructions of the dynamic loader: more than two branches. */
	for (i = 0; i < 200; i++) {
		r = rsp_ask(&s, "s");
		if (strncmp(r, "T05", 3))
			FAIL("step %d: %s", i, r);
	}
	/* gdb's reads after a loss: delta fails, all has the newest two. */
	EXPECT_STREQ(rsp_ask(&s, "qXfer:btrace:read:delta:0,1000"), "E.Overflow.");
	r = rsp_ask(&s, "qXfer:btrace:read:all:0,1000");
	EXPECT_TRUE(!strncmp(r, "l<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
			     "<btrace version=\"1.0\">\n<block begin=\"0x", 64));
	EXPECT_TRUE(strstr(r, "\"/>\n</btrace>\n") != NULL);
	EXPECT_EQ(count(r, "<block "), 2);
	EXPECT_STREQ(rsp_ask(&s, "qXfer:btrace:read:new:0,1000"),
		     "l<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
		     "<btrace version=\"1.0\">\n</btrace>\n");
	/* Runs traced until Ctrl-C: a SIGINT stop of a thread of its own. */
	rsp_send(&s, "vCont;c");
	rsp_put(&s, "\003", 1);
	r = rsp_reply(&s);
	EXPECT_TRUE(!strncmp(r, "T02", 3) && strstr(r, ";thread:"));
	EXPECT_STREQ(rsp_ask(&s, "vKill;a410"), "OK");
	stop(&s);
}

/*
 * An exec, when gdb asks for exec events: "exec:" and the new program's
 * path in hex, the stop's pc the new image's first instruction.
 */
TEST(gdb_protocol, exec_stop_reply)
{
	char *path = PROG_PATH("gdb-exec"), *real = realpath(path, NULL);
	char want[4096];
	const char *r;
	size_t i, n;
	struct rsp_client s;

	ASSERT_TRUE(real != NULL);
	gdb_stub_start(&s, "gdb-exec");
	r = rsp_ask(&s, "qSupported:swbreak+;fork-events+;exec-events+");
	EXPECT_TRUE(strstr(r, ";exec-events+;") != NULL);
	EXPECT_TRUE(strstr(r, "fork-events") == NULL);	/* not offered */
	n = (size_t)snprintf(want, sizeof(want), "T05exec:");
	for (i = 0; real[i] && n + 3 < sizeof(want); i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%02x",
				      (unsigned char)real[i]);
	snprintf(want + n, sizeof(want) - n, ";");
	r = rsp_ask(&s, "vCont;c");
	EXPECT_TRUE(!strncmp(r, want, strlen(want)));
	EXPECT_TRUE(strstr(r, ";thread:") != NULL);
	/* On to the end: the new image exits with 4. */
	EXPECT_STREQ(rsp_ask(&s, "vCont;c"), "W04");
	stop(&s);
	free(real);
	free(path);
}

/* Bad command lines: one line on stderr, exit code 2 (usage) or 1. */
TEST(gdb_protocol, bad_command_lines)
{
	static const struct {
		int code;
		const char *line;
		const char *args[4];
	} cases[] = {
		{ 2, "btrace: gdbserver: no program given (see 'btrace gdbserver --help')\n", { NULL } },
		{ 2, "btrace: gdbserver: --persist needs --listen\n", { "--persist", "--", "x" } },
		{ 2, "btrace: gdbserver: --listen 1.2.3.4:x: expected HOST:PORT, :PORT or PORT\n",
		  { "--listen", "1.2.3.4:x", "--", "x" } },
		{ 2, "btrace: gdbserver: give a program or --attach PID, not both\n",
		  { "--attach", "1", "x" } },
		{ 1, "btrace: gdbserver: no-such-program-here: program not found\n",
		  { "no-such-program-here" } },
	};
	char *btrace = BTRACE_PATH();
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = { btrace, "gdbserver" };
		struct harness_cmd cmd;

		for (k = 0; k < 4 && cases[i].args[k]; k++)
			argv[2 + k] = (char *)cases[i].args[k];
		argv[2 + k] = NULL;
		if (harness_run(argv, GDB_TIMEOUT, &cmd))
			FAIL("cannot run btrace");
		EXPECT_EQ(harness_exit_code(&cmd), cases[i].code);
		EXPECT_STREQ(cmd.err, cases[i].line);
		EXPECT_STREQ(cmd.out, "");
		harness_cmd_free(&cmd);
	}
	free(btrace);
}
