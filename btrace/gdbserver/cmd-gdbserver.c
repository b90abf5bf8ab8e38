// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace gdbserver: a gdb remote stub whose branch trace comes from
 * libbts's sources, so that stock gdb's `record btrace bts`, reverse
 * stepping and history commands work on any machine.  This file holds the
 * command line and the connection loop; the protocol is in rsp_*.c, the
 * answers in server*.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bts.h>

#include "../btrace.h"
#include "../options.h"
#include "../tracer-guard.h"
#include "server.h"
#include "stop.h"
#include "transport.h"

static const struct command_help gdbserver_help = {
	.name = "gdbserver",
	.usage = { "[OPTIONS] [--] PROG [ARGS...]", "[OPTIONS] --attach PID",
		   "[OPTIONS] --trace FILE [--at N] [--thread TID]" },
	.summary =
	"Lets gdb debug PROG (started stopped at its first instruction) or the\n"
	"running process PID while btrace records its branches: gdb's `record\n"
	"btrace bts`, reverse stepping and the record history commands then work\n"
	"on any machine.  The protocol goes over stdin/stdout:\n"
	"  (gdb) target remote | btrace gdbserver -- ./prog\n"
	"  (gdb) record btrace bts\n"
	"or, with --listen, over TCP (gdb: target remote HOST:PORT).\n"
	"With --trace, gdb reads the history of a saved trace instead: its\n"
	"threads stand at their ends (one at instruction N), nothing runs.\n"
	"Logs go to stderr; with stdin/stdout the program's output goes there too.",
	.details =
	"--listen binds the loopback (127.0.0.1) unless a host is given: give\n"
	"0.0.0.0:PORT to accept connections from other machines (anyone who can\n"
	"connect can run code as you), [::1]:PORT for IPv6 (as gdb writes it).\n"
	"PORT 0 picks a free port; the address is printed on stderr.\n"
	"\n"
	"When gdb disconnects, a program btrace started is killed and one it\n"
	"attached to is detached with its code restored, and btrace exits (also\n"
	"at SIGTERM, SIGHUP, SIGQUIT, or a SIGKILL of btrace: the tracer is a\n"
	"child that outlives it);\n"
	"with --listen --persist the program stays stopped and btrace waits\n"
	"for the next connection.\n"
	"\n"
	"--source: ptrace-step works everywhere; kmod-step (the ptrace_bts\n"
	"module) is much faster, and records only the threads gdb records, in\n"
	"a buffer of the size gdb asks for.  auto takes kmod-step when the\n"
	"module offers it, else ptrace-step.\n"
	"\n"
	"--trace FILE: gdb sees the threads of one process, that of the thread\n"
	"TID (or the crashed one, or the first), not those of other processes.\n"
	"That thread stops at instruction N of its history (numbered as btrace\n"
	"dump --insns does; default: the last), the others at their last.  A\n"
	"thread's pc is known, and at its end in a crash trace its saved\n"
	"registers; gdb sees the others as unavailable.  Memory is the code the\n"
	"trace holds (its files, build-id checked, and code copies).  `record\n"
	"btrace bts` gives gdb the newest buffer-size/24 branches before where\n"
	"each thread stands, decoded from the trace's index point before them\n"
	"(btrace index);\n"
	"continuing, stepping and writes are refused: the history is read-only.\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be used (missing, not a trace, no\n"
	"such thread, N past its history); 2 for a bad command line.\n",
};

struct gs_opts {
	const char *listen;
	const char *trace;	/* a saved trace instead of a program */
	uint64_t at;		/* its end: an instruction number; 0: the last */
	pid_t thread;
	pid_t pid;
	int source;
	bool persist;
	bool debug;
};

/* What ended a connection. */
enum { END_DISCONNECT, END_DETACHED, END_GONE };

struct stub {
	struct gdb_server sv;
	struct gdb_trace *tr;
	struct bts_control *c;
	struct bts_session *s;
	struct conn cn;
	struct strbuf reply, frame, last;
	bool gone;		/* the program is dead or let go */
	int stop_fd;		/* stop.c: readable once the stub is to end */
};

static void log_packet(const struct stub *g, const char *dir, const char *p,
		       size_t n)
{
	if (!g->sv.debug)
		return;
	fprintf(stderr, "btrace: gdbserver: %s %.*s%s\n", dir,
		(int)(n > 200 ? 200 : n), p, n > 200 ? "..." : "");
}

static int send_frame(struct stub *g, const char *payload, size_t n)
{
	sb_reset(&g->frame);
	rsp_frame(&g->frame, payload, n);
	if (g->frame.oom)
		return -1;
	log_packet(g, "->", payload, n);
	sb_reset(&g->last);
	sb_add(&g->last, g->frame.s, g->frame.len);
	return conn_write(&g->cn, g->frame.s, g->frame.len);
}

/*
 * Runs the program until it stops; a Ctrl-C from gdb interrupts it, and
 * so does a stop request (stop.c), which also reads as gdb gone.
 */
static int wait_running(struct stub *g, int wake, struct bts_stop *st)
{
	int r;

	/* A Ctrl-C may have come in the same read as the resume packet. */
	if (conn_take_interrupt(&g->cn))
		bts_control_interrupt(g->c);
	for (;;) {
		r = bts_control_wait(g->c, wake, st, sizeof(*st));
		if (r < 0)
			return r;
		/* An exec gdb did not ask to hear of: as gdbserver, run on. */
		if (st->kind == BTS_STOP_EXEC && !g->sv.exec_events &&
		    !gdb_resume_all(&g->sv))
			continue;
		if (st->kind != BTS_STOP_WAKE)
			return 0;
		r = conn_poll_interrupt(&g->cn);
		if (r != 0)	/* Ctrl-C, or gdb is gone: stop it either way */
			bts_control_interrupt(g->c);
	}
}

static int wait_stop(struct stub *g, struct bts_stop *st)
{
	int in = g->cn.eof ? -1 : g->cn.in, wake = stub_wake_fd(in);
	int r = wait_running(g, wake, st);

	if (wake >= 0 && wake != in)
		close(wake);
	return r;
}

static int after_resume(struct stub *g)
{
	struct bts_stop st;
	int r = wait_stop(g, &st);

	if (r < 0) {
		error_bts(r, "gdbserver: waiting for the program");
		return -1;
	}
	if (st.kind == BTS_STOP_EXITED)
		g->gone = true;
	sb_reset(&g->reply);
	gdb_stop_reply(&g->sv, &st, &g->reply);
	if (g->cn.eof)
		return 0;
	return send_frame(g, g->reply.s, g->reply.len);
}

static int on_packet(struct stub *g, struct rsp_framer *f)
{
	int after;

	log_packet(g, "<-", f->buf, f->len);
	if (!g->sv.noack && conn_write(&g->cn, "+", 1))
		return -1;
	after = gdb_handle(&g->sv, f->buf, f->len, &g->reply);
	switch (after) {
	case GDB_NO_REPLY:
	case GDB_KILLED:
		g->gone = true;
		if (after == GDB_NO_REPLY)
			return 0;
		break;
	case GDB_RESUMED:
		return after_resume(g);
	case GDB_DETACHED:
		if (send_frame(g, g->reply.s, g->reply.len))
			return -1;
		if (!g->gone && g->c && bts_control_detach(g->c))
			error("gdbserver: detaching left a thread behind");
		g->gone = true;
		g->sv.c = NULL;
		return 1;
	default:
		break;
	}
	return send_frame(g, g->reply.s, g->reply.len);
}

/* Serves one connection until gdb goes or lets the program go. */
static int serve(struct stub *g)
{
	struct rsp_framer *f = malloc(sizeof(*f));
	int ret = END_DISCONNECT, b, r;

	if (!f)
		return END_DISCONNECT;
	rsp_framer_init(f);
	gdb_server_reconnect(&g->sv);
	while ((b = conn_getc(&g->cn)) >= 0) {
		switch (rsp_feed(f, (uint8_t)b)) {
		case RSP_PACKET:
			r = on_packet(g, f);
			if (r > 0)
				ret = END_DETACHED;
			if (r)
				goto out;
			break;
		case RSP_BADSUM:
			if (!g->sv.noack && conn_write(&g->cn, "-", 1))
				goto out;
			break;
		case RSP_TOOLONG:
			if ((!g->sv.noack && conn_write(&g->cn, "+", 1)) ||
			    send_frame(g, "E01", 3))
				goto out;
			break;
		case RSP_NAK:
			if (g->last.len && conn_write(&g->cn, g->last.s, g->last.len))
				goto out;
			break;
		default:
			break;	/* acks; a Ctrl-C while stopped changes nothing */
		}
	}
out:
	free(f);
	return g->gone && ret == END_DISCONNECT ? END_GONE : ret;
}

/* ------------------------------------------------------------ set-up */

static int start(struct stub *g, const struct gs_opts *o, char **cmd)
{
	/* kmod-step: buffers come with gdb's Qbtrace:bts, at gdb's size. */
	BTS_OPTS(bts_session_opts, so, .source = o->source,
		 .mode = PTBTS_MODE_RING, .no_follow = true,
		 .buffer_size = o->source == PTBTS_SOURCE_KMOD_STEP ? 4096 : 0);
	struct bts_refusal rf;
	int ret;

	if (o->pid) {
		ret = bts_session_new_attach(o->pid, &so, &g->s);
	} else {
		note_setuid("gdbserver", cmd[0]);
		ret = bts_session_new_spawn(cmd, &so, &g->s);
	}
	if (ret < 0) {
		if (ret == -BTS_E_PERM &&
		    bts_refusal_for(o->source, o->pid != 0, &rf, sizeof(rf)))
			error("gdbserver: %s", rf.line);
		else
			error_bts(ret, "gdbserver");
		return -1;
	}
	ret = bts_control_new(g->s, &g->c);
	if (ret < 0) {
		error_bts(ret, "gdbserver");
		bts_session_free(g->s);
		return -1;
	}
	return 0;
}

/*
 * stdin/stdout carry the protocol: the program must not write into it.
 * It gets /dev/null for input and stderr for output, as with gdbserver.
 */
static int take_stdio(int *in, int *out)
{
	int null;

	*in = fcntl(0, F_DUPFD_CLOEXEC, 3);
	*out = fcntl(1, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (*in < 0 || *out < 0 || null < 0 || dup2(null, 0) < 0 ||
	    dup2(2, 1) < 0) {
		error("gdbserver: cannot set up stdin/stdout: %s", strerror(errno));
		return -1;
	}
	close(null);
	return 0;
}

static void finish(struct stub *g)
{
	if (g->c && !g->gone && bts_control_spawned(g->c))
		bts_control_kill(g->c);
	gdb_trace_free(g->tr);
	bts_control_free(g->c);
	/* An attached program is detached here, its code restored. */
	bts_session_free(g->s);
	gdb_server_free(&g->sv);
	sb_free(&g->reply);
	sb_free(&g->frame);
	sb_free(&g->last);
}

static int run_listen(struct stub *g, const struct gs_opts *o, int lfd)
{
	int fd, end;

	for (;;) {
		fd = accept_one(lfd, g->stop_fd);
		if (fd < 0 && stub_stopping())
			return 0;
		if (fd < 0) {
			error("gdbserver: accept: %s", strerror(errno));
			return EXIT_FAILED;
		}
		conn_init(&g->cn, fd, fd);
		g->cn.stop_fd = g->stop_fd;
		end = serve(g);
		conn_close(&g->cn);
		if (end != END_DISCONNECT || !o->persist || g->gone ||
		    stub_stopping())
			return 0;
		error("gdbserver: gdb disconnected; waiting for the next connection");
	}
}

/*
 * As record does: a refusal (Yama, a policy, ...) is said before anything
 * starts, in the very line `btrace info` prints.
 */
static int check_refusal(const struct gs_opts *o)
{
	struct bts_refusal rf;

	if (!bts_refusal_for(o->source, o->pid != 0, &rf, sizeof(rf)))
		return 0;
	error("gdbserver: %s", rf.line);
	return -1;
}

/* Serves one connection (or --listen's) until it ends. */
static int serve_all(struct stub *g, const struct gs_opts *o, int in, int out,
		     int lfd, const char *where)
{
	int ret = 0;

	if (lfd >= 0) {
		fprintf(stderr, "btrace: gdbserver: listening on %s\n", where);
		ret = run_listen(g, o, lfd);
		close(lfd);
	} else {
		conn_init(&g->cn, in, out);
		g->cn.stop_fd = g->stop_fd;
		serve(g);
		conn_close(&g->cn);
	}
	return ret;
}

/* --trace: nothing is traced, no tracer is needed. */
static int gdbserver_trace(const struct gs_opts *o)
{
	struct stub *g = calloc(1, sizeof(*g));
	char where[300], why[512];
	const char *bad;
	int in = -1, out = -1, lfd = -1, ret;

	if (!g)
		return EXIT_FAILED;
	gdb_server_init(&g->sv, NULL);	/* finish() frees it on every path */
	if (gdb_trace_open(o->trace, o->thread, o->at, &g->tr, why, sizeof(why))) {
		error("gdbserver: %s", why);
		finish(g);
		free(g);
		return EXIT_FAILED;
	}
	g->stop_fd = stub_stop_init();
	signal(SIGPIPE, SIG_IGN);
	if (o->listen) {
		lfd = listen_on(o->listen, where, sizeof(where), &bad);
		if (lfd < 0) {
			error("gdbserver: --listen %s: %s", o->listen, bad);
			finish(g);
			free(g);
			return EXIT_USAGE;
		}
	} else if (take_stdio(&in, &out)) {
		finish(g);
		free(g);
		return EXIT_FAILED;
	}
	signal(SIGINT, SIG_IGN);
	g->sv.tr = g->tr;
	g->sv.pid = gdb_trace_pid(g->tr);
	g->sv.debug = o->debug;
	ret = serve_all(g, o, in, out, lfd, where);
	finish(g);
	free(g);
	return ret;
}

static int gdbserver(const struct gs_opts *o, char **cmd)
{
	struct stub *g = calloc(1, sizeof(*g));
	char where[300];
	const char *why;
	int in = -1, out = -1, lfd = -1, ret = 0;

	if (!g)
		return EXIT_FAILED;
	if (check_refusal(o)) {
		free(g);
		return EXIT_FAILED;
	}
	ret = tracer_guard("the stub", NULL);
	if (ret != TRACER_GUARD_CHILD) {
		free(g);
		return ret == EXIT_RECORD_FAILED ? EXIT_FAILED : ret;
	}
	ret = 0;
	g->stop_fd = stub_stop_init();
	signal(SIGPIPE, SIG_IGN);
	if (o->listen) {
		lfd = listen_on(o->listen, where, sizeof(where), &why);
		if (lfd < 0) {
			error("gdbserver: --listen %s: %s", o->listen, why);
			free(g);
			return EXIT_USAGE;
		}
	} else if (take_stdio(&in, &out)) {
		free(g);
		return EXIT_FAILED;
	}
	if (start(g, o, cmd)) {
		if (lfd >= 0)
			close(lfd);
		free(g);
		return EXIT_FAILED;
	}
	/* gdb sends Ctrl-C as a packet byte: the terminal's SIGINT is not ours. */
	signal(SIGINT, SIG_IGN);
	gdb_server_init(&g->sv, g->c);
	g->sv.debug = o->debug;
	ret = serve_all(g, o, in, out, lfd, where);
	finish(g);
	free(g);
	return ret;
}

/* auto: the faster of the two sources a debugger can drive. */
static int auto_source(void)
{
	struct bts_source_info info[8];
	int i, n = bts_probe_sources(info, 8, sizeof(*info));

	for (i = 0; i < n && i < 8; i++)
		if (info[i].source == PTBTS_SOURCE_KMOD_STEP && info[i].available)
			return PTBTS_SOURCE_KMOD_STEP;
	return PTBTS_SOURCE_PTRACE_STEP;
}

/* What --trace does not go with; says so and -1. */
static int trace_usage(const struct gs_opts *o, bool prog)
{
	if (prog || o->pid) {
		error("gdbserver: give a program, --attach PID or --trace FILE, "
		      "one of them");
		return -1;
	}
	if (o->source != BTS_SOURCE_AUTO) {
		error("gdbserver: --source: a trace is recorded already");
		return -1;
	}
	if (o->persist && !o->listen) {
		error("gdbserver: --persist needs --listen");
		return -1;
	}
	return 0;
}

int cmd_gdbserver(int argc, char **argv)
{
	struct gs_opts o = { .source = BTS_SOURCE_AUTO };
	const struct option opts[] = {
		OPT_STRING(0, "listen", "ADDR", &o.listen,
			   "serve on TCP: HOST:PORT, :PORT or PORT (default host: 127.0.0.1)"),
		OPT_CALLBACK(0, "attach", "PID", &o.pid,
			     "debug the running process PID instead of PROG", parse_pid),
		OPT_STRING(0, "trace", "FILE", &o.trace,
			   "read the history of the saved trace FILE instead of PROG"),
		OPT_CALLBACK(0, "at", "N", &o.at,
			     "--trace: stand at instruction N (default: the last)",
			     parse_count),
		OPT_CALLBACK(0, "thread", "TID", &o.thread,
			     "--trace: the thread TID (default: the crashed, else the first)",
			     parse_pid),
		OPT_FLAG(0, "persist", &o.persist,
			 "with --listen: keep the program when gdb disconnects"),
		OPT_SOURCE(&o.source, "auto (default), kmod-step or ptrace-step"),
		OPT_FLAG(0, "debug", &o.debug, "log every packet to stderr"),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &gdbserver_help, opts,
				  PARSE_STOP_AT_ARG);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (o.trace)
		return trace_usage(&o, first < argc) ? EXIT_USAGE : gdbserver_trace(&o);
	if (o.at || o.thread) {
		error("gdbserver: --%s goes with --trace FILE", o.at ? "at" : "thread");
		return EXIT_USAGE;
	}
	if (o.pid && first < argc) {
		error("gdbserver: give a program or --attach PID, not both");
		return EXIT_USAGE;
	}
	if (!o.pid && first == argc) {
		error("gdbserver: no program given (see 'btrace gdbserver --help')");
		return EXIT_USAGE;
	}
	if (o.persist && !o.listen) {
		error("gdbserver: --persist needs --listen");
		return EXIT_USAGE;
	}
	if (o.source != BTS_SOURCE_AUTO && o.source != PTBTS_SOURCE_PTRACE_STEP &&
	    o.source != PTBTS_SOURCE_KMOD_STEP) {
		error("gdbserver: --source %s: gdb can drive the ptrace-step and "
		      "kmod-step sources only", bts_source_name(o.source));
		return EXIT_USAGE;
	}
	if (o.source == BTS_SOURCE_AUTO)
		o.source = auto_source();
	return gdbserver(&o, argv + first);
}
