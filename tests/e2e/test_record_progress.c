// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record's progress line: on a terminal it is rewritten in place
 * and erased at the end, so the summary line is all a finished recording
 * leaves; --no-progress keeps a terminal quiet, --progress shows it on a
 * pipe, and a pipe alone gets no line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"

#define LIMIT_S 60
#define ERASE "\r\033[K"
/* A slow ptrace-step recording's line, which stays among the progress lines. */
#define HINT_RE "^btrace: ptrace-step stops at every instruction " \
	"\\([0-9.]+[kM]? branches/s\\): --source qemu-user records under " \
	"emulation, far faster, but the program sees QEMU's CPU model$"

static bool matches(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	ASSERT_EQ(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = !regexec(&r, s, 0, NULL, 0);
	regfree(&r);
	return ok;
}

struct pty_run {
	int master;
	pid_t pid;
	char out[1 << 16];
	size_t len;
};

/* @argv in a session of its own, the pty's slave its terminal and stdio. */
static void pty_start(struct pty_run *p, char *const argv[])
{
	p->len = 0;
	p->master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_TRUE(p->master >= 0);
	ASSERT_EQ(grantpt(p->master), 0);
	ASSERT_EQ(unlockpt(p->master), 0);
	p->pid = fork();
	ASSERT_TRUE(p->pid >= 0);
	if (!p->pid) {
		struct termios t;
		int slave;

		setsid();
		slave = open(ptsname(p->master), O_RDWR);
		if (slave < 0 || tcgetattr(slave, &t))
			_exit(126);
		/* No echo: ^C would show as text among the lines. */
		t.c_lflag &= ~ECHO;
		tcsetattr(slave, TCSANOW, &t);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		execv(argv[0], argv);
		_exit(127);
	}
}

/*
 * Reads the terminal until @want shows up in what was read (true), or
 * until the slave side is closed (false).
 */
static bool pty_read(struct pty_run *p, const char *want)
{
	time_t end = time(NULL) + LIMIT_S;

	while (time(NULL) < end) {
		struct pollfd pfd = { .fd = p->master, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		n = read(p->master, p->out + p->len, sizeof(p->out) - 1 - p->len);
		if (n <= 0)
			return false;	/* EIO: every slave fd is closed */
		p->len += n;
		p->out[p->len] = 0;
		if (want && strstr(p->out, want))
			return true;
	}
	kill(p->pid, SIGKILL);
	FAIL("no %s on the terminal within %d s; got:\n%s",
	     want ? want : "end", LIMIT_S, p->out);
}

static int pty_finish(struct pty_run *p)
{
	int status;

	pty_read(p, NULL);
	close(p->master);
	ASSERT_EQ(waitpid(p->pid, &status, 0), p->pid);
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* The text after the last erase: the summary line and nothing else. */
static void expect_only_summary(const char *out, const char *eol)
{
	const char *last = out, *p;
	char re[256];

	for (p = out; (p = strstr(p, ERASE)); p += strlen(ERASE))
		last = p + strlen(ERASE);
	snprintf(re, sizeof(re), "^btrace: recorded 1 thread, [0-9]+ records, "
		 "0 lost \\([a-z-]+\\) to [^\r\n]+%s$", eol);
	if (!matches(re, last))
		FAIL("not the summary alone after the last erase:\n%s", out);
}

/* A terminal: live lines, then only the summary is left. */
TEST(record_progress, terminal_shows_then_erases)
{
	char *btr = harness_path(harness_tmpdir(), "p.btr");
	char *pidfile = harness_path(harness_tmpdir(), "pid");
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "--",
			 PROG_PATH("cli-loop"), pidfile, NULL };
	static const char line_re[] =
		"^btrace: [0-9]+\\.[0-9]s, [0-9.]+[kMGT]? records "
		"\\([0-9.]+[kMGT]?/s, [0-9.]+[kMGT]?B\\), 1 thread$";
	struct pty_run p;
	char *s, *save, *l;

	pty_start(&p, argv);
	/* A whole line: the next one starts with the erase. */
	while (!pty_read(&p, " thread" ERASE))
		FAIL("btrace ended early:\n%s", p.out);
	/* The program handles SIGINT from main on. */
	while (access(pidfile, F_OK))
		if (!pty_read(&p, " thread" ERASE))
			FAIL("btrace ended early:\n%s", p.out);
	ASSERT_EQ(write(p.master, "\x03", 1), 1);	/* cli-loop exits 42 */
	EXPECT_EQ(pty_finish(&p), 42);
	expect_only_summary(p.out, "\r\n");
	/*
	 * Every line before it is a progress line, erased by the next, or
	 * the hint of a slow ptrace-step recording (on this line's own, up
	 * to its \r\n).
	 */
	s = strndup(p.out, strstr(p.out, "btrace: recorded") - p.out);
	for (l = strtok_r(s, "\r", &save); l; l = strtok_r(NULL, "\r", &save)) {
		if (!strcmp(l, "\n"))
			continue;
		ASSERT_EQ(strncmp(l, "\033[K", 3), 0);
		if (l[3] && !matches(line_re, l + 3) && !matches(HINT_RE, l + 3))
			FAIL("not a progress line: %s", l + 3);
	}
	free(s);
	free(argv[0]);
	free(argv[5]);
	free(pidfile);
	free(btr);
}

/* --no-progress: a terminal sees the summary line alone. */
TEST(record_progress, no_progress_on_a_terminal)
{
	char *btr = harness_path(harness_tmpdir(), "q.btr");
	char *argv[] = { BTRACE_PATH(), "record", "--no-progress", "-o", btr,
			 "--", PROG_PATH("cli-exit"), "0", NULL };
	struct pty_run p;

	pty_start(&p, argv);
	EXPECT_EQ(pty_finish(&p), 0);
	EXPECT_TRUE(strchr(p.out, '\033') == NULL);
	expect_only_summary(p.out, "\r\n");
	free(argv[0]);
	free(argv[6]);
	free(btr);
}

/* A pipe: no line unless --progress asks for it. */
TEST(record_progress, pipe_only_with_progress)
{
	char *btr = harness_path(harness_tmpdir(), "r.btr");
	struct harness_cmd c;
	char *prog = PROG_PATH("cli-exit");

	ASSERT_EQ(harness_btrace(&c, LIMIT_S, "record", "-o", btr, "--", prog,
				 "0", NULL), 0);
	EXPECT_TRUE(strchr(c.err, '\r') == NULL);
	expect_only_summary(c.err, "\n");
	harness_cmd_free(&c);
	ASSERT_EQ(harness_btrace(&c, LIMIT_S, "record", "--progress", "-o", btr,
				 "--", prog, "0", NULL), 0);
	EXPECT_TRUE(strstr(c.err, ERASE) != NULL);
	expect_only_summary(c.err, "\n");
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, LIMIT_S, "record", "--progress",
				 "--no-progress", "--", prog, "0", NULL), 125);
	EXPECT_TRUE(strstr(c.err, "exclude each other") != NULL);
	harness_cmd_free(&c);
	free(prog);
	free(btr);
}

/* How many times @out names --source qemu-user, each on a line of its own. */
static int hints(const char *out)
{
	const char *p = out;
	char *line;
	int n = 0;

	while ((p = strstr(p, ERASE "btrace: ptrace-step "))) {
		p += strlen(ERASE);
		line = strndup(p, strcspn(p, "\n"));
		if (!matches(HINT_RE, line))
			FAIL("not the hint: %s", line);
		free(line);
		n++;
	}
	return n;
}

/*
 * ptrace-step, slow for a few seconds (it stops at every instruction):
 * one line, once, names --source qemu-user; the progress line goes on
 * and the summary is still all that follows the last erase.  A shorter
 * recording gets no such line, nor does one without the progress line.
 */
TEST(record_progress, slow_ptrace_step_names_qemu_user_once)
{
	char *btr = harness_path(harness_tmpdir(), "s.btr");
	char *prog = PROG_PATH("speed-spin");
	struct harness_cmd c;

	ASSERT_EQ(setenv("SPEED_SPIN", "spin", 1), 0);
	EXPECT_EQ(harness_btrace(&c, LIMIT_S, "record", "--progress", "--source",
				 "ptrace-step", "--duration", "6", "-o", btr,
				 "--", prog, NULL), 137);
	EXPECT_EQ(hints(c.err), 1);
	expect_only_summary(c.err, "\n");
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, LIMIT_S, "record", "--progress", "--source",
				 "ptrace-step", "--duration", "1", "-o", btr,
				 "--", prog, NULL), 137);
	EXPECT_EQ(hints(c.err), 0);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, LIMIT_S, "record", "--source", "ptrace-step",
				 "--duration", "6", "-o", btr, "--", prog, NULL), 137);
	EXPECT_EQ(hints(c.err), 0);
	harness_cmd_free(&c);
	unsetenv("SPEED_SPIN");
	free(prog);
	free(btr);
}
