// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Framing of the remote serial protocol: $payload#xx with a modulo-256
 * checksum, '+' and '-' acks, 0x03 for Ctrl-C, '}' escapes.  The framer
 * is a byte-at-a-time state machine, so that no input can make it read
 * past its buffer or wait for bytes that never come.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsp.h"

/* ------------------------------------------------------------- strbuf */

void sb_init(struct strbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	sb_init(b);
}

void sb_reset(struct strbuf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->s)
		b->s[0] = '\0';
}

static bool reserve(struct strbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->s, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->s = p;
	b->cap = cap;
	return true;
}

void sb_add(struct strbuf *b, const void *p, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_puts(struct strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_hex(struct strbuf *b, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *q = p;
	size_t i;

	if (!reserve(b, 2 * n))
		return;
	for (i = 0; i < n; i++) {
		b->s[b->len++] = digits[q[i] >> 4];
		b->s[b->len++] = digits[q[i] & 15];
	}
	b->s[b->len] = '\0';
}

static bool special(uint8_t c)
{
	return c == '$' || c == '#' || c == '}' || c == '*';
}

void sb_binary(struct strbuf *b, const void *p, size_t n)
{
	const uint8_t *q = p;
	size_t i;
	char e[2];

	for (i = 0; i < n; i++) {
		if (special(q[i])) {
			e[0] = '}';
			e[1] = (char)(q[i] ^ 0x20);
			sb_add(b, e, 2);
		} else {
			sb_add(b, &q[i], 1);
		}
	}
}

/* -------------------------------------------------------------- framer */

enum { F_IDLE, F_DATA, F_CK1, F_CK2 };

void rsp_framer_init(struct rsp_framer *f)
{
	f->state = F_IDLE;
	f->len = 0;
	f->buf[0] = '\0';
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put(struct rsp_framer *f, uint8_t c)
{
	if (f->len >= RSP_PACKET_MAX) {
		f->toolong = true;
		return;
	}
	f->buf[f->len++] = (char)c;
}

static int idle(struct rsp_framer *f, uint8_t byte)
{
	switch (byte) {
	case '$':
		f->state = F_DATA;
		f->len = 0;
		f->sum = 0;
		f->escape = false;
		f->toolong = false;
		return RSP_NONE;
	case '+':
		return RSP_ACK;
	case '-':
		return RSP_NAK;
	case 0x03:
		return RSP_INTERRUPT;
	default:
		return RSP_NONE;	/* line noise between packets */
	}
}

int rsp_feed(struct rsp_framer *f, uint8_t byte)
{
	int v;

	switch (f->state) {
	case F_IDLE:
		return idle(f, byte);
	case F_DATA:
		if (byte == '#' && !f->escape) {
			f->state = F_CK1;
			return RSP_NONE;
		}
		if (byte == '$' && !f->escape) {
			/* A new packet inside an unfinished one: start over. */
			return idle(f, byte);
		}
		f->sum += byte;
		if (f->escape) {
			put(f, byte ^ 0x20);
			f->escape = false;
		} else if (byte == '}') {
			f->escape = true;
		} else {
			put(f, byte);
		}
		return RSP_NONE;
	case F_CK1:
		v = hexval(byte);
		f->ck = (uint8_t)(v < 0 ? 0 : v << 4);
		f->state = v < 0 ? F_IDLE : F_CK2;
		if (v < 0)
			return RSP_BADSUM;
		return RSP_NONE;
	default:
		v = hexval(byte);
		f->state = F_IDLE;
		f->buf[f->len] = '\0';
		if (v < 0 || (uint8_t)(f->ck | v) != f->sum)
			return RSP_BADSUM;
		return f->toolong ? RSP_TOOLONG : RSP_PACKET;
	}
}

void rsp_frame(struct strbuf *out, const char *payload, size_t len)
{
	size_t start;
	uint8_t sum = 0;
	size_t i;

	sb_add(out, "$", 1);
	start = out->len;
	sb_binary(out, payload, len);
	for (i = start; i < out->len && !out->oom; i++)
		sum += (uint8_t)out->s[i];
	sb_printf(out, "#%02x", sum);
}
