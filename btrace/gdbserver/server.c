// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stub's dispatch: one request in, one reply out.  Everything that
 * touches the program goes through libbts's debugger control; without a
 * program (it is gone) such requests get E01, never a crash.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define MAX_THREADS 4096

/*
 * A thread id of another process than ours: names no thread (the parser
 * keeps thread ids at or below 0x7fffffff).
 */
#define NO_THREAD 0x80000000L

void gdb_server_init(struct gdb_server *sv, struct bts_control *c)
{
	memset(sv, 0, sizeof(*sv));
	sv->c = c;
	sv->pid = c ? bts_control_pid(c) : 0;
	sv->cthread = -1;
	sv->bts_size = GDB_BTS_SIZE_DEFAULT;
	sb_init(&sv->xfer);
	for (size_t i = 0; i < GDB_VFILE_MAX; i++)
		sv->vfile[i] = -1;
}

void gdb_server_free(struct gdb_server *sv)
{
	sb_free(&sv->xfer);
	gdb_vfile_close_all(sv);
	free(sv->bt);
	free(sv->tids);
	sv->bt = NULL;
	sv->tids = NULL;
}

void gdb_server_reconnect(struct gdb_server *sv)
{
	sv->noack = false;
	sv->swbreak = false;
	sv->exec_events = false;
	sv->multiprocess = false;
	sv->xfer_valid = false;
	sv->cthread = -1;
	gdb_vfile_close_all(sv);	/* a new gdb knows none of them */
	/* gdb's cached size starts at 0 again: it sends it before an enable. */
	sv->bts_size = GDB_BTS_SIZE_DEFAULT;
}

bool gdb_has_program(const struct gdb_server *sv)
{
	return sv->c || sv->tr;
}

ssize_t gdb_read_memory(struct gdb_server *sv, uint64_t addr, void *buf,
			size_t len)
{
	if (sv->tr)
		return gdb_trace_read(sv->tr, addr, buf, len);
	return sv->c ? bts_control_read(sv->c, addr, buf, len) : -1;
}

/* The threads of the program into @tids (at most @max): how many. */
static size_t program_threads(struct gdb_server *sv, pid_t *tids, size_t max)
{
	if (sv->tr)
		return gdb_trace_threads(sv->tr, tids, max);
	return sv->c ? bts_control_threads(sv->c, tids, max) : 0;
}

bool gdb_thread_alive(struct gdb_server *sv, pid_t tid)
{
	pid_t tids[MAX_THREADS];
	size_t i, n;

	if (!gdb_has_program(sv) || tid <= 0)
		return false;
	n = program_threads(sv, tids, MAX_THREADS);
	for (i = 0; i < n && i < MAX_THREADS; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

void gdb_put_thread(struct gdb_server *sv, struct strbuf *b, pid_t tid)
{
	if (sv->multiprocess)
		sb_printf(b, "p%x.", (unsigned int)sv->pid);
	sb_printf(b, "%x", (unsigned int)tid);
}

/* Whether @pid (0: none given, -1: all) names a process that is not ours. */
static bool other_process(const struct gdb_server *sv, long pid)
{
	return pid > 0 && pid != sv->pid;
}

/* @tid of a pPID.TID id as ours: NO_THREAD when PID is another process. */
static long local_tid(const struct gdb_server *sv, long pid, long tid)
{
	return other_process(sv, pid) ? NO_THREAD : tid;
}

/* Every thread id of @rq in terms of our one process. */
static void localize(const struct gdb_server *sv, struct rsp_req *rq)
{
	size_t i;

	rq->tid = local_tid(sv, rq->pid, rq->tid);
	for (i = 0; i < rq->nactions; i++)
		rq->actions[i].tid = local_tid(sv, rq->actions[i].pid,
					       rq->actions[i].tid);
}

pid_t gdb_general_thread(struct gdb_server *sv)
{
	pid_t tids[1];

	if (!gdb_has_program(sv))
		return 0;
	if (sv->gthread > 0 && gdb_thread_alive(sv, sv->gthread))
		return sv->gthread;
	if (sv->stop_tid > 0 && gdb_thread_alive(sv, sv->stop_tid))
		return sv->stop_tid;
	return program_threads(sv, tids, 1) ? tids[0] : 0;
}

static void error_reply(struct strbuf *reply)
{
	sb_puts(reply, "E01");
}

static void supported(struct gdb_server *sv, const struct rsp_req *rq,
		      struct strbuf *reply)
{
	sv->swbreak = rq->swbreak;
	sv->exec_events = rq->exec_events;
	sv->multiprocess = rq->multiprocess;
	sb_printf(reply, "PacketSize=%x;QStartNoAckMode+;%s%s%s"
		  "qXfer:auxv:read+;qXfer:exec-file:read+;qXfer:features:read+;"
		  "Qbtrace:bts+;Qbtrace-conf:bts:size+;Qbtrace:off+;"
		  "qXfer:btrace:read+;qXfer:btrace-conf:read+%s",
		  RSP_PACKET_MAX, rq->swbreak ? "swbreak+;" : "",
		  rq->exec_events ? "exec-events+;" : "",
		  rq->multiprocess ? "multiprocess+;" : "",
		  sv->tr ? ";qXfer:libraries-svr4:read+" : "");
}

static void threads_first(struct gdb_server *sv, struct strbuf *reply)
{
	pid_t *tids;
	size_t n;

	free(sv->tids);
	sv->tids = NULL;
	sv->ntids = sv->tids_sent = 0;
	if (!gdb_has_program(sv)) {
		sb_puts(reply, "l");
		return;
	}
	tids = malloc(MAX_THREADS * sizeof(*tids));
	if (!tids)
		return error_reply(reply);
	n = program_threads(sv, tids, MAX_THREADS);
	sv->tids = tids;
	sv->ntids = n < MAX_THREADS ? n : MAX_THREADS;
	if (!sv->ntids) {
		sb_puts(reply, "l");
		return;
	}
	/* All in one reply: a few hundred threads fit in a packet. */
	sb_puts(reply, "m");
	for (; sv->tids_sent < sv->ntids && reply->len < RSP_PACKET_MAX - 32;
	     sv->tids_sent++) {
		if (sv->tids_sent)
			sb_puts(reply, ",");
		gdb_put_thread(sv, reply, sv->tids[sv->tids_sent]);
	}
}

static void threads_next(struct gdb_server *sv, struct strbuf *reply)
{
	size_t first = sv->tids_sent;

	if (sv->tids_sent >= sv->ntids) {
		sb_puts(reply, "l");
		return;
	}
	sb_puts(reply, "m");
	for (; sv->tids_sent < sv->ntids && reply->len < RSP_PACKET_MAX - 32;
	     sv->tids_sent++) {
		if (sv->tids_sent > first)
			sb_puts(reply, ",");
		gdb_put_thread(sv, reply, sv->tids[sv->tids_sent]);
	}
}

static void set_thread(struct gdb_server *sv, const struct rsp_req *rq,
		       struct strbuf *reply)
{
	if (rq->op == 'c') {
		sv->cthread = rq->tid > 0 ? rq->tid : -1;
		sb_puts(reply, "OK");
		return;
	}
	if (rq->tid > 0 && !gdb_thread_alive(sv, (pid_t)rq->tid)) {
		sb_puts(reply, "E.No such thread.");
		return;
	}
	/* 0 (any) and -1 (all) fall back to the last stop's thread. */
	sv->gthread = rq->tid > 0 ? (pid_t)rq->tid : 0;
	sb_puts(reply, "OK");
}

static void read_mem(struct gdb_server *sv, const struct rsp_req *rq,
		     struct strbuf *reply)
{
	uint8_t buf[RSP_PACKET_MAX / 2];
	size_t len = rq->len < sizeof(buf) ? rq->len : sizeof(buf);
	ssize_t n;

	if (!gdb_has_program(sv))
		return error_reply(reply);
	if (!len)
		return;		/* an empty read reads nothing: empty data */
	n = gdb_read_memory(sv, rq->addr, buf, len);
	if (n <= 0)
		return error_reply(reply);
	sb_hex(reply, buf, (size_t)n);
}

static void write_mem(struct gdb_server *sv, const struct rsp_req *rq,
		      struct strbuf *reply)
{
	uint8_t buf[RSP_PACKET_MAX];
	ssize_t n;

	if (sv->tr)
		return gdb_read_only(reply);
	if (!sv->c || rq->len > sizeof(buf))
		return error_reply(reply);
	if (rq->binary)
		memcpy(buf, rq->data, rq->len);
	else if (!rsp_unhex(rq->data, rq->data_len, buf))
		return error_reply(reply);
	n = bts_control_write(sv->c, rq->addr, buf, rq->len);
	if (n != (ssize_t)rq->len)
		return error_reply(reply);
	sb_puts(reply, "OK");
}

static void breakpoint(struct gdb_server *sv, const struct rsp_req *rq,
		       struct strbuf *reply)
{
	int err;

	if (sv->tr)
		return gdb_read_only(reply);
	if (!sv->c)
		return error_reply(reply);
	if (rq->kind == RQ_INSERT_BP)
		err = bts_control_insert_bp(sv->c, rq->addr);
	else
		err = bts_control_remove_bp(sv->c, rq->addr);
	sb_puts(reply, err ? "E01" : "OK");
}

/*
 * The program is gone after it: a later '?' answers its exit (X09, as
 * gdbserver's extended mode does), and requests on it get E01.  'k' has
 * no reply at all (gdb's remote_kill_k reads none).
 */
static int kill_program(struct gdb_server *sv, const struct rsp_req *rq,
			struct strbuf *reply)
{
	if (sv->c)
		bts_control_kill(sv->c);
	sv->c = NULL;
	sv->last = (struct bts_stop){ .kind = BTS_STOP_EXITED, .status = SIGKILL };
	sv->have_stop = true;
	if (rq->op == 'k')
		return GDB_NO_REPLY;
	sb_puts(reply, "OK");
	return GDB_KILLED;
}

static void status(struct gdb_server *sv, struct strbuf *reply)
{
	struct bts_stop st = { .kind = BTS_STOP_SIGNAL, .signo = SIGTRAP };

	if (sv->have_stop) {
		gdb_stop_reply(sv, &sv->last, reply);
		return;
	}
	if (!gdb_has_program(sv)) {
		sb_puts(reply, "W00");
		if (sv->multiprocess && sv->pid)
			sb_printf(reply, ";process:%x", (unsigned int)sv->pid);
		return;
	}
	/* Not resumed since the connection: stopped as at its start. */
	st.tid = sv->tr ? gdb_trace_tid(sv->tr) : gdb_general_thread(sv);
	if (sv->tr)
		st.signo = gdb_trace_signal(sv->tr);
	gdb_stop_reply(sv, &st, reply);
}

static int dispatch(struct gdb_server *sv, const struct rsp_req *rq,
		    struct strbuf *reply)
{
	switch (rq->kind) {
	case RQ_BAD:
		error_reply(reply);
		break;
	case RQ_STATUS:
		status(sv, reply);
		break;
	case RQ_GET_REGS:
		gdb_get_regs(sv, reply);
		break;
	case RQ_SET_REGS:
		gdb_set_regs(sv, rq, reply);
		break;
	case RQ_GET_REG:
		gdb_get_reg(sv, rq, reply);
		break;
	case RQ_SET_REG:
		gdb_set_reg(sv, rq, reply);
		break;
	case RQ_READ_MEM:
		read_mem(sv, rq, reply);
		break;
	case RQ_WRITE_MEM:
		write_mem(sv, rq, reply);
		break;
	case RQ_INSERT_BP:
	case RQ_REMOVE_BP:
		breakpoint(sv, rq, reply);
		break;
	case RQ_SET_THREAD:
		set_thread(sv, rq, reply);
		break;
	case RQ_THREAD_ALIVE:
		sb_puts(reply, gdb_thread_alive(sv, (pid_t)rq->tid) ? "OK" : "E01");
		break;
	case RQ_RESUME:
		return gdb_resume(sv, rq, reply);
	case RQ_VCONT_QUERY:
		sb_puts(reply, "vCont;c;C;s;S;t");
		break;
	case RQ_KILL:
		/* Without multiprocess ids gdb's pid is a fake (42000). */
		if (sv->multiprocess && other_process(sv, rq->pid)) {
			error_reply(reply);
			break;
		}
		return kill_program(sv, rq, reply);
	case RQ_DETACH:
		if (other_process(sv, rq->pid)) {
			error_reply(reply);
			break;
		}
		sb_puts(reply, "OK");
		return GDB_DETACHED;
	case RQ_SUPPORTED:
		supported(sv, rq, reply);
		break;
	case RQ_NOACK:
		sv->noack = true;
		sb_puts(reply, "OK");
		break;
	case RQ_CURRENT_THREAD:
		if (gdb_general_thread(sv)) {
			sb_puts(reply, "QC");
			gdb_put_thread(sv, reply, gdb_general_thread(sv));
		}
		break;
	case RQ_THREADS_FIRST:
		threads_first(sv, reply);
		break;
	case RQ_THREADS_NEXT:
		threads_next(sv, reply);
		break;
	case RQ_ATTACHED:
		/* A trace is let go (detached) at gdb's quit, never killed. */
		sb_puts(reply, sv->tr || (sv->c && !bts_control_spawned(sv->c)) ?
			"1" : "0");
		break;
	case RQ_XFER_READ:
		gdb_xfer(sv, rq, reply);
		break;
	case RQ_BTRACE:
		gdb_btrace(sv, rq, reply);
		break;
	case RQ_BTRACE_CONF:
		gdb_btrace_conf(sv, rq, reply);
		break;
	case RQ_OK:
		sb_puts(reply, "OK");
		break;
	default:
		break;		/* unknown: the empty reply */
	}
	return GDB_REPLY;
}

int gdb_handle(struct gdb_server *sv, const char *pkt, size_t len,
	       struct strbuf *reply)
{
	struct rsp_req *rq = malloc(sizeof(*rq));
	int after;

	sb_reset(reply);
	if (!rq) {
		error_reply(reply);
		return GDB_REPLY;
	}
	/* Host I/O carries paths and binary data: a parser of its own. */
	if (len > 6 && !memcmp(pkt, "vFile:", 6) && !memchr(pkt, 0, len)) {
		char *args = strndup(pkt + 6, len - 6);

		if (args)
			gdb_vfile(sv, args, reply);
		else
			error_reply(reply);
		free(args);
		free(rq);
		return GDB_REPLY;
	}
	rsp_parse(pkt, len, rq);
	localize(sv, rq);
	after = dispatch(sv, rq, reply);
	free(rq);
	if (reply->oom) {
		sb_reset(reply);
		reply->oom = false;
		error_reply(reply);
	}
	return after;
}
