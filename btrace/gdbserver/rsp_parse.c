// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A received packet into a request.  Every number is bounded and every
 * field checked here, so that the server never sees a malformed request:
 * RQ_BAD (reply E01) or RQ_UNKNOWN (reply empty, "not supported").
 */
#include <string.h>

#include "rsp.h"

/* A cursor over the packet, which may hold NULs (X data). */
struct cur {
	const char *p;
	const char *end;
};

static bool at_end(const struct cur *c)
{
	return c->p >= c->end;
}

static bool eat(struct cur *c, char ch)
{
	if (at_end(c) || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static bool prefix(struct cur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* 1 to 16 hex digits. */
static bool hexnum(struct cur *c, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0, d;

	while (!at_end(c) && (d = hexval(*c->p)) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)d;
		c->p++;
	}
	*out = v;
	return n > 0;
}

/* One part of a thread id: hex, 0 (any) or -1 (all). */
static bool id_part(struct cur *c, long *v)
{
	uint64_t n;

	if (prefix(c, "-1")) {
		*v = -1;
		return true;
	}
	if (!hexnum(c, &n) || n > 0x7fffffff)
		return false;
	*v = (long)n;
	return true;
}

/*
 * A thread id: TID, or the multiprocess form pPID.TID, where a lone pPID
 * names all the threads of PID.  @pid is 0 when no process is given.
 */
static bool thread_id(struct cur *c, long *pid, long *tid)
{
	*pid = 0;
	if (eat(c, 'p')) {
		if (!id_part(c, pid))
			return false;
		if (!eat(c, '.')) {
			*tid = -1;
			return true;
		}
	}
	return id_part(c, tid);
}

static void bad(struct rsp_req *r)
{
	r->kind = RQ_BAD;
}

static void done(struct cur *c, struct rsp_req *r, int kind)
{
	r->kind = at_end(c) ? kind : RQ_BAD;
}

bool rsp_unhex(const char *s, size_t digits, uint8_t *out)
{
	size_t i;
	int hi, lo;

	if (digits % 2)
		return false;
	for (i = 0; i < digits / 2; i++) {
		hi = hexval(s[2 * i]);
		lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static bool all_hex(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (hexval(p[i]) < 0)
			return false;
	return n % 2 == 0;
}

/* addr,len */
static bool addr_len(struct cur *c, struct rsp_req *r)
{
	return hexnum(c, &r->addr) && eat(c, ',') && hexnum(c, &r->len) &&
	       r->len <= RSP_PACKET_MAX;
}

static void mem_write(struct cur *c, struct rsp_req *r, bool binary)
{
	if (!addr_len(c, r) || !eat(c, ':'))
		return bad(r);
	r->data = c->p;
	r->data_len = (size_t)(c->end - c->p);
	r->binary = binary;
	if (binary ? r->data_len != r->len
		   : r->data_len != 2 * r->len || !all_hex(r->data, r->data_len))
		return bad(r);
	r->kind = RQ_WRITE_MEM;
}

static void breakpoint(struct cur *c, struct rsp_req *r, int kind)
{
	uint64_t type, bpkind;

	if (!hexnum(c, &type) || !eat(c, ','))
		return bad(r);
	if (type != 0) {
		r->kind = RQ_UNKNOWN;	/* hardware breakpoints, watchpoints */
		return;
	}
	if (!hexnum(c, &r->addr) || !eat(c, ',') || !hexnum(c, &bpkind))
		return bad(r);
	/* Conditions and commands (";X...") are gdb's business, not ours. */
	if (!at_end(c) && *c->p != ';')
		return bad(r);
	r->kind = bpkind == 1 ? kind : RQ_BAD;
}

static bool signal_num(struct cur *c, int *sig)
{
	uint64_t v;

	if (!hexnum(c, &v) || v > 0xff)
		return false;
	*sig = (int)v;
	return true;
}

static bool add_action(struct rsp_req *r, char op, int sig, long pid, long tid)
{
	if (r->nactions >= RSP_MAX_ACTIONS)
		return false;
	r->actions[r->nactions++] = (struct rsp_action){ op, sig, pid, tid };
	return true;
}

/* vCont;action[:thread]... */
static void vcont(struct cur *c, struct rsp_req *r)
{
	while (eat(c, ';')) {
		char op;
		int sig = 0;
		long pid = 0, tid = -1;

		if (at_end(c))
			return bad(r);
		op = *c->p++;
		if (op == 'C' || op == 'S') {
			if (!signal_num(c, &sig))
				return bad(r);
			op = op == 'C' ? 'c' : 's';
		} else if (op != 'c' && op != 's' && op != 't') {
			return bad(r);	/* r (range stepping) is not offered */
		}
		if (eat(c, ':') && (!thread_id(c, &pid, &tid) || tid == 0))
			return bad(r);
		if (!add_action(r, op, sig, pid, tid))
			return bad(r);
	}
	if (!r->nactions)
		return bad(r);
	done(c, r, RQ_RESUME);
}

/* c [addr], s [addr], C sig[;addr], S sig[;addr]: resuming at addr is refused. */
static void legacy_resume(struct cur *c, struct rsp_req *r, char op)
{
	int sig = 0;

	if ((op == 'C' || op == 'S') && !signal_num(c, &sig))
		return bad(r);
	if (!at_end(c))
		return bad(r);
	r->op = 'L';	/* legacy: the Hc thread */
	add_action(r, op == 'c' || op == 'C' ? 'c' : 's', sig, 0, -1);
	r->kind = RQ_RESUME;
}

static bool copy_field(struct cur *c, char stop, char *out, size_t size)
{
	size_t n = 0;

	while (!at_end(c) && *c->p != stop) {
		if (n + 1 >= size || *c->p == '\0')
			return false;
		out[n++] = *c->p++;
	}
	out[n] = '\0';
	return true;
}

/* qXfer:object:read:annex:offset,length */
static void xfer(struct cur *c, struct rsp_req *r)
{
	if (!copy_field(c, ':', r->object, sizeof(r->object)) || !eat(c, ':'))
		return bad(r);
	if (!prefix(c, "read:")) {
		r->kind = RQ_UNKNOWN;	/* no writes */
		return;
	}
	if (!copy_field(c, ':', r->annex, sizeof(r->annex)) || !eat(c, ':') ||
	    !hexnum(c, &r->addr) || !eat(c, ',') || !hexnum(c, &r->len))
		return bad(r);
	done(c, r, RQ_XFER_READ);
}

/* Whether gdb's qSupported list (the rest of @c) holds @feature. */
static bool has_feature(const struct cur *c, const char *feature)
{
	size_t n = strlen(feature);
	const char *p;

	for (p = c->p; p + n <= c->end; p++)
		if (!memcmp(p, feature, n) &&
		    (p == c->p || p[-1] == ':' || p[-1] == ';') &&
		    (p + n == c->end || p[n] == ';'))
			return true;
	return false;
}

static void supported(struct cur *c, struct rsp_req *r)
{
	r->kind = RQ_SUPPORTED;
	r->swbreak = has_feature(c, "swbreak+");
	r->exec_events = has_feature(c, "exec-events+");
	r->multiprocess = has_feature(c, "multiprocess+");
}

static void btrace_conf(struct cur *c, struct rsp_req *r)
{
	if (!copy_field(c, '=', r->arg, sizeof(r->arg)) || !eat(c, '='))
		return bad(r);
	prefix(c, "0x");
	r->value_ok = hexnum(c, &r->value) && at_end(c);
	r->kind = RQ_BTRACE_CONF;
}

static void query(struct cur *c, struct rsp_req *r)
{
	if (prefix(c, "qSupported"))
		return supported(c, r);
	if (prefix(c, "qXfer:"))
		return xfer(c, r);
	if (prefix(c, "qfThreadInfo"))
		return done(c, r, RQ_THREADS_FIRST);
	if (prefix(c, "qsThreadInfo"))
		return done(c, r, RQ_THREADS_NEXT);
	if (prefix(c, "qC"))
		return done(c, r, RQ_CURRENT_THREAD);
	if (prefix(c, "qAttached")) {
		r->kind = RQ_ATTACHED;
		return;
	}
	if (prefix(c, "qSymbol:")) {
		r->kind = RQ_OK;
		return;
	}
	r->kind = RQ_UNKNOWN;
}

static void set_query(struct cur *c, struct rsp_req *r)
{
	if (prefix(c, "QStartNoAckMode"))
		return done(c, r, RQ_NOACK);
	if (prefix(c, "Qbtrace-conf:"))
		return btrace_conf(c, r);
	if (prefix(c, "Qbtrace:")) {
		if (!copy_field(c, '\0', r->arg, sizeof(r->arg)))
			return bad(r);
		r->kind = RQ_BTRACE;
		return;
	}
	r->kind = RQ_UNKNOWN;
}

static void v_packet(struct cur *c, struct rsp_req *r)
{
	uint64_t pid;

	if (prefix(c, "vCont?"))
		return done(c, r, RQ_VCONT_QUERY);
	if (prefix(c, "vCont"))
		return vcont(c, r);
	if (prefix(c, "vKill;")) {
		r->op = 'v';
		if (!hexnum(c, &pid) || pid > 0x7fffffff)
			return bad(r);
		r->pid = (long)pid;
		return done(c, r, RQ_KILL);
	}
	r->kind = RQ_UNKNOWN;	/* vMustReplyEmpty, vFile, vRun, ... */
}

static void registers(struct cur *c, struct rsp_req *r, char op)
{
	uint64_t n;

	if (op == 'g')
		return done(c, r, RQ_GET_REGS);
	if (op == 'G') {
		r->data = c->p;
		r->data_len = (size_t)(c->end - c->p);
		if (!all_hex(r->data, r->data_len))
			return bad(r);
		r->kind = RQ_SET_REGS;
		return;
	}
	if (!hexnum(c, &n) || n > 0xffff)
		return bad(r);
	r->regno = (unsigned int)n;
	if (op == 'p')
		return done(c, r, RQ_GET_REG);
	if (!eat(c, '='))
		return bad(r);
	r->data = c->p;
	r->data_len = (size_t)(c->end - c->p);
	if (!all_hex(r->data, r->data_len))
		return bad(r);
	r->kind = RQ_SET_REG;
}

void rsp_parse(const char *p, size_t len, struct rsp_req *r)
{
	struct cur c = { p, p + len };
	char op;

	memset(r, 0, sizeof(*r));
	if (!len)
		return;
	op = *c.p++;
	switch (op) {
	case '?':
		return done(&c, r, RQ_STATUS);
	case 'g': case 'G': case 'p': case 'P':
		return registers(&c, r, op);
	case 'm':
		if (!addr_len(&c, r))
			return bad(r);
		return done(&c, r, RQ_READ_MEM);
	case 'M':
		return mem_write(&c, r, false);
	case 'X':
		return mem_write(&c, r, true);
	case 'Z':
		return breakpoint(&c, r, RQ_INSERT_BP);
	case 'z':
		return breakpoint(&c, r, RQ_REMOVE_BP);
	case 'H':
		if (at_end(&c) || (*c.p != 'g' && *c.p != 'c'))
			return bad(r);
		r->op = *c.p++;
		if (!thread_id(&c, &r->pid, &r->tid))
			return bad(r);
		return done(&c, r, RQ_SET_THREAD);
	case 'T':
		if (!thread_id(&c, &r->pid, &r->tid))
			return bad(r);
		return done(&c, r, RQ_THREAD_ALIVE);
	case 'c': case 's': case 'C': case 'S':
		return legacy_resume(&c, r, op);
	case 'k':
		r->op = 'k';
		r->kind = RQ_KILL;
		return;
	case 'D':
		/* D;PID (multiprocess) names the process. */
		if (eat(&c, ';') && !id_part(&c, &r->pid))
			return bad(r);
		r->kind = RQ_DETACH;
		return;
	case 'q':
		c.p--;
		return query(&c, r);
	case 'Q':
		c.p--;
		return set_query(&c, r);
	case 'v':
		c.p--;
		return v_packet(&c, r);
	default:
		r->kind = RQ_UNKNOWN;
		return;
	}
}
