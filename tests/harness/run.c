// SPDX-License-Identifier: GPL-2.0-or-later
/* Running a command to its end with both outputs captured. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

struct sink {
	char *buf;
	size_t len, cap;
};

static int sink_fill(struct sink *s, int fd)
{
	char tmp[65536];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, tmp, n);
	s->len += n;
	s->buf[s->len] = 0;
	return 1;
}

static void child(char *const argv[], int out, int err)
{
	int null = open("/dev/null", O_RDONLY);

	dup2(null, 0);
	dup2(out, 1);
	dup2(err, 2);
	execv(argv[0], argv);
	dprintf(2, "harness: cannot run %s: %m\n", argv[0]);
	_exit(127);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void *harness_grow(void *p, size_t n, size_t size)
{
	if (n & (n - 1))	/* neither 0 nor a power of two: room is left */
		return p;
	p = realloc(p, (n ? 2 * n : 1) * size);
	if (!p)
		abort();
	return p;
}

int harness_run(char *const argv[], int timeout_s, struct harness_cmd *cmd)
{
	struct sink out = { 0 }, err = { 0 };
	int po[2], pe[2];
	double deadline = now() + timeout_s;
	pid_t pid;

	memset(cmd, 0, sizeof(*cmd));
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		child(argv, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);

	struct pollfd pfd[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		int left = (int)((deadline - now()) * 1000);

		if (left <= 0) {
			harness_fail(__FILE__, __LINE__, "%s: timed out after %d s",
				     argv[0], timeout_s);
			kill(pid, SIGKILL);
			break;
		}
		if (poll(pfd, 2, left) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (!sink_fill(i ? &err : &out, pfd[i].fd)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	while (waitpid(pid, &cmd->status, 0) < 0 && errno == EINTR)
		;
	cmd->out = out.buf ? out.buf : strdup("");
	cmd->out_len = out.len;
	cmd->err = err.buf ? err.buf : strdup("");
	cmd->err_len = err.len;
	return 0;
}

void harness_cmd_free(struct harness_cmd *cmd)
{
	free(cmd->out);
	free(cmd->err);
	memset(cmd, 0, sizeof(*cmd));
}

int harness_exit_code(const struct harness_cmd *cmd)
{
	if (WIFSIGNALED(cmd->status))
		return 128 + WTERMSIG(cmd->status);
	return WEXITSTATUS(cmd->status);
}

unsigned long harness_aslr_off(void)
{
	unsigned long persona = (unsigned long)personality(0xffffffff);

	personality(persona | ADDR_NO_RANDOMIZE);
	return persona;
}

void harness_aslr_restore(unsigned long persona)
{
	personality(persona);
}

static bool regex_matches(const char *re, const char *s, int cflags)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB | cflags))
		abort();
	ok = !regexec(&r, s, 0, NULL, 0);
	regfree(&r);
	return ok;
}

bool harness_matches(const char *re, const char *s)
{
	return regex_matches(re, s, 0);
}

bool harness_matches_lines(const char *re, const char *s)
{
	return regex_matches(re, s, REG_NEWLINE);
}
