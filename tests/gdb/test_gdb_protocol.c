// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stub's protocol, byte for byte, without gdb: acks, a bad checksum,
 * malformed, oversized and unknown packets, btrace errors, no-ack mode,
 * and Ctrl-C while the program runs traced (over tests/progs/gdb-loop).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdb_util.h"

struct stub {
	pid_t pid;
	int to, from;		/* its stdin, its stdout */
	char buf[65536];
	size_t len;
};

static void start(struct stub *s, const char *prog)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH(prog);
	int in[2], out[2];

	if (pipe(in) || pipe(out))
		FAIL("pipe");
	s->pid = fork();
	if (s->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(btrace, btrace, "gdbserver", "--", path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->to = in[1];
	s->from = out[0];
	s->len = 0;
	free(btrace);
	free(path);
}

static void put(struct stub *s, const void *p, size_t n)
{
	if (write(s->to, p, n) != (ssize_t)n)
		FAIL("writing to the stub: %s", strerror(errno));
}

static void send_packet(struct stub *s, const char *payload)
{
	char head[16];
	unsigned int sum = 0;
	size_t i;

	for (i = 0; payload[i]; i++)
		sum += (unsigned char)payload[i];
	put(s, "$", 1);
	put(s, payload, strlen(payload));
	snprintf(head, sizeof(head), "#%02x", sum & 0xff);
	put(s, head, 3);
}

/* One byte from the stub, waiting up to 10 s. */
static int get(struct stub *s)
{
	struct pollfd p = { s->from, POLLIN, 0 };
	unsigned char c;

	if (poll(&p, 1, 10000) != 1 || read(s->from, &c, 1) != 1)
		FAIL("no answer from the stub (after \"%.40s\")", s->buf);
	return c;
}

/* The next reply's payload (acks before it skipped); acks it when @ack. */
static const char *reply(struct stub *s, bool ack)
{
	int c;

	while ((c = get(s)) != '$')
		if (c != '+')
			FAIL("unexpected byte 0x%02x from the stub", c);
	s->len = 0;
	while ((c = get(s)) != '#' && s->len < sizeof(s->buf) - 1)
		s->buf[s->len++] = (char)c;
	s->buf[s->len] = '\0';
	get(s);
	get(s);
	if (ack)
		put(s, "+", 1);
	return s->buf;
}

static const char *ask(struct stub *s, const char *payload)
{
	send_packet(s, payload);
	return reply(s, true);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void stop(struct stub *s)
{
	int status;

	close(s->to);
	close(s->from);
	waitpid(s->pid, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(gdb_protocol, errors_and_interrupt)
{
	static char big[0x4000 + 64];
	struct stub s;
	const char *r;
	int i;

	start(&s, "gdb-loop");
	r = ask(&s, "qSupported:swbreak+;xmlRegisters=i386");
	EXPECT_STREQ(r, "PacketSize=4000;QStartNoAckMode+;swbreak+;"
			"qXfer:auxv:read+;qXfer:exec-file:read+;"
			"qXfer:features:read+;Qbtrace:bts+;"
			"Qbtrace-conf:bts:size+;Qbtrace:off+;qXfer:btrace:read+;"
			"qXfer:btrace-conf:read+");
	put(&s, "$g#00", 5);			/* bad checksum */
	EXPECT_EQ(get(&s), '-');
	EXPECT_STREQ(ask(&s, "vMustReplyEmpty"), "");
	EXPECT_STREQ(ask(&s, "m0,10"), "E01");
	EXPECT_STREQ(ask(&s, "mzz"), "E01");
	EXPECT_STREQ(ask(&s, "Z0,1"), "E01");
	EXPECT_STREQ(ask(&s, "vCont;x"), "E01");
	EXPECT_STREQ(ask(&s, "Hg7fffffff"), "E.No such thread.");
	memset(big, 'm', sizeof(big) - 1);
	EXPECT_STREQ(ask(&s, big), "E01");	/* longer than PacketSize */
	EXPECT_STREQ(ask(&s, "Qbtrace:xyz"),
		     "E.Bad Qbtrace operation.  Use bts, pt, or off.");
	EXPECT_STREQ(ask(&s, "Qbtrace-conf:bts:size=0x1ffffffff"), "E.Bad size value.");
	EXPECT_STREQ(ask(&s, "qXfer:btrace:read:all:0,1000"), "E.Btrace not enabled.");
	EXPECT_STREQ(ask(&s, "Qbtrace:off"), "E.Branch tracing not enabled.");
	/* Two records kept: the run below overflows them. */
	EXPECT_STREQ(ask(&s, "Qbtrace-conf:bts:size=0x30"), "OK");
	EXPECT_STREQ(ask(&s, "Qbtrace:bts"), "OK");
	EXPECT_STREQ(ask(&s, "Qbtrace:bts"), "E.Btrace already enabled.");
	EXPECT_STREQ(ask(&s, "qXfer:btrace:read:bogus:0,1000"), "E.Bad annex.");
	EXPECT_STREQ(ask(&s, "qXfer:btrace-conf:read::0,1000"),
		     "l<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
		     "<btrace-conf version=\"1.0\">\n<bts size=\"0x30\" />\n"
		     "</btrace-conf>\n");
	EXPECT_STREQ(ask(&s, "QStartNoAckMode"), "OK");
	/* 200 instructions of the dynamic loader: more than two branches. */
	for (i = 0; i < 200; i++) {
		r = (send_packet(&s, "s"), reply(&s, false));
		if (strncmp(r, "T05", 3))
			FAIL("step %d: %s", i, r);
	}
	/* gdb's reads after a loss: delta fails, all has the newest two. */
	EXPECT_STREQ((send_packet(&s, "qXfer:btrace:read:delta:0,1000"),
		      reply(&s, false)), "E.Overflow.");
	r = (send_packet(&s, "qXfer:btrace:read:all:0,1000"), reply(&s, false));
	EXPECT_TRUE(!strncmp(r, "l<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
			     "<btrace version=\"1.0\">\n<block begin=\"0x", 64));
	EXPECT_TRUE(strstr(r, "\"/>\n</btrace>\n") != NULL);
	EXPECT_EQ(count(r, "<block "), 2);
	EXPECT_STREQ((send_packet(&s, "qXfer:btrace:read:new:0,1000"),
		      reply(&s, false)),
		     "l<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
		     "<btrace version=\"1.0\">\n</btrace>\n");
	/* Runs traced until Ctrl-C: a SIGINT stop of a thread of its own. */
	send_packet(&s, "vCont;c");
	put(&s, "\003", 1);
	r = reply(&s, false);
	EXPECT_TRUE(!strncmp(r, "T02", 3) && strstr(r, ";thread:"));
	EXPECT_STREQ((send_packet(&s, "vKill;a410"), reply(&s, false)), "OK");
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
	struct stub s;

	ASSERT_TRUE(real != NULL);
	start(&s, "gdb-exec");
	r = ask(&s, "qSupported:swbreak+;fork-events+;exec-events+");
	EXPECT_TRUE(strstr(r, ";exec-events+;") != NULL);
	EXPECT_TRUE(strstr(r, "fork-events") == NULL);	/* not offered */
	n = (size_t)snprintf(want, sizeof(want), "T05exec:");
	for (i = 0; real[i] && n + 3 < sizeof(want); i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%02x",
				      (unsigned char)real[i]);
	snprintf(want + n, sizeof(want) - n, ";");
	r = ask(&s, "vCont;c");
	EXPECT_TRUE(!strncmp(r, want, strlen(want)));
	EXPECT_TRUE(strstr(r, ";thread:") != NULL);
	/* On to the end: the new image exits with 4. */
	EXPECT_STREQ(ask(&s, "vCont;c"), "W04");
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
