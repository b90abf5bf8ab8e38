// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The byte streams the stub speaks over: a pair of descriptors (stdin and
 * stdout for `target remote | btrace gdbserver ...`) or an accepted TCP
 * connection.  Reads are buffered so that bytes read while the program
 * runs (looking for Ctrl-C) are not lost.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport.h"

void conn_init(struct conn *cn, int in, int out)
{
	memset(cn, 0, sizeof(*cn));
	cn->in = in;
	cn->out = out;
	cn->stop_fd = -1;
}

/* Waits until @fd is readable: false when @stop_fd became readable first. */
static bool readable(int fd, int stop_fd)
{
	struct pollfd p[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	int n;

	if (stop_fd < 0)
		return true;
	do
		n = poll(p, 2, -1);
	while (n < 0 && errno == EINTR);
	return !(p[1].revents & POLLIN);
}

void conn_close(struct conn *cn)
{
	if (cn->in >= 0)
		close(cn->in);
	if (cn->out >= 0 && cn->out != cn->in)
		close(cn->out);
	cn->in = cn->out = -1;
}

/* More bytes into the buffer: > 0, or 0 at the end, or -1 on an error. */
static int fill(struct conn *cn)
{
	ssize_t n;

	if (cn->pos == cn->len)
		cn->pos = cn->len = 0;
	if (cn->len == sizeof(cn->buf)) {
		memmove(cn->buf, cn->buf + cn->pos, cn->len - cn->pos);
		cn->len -= cn->pos;
		cn->pos = 0;
		if (cn->len == sizeof(cn->buf))
			return -1;
	}
	do
		n = readable(cn->in, cn->stop_fd) ?
		    read(cn->in, cn->buf + cn->len, sizeof(cn->buf) - cn->len) : 0;
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		cn->eof = true;
		return n < 0 ? -1 : 0;
	}
	cn->len += (size_t)n;
	return 1;
}

int conn_getc(struct conn *cn)
{
	if (cn->pos == cn->len && (cn->eof || fill(cn) <= 0))
		return -1;
	return cn->buf[cn->pos++];
}

int conn_take_interrupt(struct conn *cn)
{
	size_t i, j;
	int found = 0;

	/* Ctrl-C bytes come out; anything else waits for the next read. */
	for (i = j = cn->pos; i < cn->len; i++) {
		if (cn->buf[i] == 0x03)
			found = 1;
		else
			cn->buf[j++] = cn->buf[i];
	}
	cn->len = j;
	return found;
}

int conn_poll_interrupt(struct conn *cn)
{
	if (cn->eof || fill(cn) <= 0)
		return -1;
	return conn_take_interrupt(cn);
}

int conn_write(struct conn *cn, const void *p, size_t n)
{
	const char *q = p;
	ssize_t w;

	while (n) {
		w = write(cn->out, q, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * "HOST:PORT", "[HOST]:PORT" (an IPv6 address, as gdb writes it), ":PORT"
 * or "PORT"; the host defaults to the loopback.  NULL, or what is wrong.
 */
static const char *split(const char *spec, char *host, size_t hlen,
			 char *port, size_t plen)
{
	const char *colon = strrchr(spec, ':'), *h = spec, *digits;
	size_t n = colon ? (size_t)(colon - spec) : 0;
	unsigned long v;

	if (n >= 2 && spec[0] == '[' && spec[n - 1] == ']') {
		h++;
		n -= 2;
	}
	if (n >= hlen)
		return "expected HOST:PORT, :PORT or PORT";
	snprintf(host, hlen, "%.*s", (int)n, h);
	if (!n)
		snprintf(host, hlen, "127.0.0.1");
	digits = colon ? colon + 1 : spec;
	n = strlen(digits);
	if (!n || n >= plen || strspn(digits, "0123456789") != n)
		return "expected HOST:PORT, :PORT or PORT";
	v = strtoul(digits, NULL, 10);
	if (n > 5 || v > 65535)
		return "port out of range (0 to 65535)";
	snprintf(port, plen, "%lu", v);
	return NULL;
}

int listen_on(const char *spec, char *where, size_t wlen, const char **why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	char host[256], port[16], h[128], p[16];
	struct addrinfo *ai;
	int fd, one = 1, r;

	*why = split(spec, host, sizeof(host), port, sizeof(port));
	if (*why)
		return -1;
	r = getaddrinfo(host, port, &hints, &ai);
	if (r) {
		*why = gai_strerror(r);
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen)) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	if (getnameinfo((struct sockaddr *)&sa, salen, h, sizeof(h), p, sizeof(p),
			NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(where, wlen, "%s:%s", host, port);
	else if (strchr(h, ':'))
		snprintf(where, wlen, "[%s]:%s", h, p);	/* as gdb takes it */
	else
		snprintf(where, wlen, "%s:%s", h, p);
	return fd;
}

int accept_one(int lfd, int stop_fd)
{
	int fd, one = 1;

	do {
		if (!readable(lfd, stop_fd)) {
			errno = EINTR;
			return -1;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd >= 0)
		/* Packets are small and answered one by one. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}
