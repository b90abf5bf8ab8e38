/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A raw gdb remote-protocol client, byte for byte (no gdb): for the stub's
 * protocol tests on the host (tests/gdb/test_gdb_protocol.c) and in the
 * kernel guest (tests/kernel/test_gdbserver.c, a static build without the
 * host's test files, so this needs nothing but the harness).  Every
 * failure fails the test (FAIL).
 */
#ifndef TESTS_GDB_RSP_CLIENT_H
#define TESTS_GDB_RSP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rsp_client {
	pid_t pid;		/* the stub */
	int to, from;		/* its stdin, its stdout */
	int reply_ms;		/* how long one byte of a reply may take */
	bool noack;		/* after QStartNoAckMode: acks neither way */
	char buf[65536];	/* the last reply's payload, NUL-ended */
	size_t len;		/* its length */
};

/*
 * Runs the stub argv[0] (a path) with @argv, talking over pipes on its
 * stdin and stdout; waits up to @reply_ms for each byte of a reply.
 */
void rsp_start(struct rsp_client *c, char *const argv[], int reply_ms);

/* Writes @n raw bytes to the stub (acks, Ctrl-C, broken packets). */
void rsp_put(struct rsp_client *c, const void *p, size_t n);

/* Sends "$PAYLOAD#CHECKSUM" and does not wait for anything. */
void rsp_send(struct rsp_client *c, const char *payload);

/* The stub's next byte. */
int rsp_get(struct rsp_client *c);

/*
 * The next reply's payload (in c->buf), the acks before it skipped; acks
 * it unless c->noack.
 */
const char *rsp_reply(struct rsp_client *c);

/* Sends the packet printf(@fmt, ...) and returns the reply's payload. */
const char *rsp_ask(struct rsp_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Closes the stub's input and output and waits for it: its exit code, or
 * 128 plus the signal that killed it.
 */
int rsp_hang_up(struct rsp_client *c);

#endif /* TESTS_GDB_RSP_CLIENT_H */
