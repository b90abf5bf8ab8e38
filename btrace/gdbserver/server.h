/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The gdb stub: requests (rsp.h) answered from a program under libbts's
 * debugger control (bts_control_*).  No transport here: the connection
 * loop (cmd-gdbserver.c) feeds packets in and sends replies out.
 *
 * server.c          dispatch, threads, memory, breakpoints, queries
 * server_regs.c     g/G/p/P in the program's register layout
 * server_tdesc.c    the layouts (amd64, i386) and target.xml
 * server_run.c      resuming, stop replies, signal numbers
 * server_btrace.c   Qbtrace*, qXfer:btrace*:read (branch trace as gdb's BTS)
 * server_xfer.c     qXfer objects: chunks of a document built once
 * server_trace.c    a saved trace as the program (--trace): read-only
 */
#ifndef BTRACE_GDB_SERVER_H
#define BTRACE_GDB_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <bts.h>

#include "rsp.h"

/* gdb's default BTS buffer (set record btrace bts buffer-size). */
#define GDB_BTS_SIZE_DEFAULT (64 * 1024)

/* Branch tracing of one thread, as gdb enabled it. */
struct bt_state {
	pid_t tid;
	uint64_t size;		/* bytes: size / 24 records are kept */
	uint64_t enable_no;	/* the newest record at the enable */
	uint64_t enable_pc;	/* where the block after first_no begins */
	uint64_t first_no;	/* records before it are not gdb's */
	bool first_known;	/* enable_pc is known (else: a trace's window
				 * starts inside the history) */
	uint64_t last_no;	/* where the last read ended (delta) */
	uint64_t last_pc;
};

#define GDB_VFILE_MAX 16	/* files gdb may hold open through vFile */

struct gdb_trace;

struct gdb_server {
	struct bts_control *c;	/* NULL: no live program (gone, a trace, fuzzing) */
	struct gdb_trace *tr;	/* a saved trace instead of a program, or NULL */
	bool noack;
	bool swbreak;
	bool exec_events;	/* gdb wants exec stops (T05exec:) */
	bool multiprocess;	/* thread ids are pPID.TID, exits name PID */
	pid_t pid;		/* the program's process id */
	bool debug;		/* log packets to stderr */
	pid_t gthread;		/* Hg: registers, memory, btrace; 0: none yet */
	long cthread;		/* Hc, for the legacy c/s: -1 all */
	pid_t stop_tid;		/* the thread of the last stop reply */
	bool have_stop;
	struct bts_stop last;	/* the last stop reply's event */
	uint64_t bts_size;	/* what Qbtrace-conf:bts:size asked for */

	struct bt_state *bt;
	size_t nbt, capbt;

	/* qXfer: the document of the last offset-0 read, for later chunks. */
	struct strbuf xfer;
	char xfer_key[160];
	bool xfer_valid;

	pid_t *tids;		/* qfThreadInfo's list, for qsThreadInfo */
	size_t ntids, tids_sent;

	int vfile[GDB_VFILE_MAX];	/* vFile's open files; -1: free */
};

/* What the connection loop must do after sending the reply. */
enum gdb_after {
	GDB_REPLY = 0,		/* send @reply, nothing more */
	GDB_NO_REPLY,		/* k: send nothing */
	GDB_RESUMED,		/* wait for a stop, then send gdb_stop_reply() */
	GDB_DETACHED,		/* send @reply; the program is let go: end */
	GDB_KILLED,		/* send @reply (if any); the program is dead: end */
};

void gdb_server_init(struct gdb_server *sv, struct bts_control *c);
void gdb_server_free(struct gdb_server *sv);
/* A new connection: per-connection state back to its start. */
void gdb_server_reconnect(struct gdb_server *sv);

/* One packet (unescaped, @len bytes); fills @reply; returns &enum gdb_after. */
int gdb_handle(struct gdb_server *sv, const char *pkt, size_t len,
	       struct strbuf *reply);

/* server.c */
/* A program to answer from: live, or a saved trace. */
bool gdb_has_program(const struct gdb_server *sv);
/* Memory of the program (a trace's: what it holds); as bts_control_read(). */
ssize_t gdb_read_memory(struct gdb_server *sv, uint64_t addr, void *buf,
			size_t len);
bool gdb_thread_alive(struct gdb_server *sv, pid_t tid);
/* @tid as gdb's thread id: pPID.TID with multiprocess ids, else TID. */
void gdb_put_thread(struct gdb_server *sv, struct strbuf *b, pid_t tid);
/* The thread Hg names, or the last stop's; 0 when there is none. */
pid_t gdb_general_thread(struct gdb_server *sv);

/* server_regs.c: g, G, p, P in the program's layout (server_tdesc.h) */
void gdb_get_regs(struct gdb_server *sv, struct strbuf *reply);
void gdb_set_regs(struct gdb_server *sv, const struct rsp_req *rq,
		  struct strbuf *reply);
void gdb_get_reg(struct gdb_server *sv, const struct rsp_req *rq,
		 struct strbuf *reply);
void gdb_set_reg(struct gdb_server *sv, const struct rsp_req *rq,
		 struct strbuf *reply);
/* "NN:VALUE;" of the frame, stack and pc registers, for a stop reply. */
void gdb_regs_expedite(struct gdb_server *sv, pid_t tid, struct strbuf *reply);

/* server_run.c */
/* The error gdb shows for what would change a saved trace's program. */
void gdb_read_only(struct strbuf *reply);
int gdb_resume(struct gdb_server *sv, const struct rsp_req *rq,
	       struct strbuf *reply);
void gdb_stop_reply(struct gdb_server *sv, const struct bts_stop *st,
		    struct strbuf *reply);
/* Every thread continues, no signal (a stop gdb did not ask for): 0 or -1. */
int gdb_resume_all(struct gdb_server *sv);
int gdb_signal_from_host(int sig);
int gdb_signal_to_host(int gsig);

/* server_btrace.c */
void gdb_btrace(struct gdb_server *sv, const struct rsp_req *rq,
		struct strbuf *reply);
void gdb_btrace_conf(struct gdb_server *sv, const struct rsp_req *rq,
		     struct strbuf *reply);
/* The XML of qXfer:btrace:read:@annex (or btrace-conf when @conf): 0, or
 * an error reply already in @doc's place ("E.text") as a negative return. */
int gdb_btrace_doc(struct gdb_server *sv, bool conf, const char *annex,
		   struct strbuf *doc);
/* Forgets the tracing of threads that are gone. */
void gdb_btrace_forget(struct gdb_server *sv, pid_t tid);

/* server_vfile.c: the packet after "vFile:" (NUL-terminated). */
void gdb_vfile(struct gdb_server *sv, const char *args, struct strbuf *reply);
void gdb_vfile_close_all(struct gdb_server *sv);

/* server_xfer.c */
void gdb_xfer(struct gdb_server *sv, const struct rsp_req *rq,
	      struct strbuf *reply);

/*
 * server_trace.c: the program of a saved trace: the threads of one
 * process, thread @tid (0: the crashed one, or the first) stopped at
 * instruction @at (from 1; 0: the last), the others at their last.  0, or
 * -1 with the reason in @why; *@out is set either way (gdb_trace_free() it).
 */
int gdb_trace_open(const char *path, pid_t tid, uint64_t at,
		   struct gdb_trace **out, char *why, size_t size);
void gdb_trace_free(struct gdb_trace *tr);
pid_t gdb_trace_pid(const struct gdb_trace *tr);
/* The thread the stop reply names. */
pid_t gdb_trace_tid(const struct gdb_trace *tr);
/* The threads of the process into @tids (at most @max): how many. */
size_t gdb_trace_threads(const struct gdb_trace *tr, pid_t *tids, size_t max);
/* The stop's signal: the crash's for the crashed thread, else SIGTRAP. */
int gdb_trace_signal(const struct gdb_trace *tr);
int gdb_trace_bits(const struct gdb_trace *tr);
ssize_t gdb_trace_read(struct gdb_trace *tr, uint64_t addr, void *buf,
		       size_t len);

/* What gdb_trace_regs() knows of a thread's registers. */
enum {
	GDB_TRACE_REGS_NONE,	/* no history, or a gap at its end */
	GDB_TRACE_REGS_PC,	/* rip alone */
	GDB_TRACE_REGS_ALL,	/* the general registers a crash saved */
};
/* Registers of @tid at its end (the pc decoded at the first call). */
int gdb_trace_regs(struct gdb_trace *tr, pid_t tid, struct bts_regs *r);
const char *gdb_trace_exe(const struct gdb_trace *tr);
/* A synthetic auxv: AT_ENTRY where the trace maps the program, AT_BASE. */
int gdb_trace_auxv(const struct gdb_trace *tr, struct strbuf *doc);
/* qXfer:libraries-svr4: the shared objects the trace maps. */
int gdb_trace_libraries(const struct gdb_trace *tr, struct strbuf *doc);

/* Records a window holds (of 24 bytes): gdb may ask for up to 4 GB. */
#define GDB_TRACE_KEEP_MAX (1ULL << 22)

/* The records gdb's enable sees, numbered as a live thread's are. */
struct gdb_trace_window {
	uint64_t oldest, written;	/* records [oldest, written) */
	bool from_start;		/* the oldest block's start is known: */
	uint64_t begin;			/* (the history's, or a gap's end) */
	uint64_t pc;
	uint64_t size;			/* the buffer's bytes, as gdb is told */
};
/*
 * The window of the newest @size / 24 records before @tid's end, kept
 * until gdb_trace_disable(): 0 or -error.
 */
int gdb_trace_enable(struct gdb_trace *tr, pid_t tid, uint64_t size,
		     struct gdb_trace_window *w);
void gdb_trace_disable(struct gdb_trace *tr, pid_t tid);
/* Record @k of @tid's window: 0, or -1 outside it. */
int gdb_trace_record(const struct gdb_trace *tr, pid_t tid, uint64_t k,
		     struct ptbts_record *rec);

#endif /* BTRACE_GDB_SERVER_H */
