/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stub's byte streams: stdin/stdout or a TCP connection (transport.c). */
#ifndef BTRACE_GDB_TRANSPORT_H
#define BTRACE_GDB_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conn {
	int in, out;
	int stop_fd;		/* readable: end as at the end of the stream; -1 */
	bool eof;
	uint8_t buf[4096];
	size_t pos, len;
};

void conn_init(struct conn *cn, int in, int out);
void conn_close(struct conn *cn);
/* The next byte (blocking), or -1 at the end of the stream. */
int conn_getc(struct conn *cn);
/*
 * Reads what is readable now (call when poll says so): 1 when a Ctrl-C
 * (0x03) came, taken out of the stream; 0 when not; -1 at the end.
 */
int conn_poll_interrupt(struct conn *cn);
/* The same for the bytes already read: 1 when a Ctrl-C was among them. */
int conn_take_interrupt(struct conn *cn);
int conn_write(struct conn *cn, const void *p, size_t n);

/*
 * A listening socket on @spec (HOST:PORT, :PORT or PORT; the loopback
 * unless a host is given), its address in @where; -1 and @why on failure.
 */
int listen_on(const char *spec, char *where, size_t wlen, const char **why);
/* The next connection, or -1 (errno EINTR when @stop_fd became readable). */
int accept_one(int lfd, int stop_fd);

#endif /* BTRACE_GDB_TRANSPORT_H */
