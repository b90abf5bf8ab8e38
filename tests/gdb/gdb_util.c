// SPDX-License-Identifier: GPL-2.0-or-later
/* Running real gdb against `btrace gdbserver` (gdb_util.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gdb_util.h"
#include "rsp_client.h"

void gdb_stub_start(struct rsp_client *s, const char *prog)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH(prog);
	char *argv[] = { btrace, "gdbserver", "--", path, NULL };

	rsp_start(s, argv, 10000);
	free(btrace);
	free(path);
}

char *gdb_target(const char *prog, const char *stub_args)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH(prog), *t;

	if (asprintf(&t, "target remote | %s gdbserver %s -- %s", btrace,
		     stub_args ? stub_args : "", path) < 0)
		FAIL("out of memory");
	free(btrace);
	free(path);
	return t;
}

/* gdb as the PATH finds it (the harness runs a path, not a name). */
static char *gdb_path(void)
{
	const char *p = getenv("PATH");
	char dir[4096], *path;
	size_t n;

	while (p && *p) {
		n = strcspn(p, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
		if (asprintf(&path, "%s/gdb", dir) < 0)
			FAIL("out of memory");
		if (!access(path, X_OK))
			return path;
		free(path);
		p += n + (p[n] == ':');
	}
	FAIL("gdb is not installed (scripts/deps installs it)");
}

void gdb_run(struct harness_cmd *cmd, const char *prog, const char *target,
	     const char *const *cmds)
{
	char *argv[128], *path = PROG_PATH(prog), *t = NULL;
	int n = 0;

	argv[n++] = gdb_path();
	argv[n++] = "-batch";
	argv[n++] = "-nx";
	argv[n++] = "-q";
	argv[n++] = "-iex";
	argv[n++] = "set pagination off";
	argv[n++] = "-iex";
	argv[n++] = "set width 0";
	/*
	 * The stub answers once the program is started and stopped, which
	 * on a loaded machine can take longer than gdb's 2 s: gdb would send
	 * qSupported again and take the second answer for the next packet's.
	 */
	argv[n++] = "-iex";
	argv[n++] = "set remotetimeout 30";
	argv[n++] = path;
	argv[n++] = "-ex";
	argv[n++] = target ? (char *)target : (t = gdb_target(prog, NULL));
	for (; *cmds && n < 124; cmds++) {
		argv[n++] = "-ex";
		argv[n++] = (char *)*cmds;
	}
	argv[n] = NULL;
	if (harness_run(argv, GDB_TIMEOUT, cmd))
		FAIL("cannot run gdb");
	free(argv[0]);
	free(path);
	free(t);
}

char *gdb_section(const struct harness_cmd *cmd, const char *name)
{
	char begin[128], end[128];
	const char *b, *e;

	snprintf(begin, sizeof(begin), "@@begin %s\n", name);
	snprintf(end, sizeof(end), "@@end %s\n", name);
	b = strstr(cmd->out, begin);
	e = b ? strstr(b, end) : NULL;
	if (!b || !e)
		FAIL("no section %s in gdb's output:\n%s\nstderr:\n%s", name,
		     cmd->out, cmd->err);
	b += strlen(begin);
	return strndup(b, (size_t)(e - b));
}

void gdb_expect_out(const struct harness_cmd *cmd, const char *text)
{
	if (!strstr(cmd->out, text))
		FAIL("expected \"%s\" in gdb's output:\n%s\nstderr:\n%s", text,
		     cmd->out, cmd->err);
}

void gdb_expect_process(const struct harness_cmd *cmd, const char *before,
			const char *after)
{
	char head[256];
	const char *p = cmd->out, *d;

	snprintf(head, sizeof(head), "%sprocess ", before);
	while ((p = strstr(p, head))) {
		p += strlen(head);
		for (d = p; *d >= '0' && *d <= '9'; d++)
			;
		if (d > p && !strncmp(d, after, strlen(after)))
			return;
	}
	FAIL("expected \"%sprocess PID%s\" in gdb's output:\n%s\nstderr:\n%s",
	     before, after, cmd->out, cmd->err);
}

void gdb_read_line(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && !memchr(buf, '\n', len)) {
		n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
}

bool gdb_wait_gone(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1000; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}
