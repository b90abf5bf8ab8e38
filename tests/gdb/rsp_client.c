// SPDX-License-Identifier: GPL-2.0-or-later
/* A raw gdb remote-protocol client for the stub's tests (rsp_client.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "rsp_client.h"

void rsp_start(struct rsp_client *c, char *const argv[], int reply_ms)
{
	int in[2], out[2];

	memset(c, 0, sizeof(*c));
	c->reply_ms = reply_ms;
	if (pipe(in) || pipe(out))
		FAIL("pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	if (c->pid < 0)
		FAIL("fork: %s", strerror(errno));
	close(in[0]);
	close(out[1]);
	c->to = in[1];
	c->from = out[0];
}

void rsp_put(struct rsp_client *c, const void *p, size_t n)
{
	if (write(c->to, p, n) != (ssize_t)n)
		FAIL("writing to the stub: %s", strerror(errno));
}

void rsp_send(struct rsp_client *c, const char *payload)
{
	unsigned int sum = 0;
	char tail[4];
	size_t i;

	for (i = 0; payload[i]; i++)
		sum += (unsigned char)payload[i];
	rsp_put(c, "$", 1);
	rsp_put(c, payload, strlen(payload));
	snprintf(tail, sizeof(tail), "#%02x", sum & 0xff);
	rsp_put(c, tail, 3);
}

int rsp_get(struct rsp_client *c)
{
	struct pollfd p = { c->from, POLLIN, 0 };
	unsigned char ch;

	if (poll(&p, 1, c->reply_ms) != 1 || read(c->from, &ch, 1) != 1)
		FAIL("no answer from the stub (after \"%.60s\")", c->buf);
	return ch;
}

const char *rsp_reply(struct rsp_client *c)
{
	int ch;

	while ((ch = rsp_get(c)) != '$')
		if (ch != '+')
			FAIL("unexpected byte 0x%02x from the stub", ch);
	c->len = 0;
	while ((ch = rsp_get(c)) != '#' && c->len < sizeof(c->buf) - 1)
		c->buf[c->len++] = (char)ch;
	c->buf[c->len] = '\0';
	rsp_get(c);		/* the checksum */
	rsp_get(c);
	if (!c->noack)
		rsp_put(c, "+", 1);
	return c->buf;
}

const char *rsp_ask(struct rsp_client *c, const char *fmt, ...)
{
	va_list ap;
	char *pkt;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&pkt, fmt, ap);
	va_end(ap);
	if (n < 0)
		FAIL("out of memory");
	rsp_send(c, pkt);
	free(pkt);
	return rsp_reply(c);
}

int rsp_hang_up(struct rsp_client *c)
{
	int status;

	close(c->to);
	close(c->from);
	if (waitpid(c->pid, &status, 0) != c->pid)
		FAIL("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
