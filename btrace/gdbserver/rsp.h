/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gdb's remote serial protocol, without any transport or inferior: the
 * framing of packets ($payload#xx, acks, Ctrl-C), the parsing of a packet
 * into a request, and the small encoders replies are built with.  Pure
 * functions of their input, so that a fuzzer can drive them.
 */
#ifndef BTRACE_RSP_H
#define BTRACE_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest packet either side sends (advertised as PacketSize, in hex). */
#define RSP_PACKET_MAX 0x4000

/* ------------------------------------------------------------- strbuf */

struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;		/* an allocation failed: the content is cut */
};

void sb_init(struct strbuf *b);
void sb_free(struct strbuf *b);
void sb_reset(struct strbuf *b);
void sb_add(struct strbuf *b, const void *p, size_t n);
void sb_puts(struct strbuf *b, const char *s);
void sb_printf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @n bytes as lowercase hex pairs. */
void sb_hex(struct strbuf *b, const void *p, size_t n);
/* @n bytes escaped for binary data ('}' then byte ^ 0x20 for $ # } *). */
void sb_binary(struct strbuf *b, const void *p, size_t n);

/* -------------------------------------------------------------- framer */

enum rsp_event {
	RSP_NONE = 0,		/* byte consumed, nothing complete */
	RSP_PACKET,		/* a whole packet with a good checksum */
	RSP_BADSUM,		/* a whole packet with a bad checksum: send '-' */
	RSP_TOOLONG,		/* a whole packet larger than RSP_PACKET_MAX */
	RSP_ACK,		/* '+' */
	RSP_NAK,		/* '-': resend the last reply */
	RSP_INTERRUPT,		/* 0x03 outside a packet */
};

struct rsp_framer {
	int state;
	uint8_t sum;
	uint8_t ck;
	bool escape;
	bool toolong;
	size_t len;
	char buf[RSP_PACKET_MAX + 1];	/* the unescaped payload, NUL-ended */
};

void rsp_framer_init(struct rsp_framer *f);
/* One received byte; RSP_PACKET: the payload is f->buf[0 .. f->len). */
int rsp_feed(struct rsp_framer *f, uint8_t byte);
/* "$payload#xx" with the payload escaped as needed, into @out. */
void rsp_frame(struct strbuf *out, const char *payload, size_t len);

/* ------------------------------------------------------------- requests */

enum rsp_kind {
	RQ_UNKNOWN = 0,		/* reply empty */
	RQ_BAD,			/* malformed: reply E01 */
	RQ_STATUS,		/* ? */
	RQ_GET_REGS,		/* g */
	RQ_SET_REGS,		/* G data */
	RQ_GET_REG,		/* p n */
	RQ_SET_REG,		/* P n=data */
	RQ_READ_MEM,		/* m addr,len */
	RQ_WRITE_MEM,		/* M addr,len:hex and X addr,len:binary */
	RQ_INSERT_BP,		/* Z0,addr,kind */
	RQ_REMOVE_BP,		/* z0,addr,kind */
	RQ_SET_THREAD,		/* Hg / Hc thread */
	RQ_THREAD_ALIVE,	/* T thread */
	RQ_RESUME,		/* c, s, C, S, vCont;... */
	RQ_VCONT_QUERY,		/* vCont? */
	RQ_KILL,		/* k (no reply), vKill;pid */
	RQ_DETACH,		/* D, D;pid */
	RQ_SUPPORTED,		/* qSupported[:features] */
	RQ_NOACK,		/* QStartNoAckMode */
	RQ_CURRENT_THREAD,	/* qC */
	RQ_THREADS_FIRST,	/* qfThreadInfo */
	RQ_THREADS_NEXT,	/* qsThreadInfo */
	RQ_ATTACHED,		/* qAttached[:pid] */
	RQ_XFER_READ,		/* qXfer:object:read:annex:offset,length */
	RQ_BTRACE,		/* Qbtrace:bts|pt|off|... */
	RQ_BTRACE_CONF,		/* Qbtrace-conf:name=value */
	RQ_OK,			/* packets answered with OK (qSymbol::, ...) */
};

/*
 * One action of a resume request, for @tid (-1: every thread) of process
 * @pid (multiprocess ids pPID.TID; 0: not given or any, -1: all).
 */
struct rsp_action {
	char op;		/* 'c', 's' or 't' */
	int sig;		/* gdb signal number, 0: none */
	long pid;
	long tid;
};

#define RSP_MAX_ACTIONS 16

struct rsp_req {
	int kind;		/* &enum rsp_kind */
	char op;		/* Hg/Hc: 'g' or 'c'; k or vKill: 'k' or 'v' */
	uint64_t addr;
	uint64_t len;
	long pid;		/* H, T: a pPID.TID id's; D;PID, vKill;PID; else 0 */
	long tid;		/* H, T: 0 any, -1 all */
	unsigned int regno;
	const char *data;	/* into the packet: G/P hex, M hex, X binary */
	size_t data_len;
	bool binary;		/* X */
	bool swbreak;		/* qSupported: gdb knows swbreak */
	bool exec_events;	/* qSupported: gdb wants exec stops */
	bool multiprocess;	/* qSupported: gdb knows pPID.TID ids */
	char object[32];	/* qXfer */
	char annex[64];
	char arg[64];		/* Qbtrace operation, Qbtrace-conf name */
	uint64_t value;		/* Qbtrace-conf value */
	bool value_ok;
	size_t nactions;
	struct rsp_action actions[RSP_MAX_ACTIONS];
};

/* Parses the unescaped packet @p of @len bytes (may hold NULs). */
void rsp_parse(const char *p, size_t len, struct rsp_req *req);

/* Hex digits to bytes: @n bytes from 2 * @n digits; false when malformed. */
bool rsp_unhex(const char *s, size_t digits, uint8_t *out);

#endif /* BTRACE_RSP_H */
