// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resuming the program (c, s, C, S, vCont) and the stop replies that end
 * a resume (T, W, X).  gdb numbers signals its own way (gdb/signals.def):
 * they are translated at this boundary in both directions.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"

#define MAX_THREADS 4096

/* Linux signal -> gdb signal, for 1..31. */
static const uint8_t to_gdb[32] = {
	0, 1, 2, 3, 4, 5, 6, 10, 8, 9, 30, 11, 31, 13, 14, 15,
	20 /* SIGSTKFLT: none, shown as CHLD never happens */, 20, 19, 17, 18,
	21, 22, 16, 24, 25, 26, 27, 28, 23, 32, 12,
};

int gdb_signal_from_host(int sig)
{
	if (sig > 0 && sig < 32)
		return sig == 16 ? 143 /* GDB_SIGNAL_UNKNOWN */ : to_gdb[sig];
	if (sig == 32)
		return 77;		/* GDB_SIGNAL_REALTIME_32 */
	if (sig >= 33 && sig <= 63)
		return 45 + sig - 33;	/* GDB_SIGNAL_REALTIME_33.. */
	if (sig == 64)
		return 78;		/* GDB_SIGNAL_REALTIME_64 */
	return sig ? 143 : 0;
}

int gdb_signal_to_host(int gsig)
{
	int sig;

	for (sig = 1; sig <= 64; sig++)
		if (gdb_signal_from_host(sig) == gsig && gsig != 143)
			return sig;
	return 0;
}

/* The action of @vcont that applies to @tid: the leftmost that names it. */
static const struct rsp_action *action_for(const struct rsp_req *rq, pid_t tid)
{
	size_t i;

	for (i = 0; i < rq->nactions; i++)
		if (rq->actions[i].tid == -1 || rq->actions[i].tid == tid)
			return &rq->actions[i];
	return NULL;
}

/* Legacy c/s: c resumes every thread, s steps the Hc (or last stop's) thread. */
static pid_t legacy_thread(struct gdb_server *sv)
{
	if (sv->cthread > 0 && gdb_thread_alive(sv, (pid_t)sv->cthread))
		return (pid_t)sv->cthread;
	return gdb_general_thread(sv);
}

void gdb_read_only(struct strbuf *reply)
{
	sb_puts(reply, "E.The program is a saved trace: its history can be "
		"read, not run or changed.");
}

int gdb_resume(struct gdb_server *sv, const struct rsp_req *rq,
	       struct strbuf *reply)
{
	pid_t *tids, one;
	size_t i, n;
	int resumed = 0;

	if (sv->tr) {
		gdb_read_only(reply);
		return GDB_REPLY;
	}
	if (!sv->c) {
		sb_puts(reply, "E01");
		return GDB_REPLY;
	}
	tids = malloc(MAX_THREADS * sizeof(*tids));
	if (!tids) {
		sb_puts(reply, "E01");
		return GDB_REPLY;
	}
	n = bts_control_threads(sv->c, tids, MAX_THREADS);
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	one = rq->op == 'L' && rq->actions[0].op == 's' ? legacy_thread(sv) : 0;
	for (i = 0; i < n; i++) {
		const struct rsp_action *a = action_for(rq, tids[i]);
		int sig;

		if (!a || a->op == 't' || (one && tids[i] != one))
			continue;
		/* A legacy C's signal goes to the thread that stopped. */
		sig = rq->op == 'L' && tids[i] != legacy_thread(sv) ? 0 : a->sig;
		if (!bts_control_resume(sv->c, tids[i],
					a->op == 's' ? BTS_RESUME_STEP
						     : BTS_RESUME_CONT,
					gdb_signal_to_host(sig)))
			resumed++;
	}
	free(tids);
	if (!resumed) {
		sb_puts(reply, "E01");
		return GDB_REPLY;
	}
	sv->have_stop = false;
	sv->xfer_valid = false;
	return GDB_RESUMED;
}

/* "exec:PATH;" (hex): gdb loads the new program from PATH. */
static void exec_reason(struct gdb_server *sv, struct strbuf *reply)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe",
		 sv->c ? (int)bts_control_pid(sv->c) : 0);
	n = sv->c ? readlink(link, path, sizeof(path)) : -1;
	if (n <= 0)
		return;		/* gdb then keeps the program it has */
	sb_puts(reply, "exec:");
	sb_hex(reply, path, (size_t)n);
	sb_puts(reply, ";");
}

int gdb_resume_all(struct gdb_server *sv)
{
	pid_t *tids;
	size_t i, n;
	int resumed = 0;

	if (!sv->c)
		return -1;
	tids = malloc(MAX_THREADS * sizeof(*tids));
	if (!tids)
		return -1;
	n = bts_control_threads(sv->c, tids, MAX_THREADS);
	for (i = 0; i < n && i < MAX_THREADS; i++)
		resumed += !bts_control_resume(sv->c, tids[i], BTS_RESUME_CONT, 0);
	free(tids);
	sv->xfer_valid = false;
	return resumed ? 0 : -1;
}

void gdb_stop_reply(struct gdb_server *sv, const struct bts_stop *st,
		    struct strbuf *reply)
{
	int sig;

	sv->last = *st;
	sv->have_stop = true;
	if (st->kind == BTS_STOP_EXITED) {
		if (WIFSIGNALED(st->status))
			sb_printf(reply, "X%02x",
				  gdb_signal_from_host(WTERMSIG(st->status)));
		else
			sb_printf(reply, "W%02x", WEXITSTATUS(st->status) & 0xff);
		if (sv->multiprocess)
			sb_printf(reply, ";process:%x", (unsigned int)sv->pid);
		return;
	}
	switch (st->kind) {
	case BTS_STOP_BREAKPOINT:
	case BTS_STOP_STEP:
	case BTS_STOP_EXEC:
		sig = SIGTRAP;
		break;
	default:
		sig = st->signo;
		break;
	}
	sb_printf(reply, "T%02x", gdb_signal_from_host(sig));
	if (st->kind == BTS_STOP_BREAKPOINT && sv->swbreak)
		sb_puts(reply, "swbreak:;");
	if (st->kind == BTS_STOP_EXEC)
		exec_reason(sv, reply);
	gdb_regs_expedite(sv, st->tid, reply);
	sb_puts(reply, "thread:");
	gdb_put_thread(sv, reply, st->tid);
	sb_puts(reply, ";");
	/* gdb takes the stop's thread as its general thread and says no Hg. */
	sv->stop_tid = st->tid;
	sv->gthread = 0;
}
