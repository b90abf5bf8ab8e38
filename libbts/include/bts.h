/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libbts: record, store and read branch traces.
 *
 * Conventions (after libipt and libbpf):
 *  - functions that can fail return 0 or a count on success and a negative
 *    &enum bts_error on failure; bts_errstr() names the code and
 *    bts_errdetail() says what exactly went wrong in the calling thread's
 *    last failing call (for example "offset 96: chunk overruns the file");
 *  - objects are opaque, with a constructor and a free function;
 *  - options structs start with their size: declare them with BTS_OPTS() so
 *    that a caller built against an older libbts keeps working.
 */
#ifndef BTS_H
#define BTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <linux/ptrace_bts.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BTS_API __attribute__((visibility("default")))

/* ------------------------------------------------------------------ errors */

enum bts_error {
	BTS_OK = 0,
	BTS_E_INVAL,		/* invalid argument */
	BTS_E_NOMEM,		/* out of memory */
	BTS_E_IO,		/* a read, write or rename failed (errno in detail) */
	BTS_E_FORMAT,		/* not a trace file, or a malformed one */
	BTS_E_VERSION,		/* a trace file of a version this libbts cannot read */
	BTS_E_TRUNCATED,	/* a trace file that ends early (never completed) */
	BTS_E_NOENT,		/* program not found */
	BTS_E_NOEXEC,		/* program found but cannot be run */
	BTS_E_PERM,		/* ptrace refused (permissions, Yama, seccomp) */
	BTS_E_SRCH,		/* no such process or thread */
	BTS_E_NOSOURCE,		/* the branch source is not available here */
	BTS_E_AGAIN,		/* BLOCK-mode ring is full: drain, then retry */
	BTS_E_DECODE,		/* an instruction could not be decoded */
	BTS_E_INTERNAL,		/* a bug in libbts */
	BTS_E_MAX,
};

BTS_API const char *bts_errstr(int err);
BTS_API const char *bts_errdetail(void);

/* Version of the library: major << 16 | minor << 8 | patch. */
BTS_API unsigned int bts_version(void);

/* Options structs: BTS_OPTS(bts_session_opts, o, .mode = PTBTS_MODE_RING); */
#define BTS_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };\
	})

/* ----------------------------------------------------------------- records */

/*
 * The kind of a record (&enum ptbts_kind), or -BTS_E_FORMAT when its
 * software-owned flag bits hold a kind or reserved bit this libbts does not
 * know.  Marker kinds require from == 0 and branch kinds from != 0.
 */
BTS_API int bts_record_kind(const struct ptbts_record *rec);

/* "branch", "signal", "sigreturn", "exec", "lost", "gap", "filtered". */
BTS_API const char *bts_kind_name(int kind);

/* ----------------------------------------------------------------- sources */

/* Not a kernel source: a choice made by libbts at attach time. */
#define BTS_SOURCE_AUTO (-1)

/* "auto", "kmod-bts", "kmod-pebs", "kmod-step", "perf-bts", "ptrace-step". */
BTS_API const char *bts_source_name(int source);
/* The &enum ptbts_source (or BTS_SOURCE_AUTO) for a name, or -BTS_E_INVAL. */
BTS_API int bts_source_parse(const char *name);

struct bts_source_info {
	int source;		/* &enum ptbts_source */
	bool available;
	char why[160];		/* when not available: why, and what to do */
};

/*
 * Probes every source on this machine, fastest first.  Fills up to @n
 * entries and returns how many sources there are.
 */
BTS_API int bts_probe_sources(struct bts_source_info *out, size_t n);

/* -------------------------------------------------------------------- ring */

/*
 * A record buffer with the kernel ABI's producer protocol: @head is the byte
 * offset where the next record lands and @wraps counts returns to 0, so
 * wraps * cap + head / 24 records were written in all.  Capacity is
 * floor(size / 24) records, as the hardware fills a buffer.
 */
struct bts_ring {
	struct ptbts_record *recs;
	uint64_t cap;		/* records */
	uint64_t head;		/* bytes */
	uint64_t wraps;
	uint64_t lost;		/* records overwritten (RING) or dropped (STOP) */
	uint64_t tail;		/* records consumed, counted since the start */
	int mode;		/* &enum ptbts_mode */
};

/* @mem of @size bytes stays the caller's. */
BTS_API int bts_ring_init(struct bts_ring *ring, void *mem, size_t size, int mode);
/* Records ever written (wraps * cap + head / 24). */
BTS_API uint64_t bts_ring_written(const struct bts_ring *ring);
/* Appends one record; -BTS_E_AGAIN when a BLOCK ring is full. */
BTS_API int bts_ring_put(struct bts_ring *ring, const struct ptbts_record *rec);
/*
 * The unread records, oldest first, in at most two spans (the ring may wrap):
 * returns how many spans were filled.  Records overwritten in RING mode are
 * skipped and added to @lost.
 */
struct bts_span {
	const struct ptbts_record *recs;
	size_t n;
};
BTS_API int bts_ring_unread(struct bts_ring *ring, struct bts_span span[2]);
/* Marks @n records as consumed (frees room in a BLOCK ring). */
BTS_API void bts_ring_consume(struct bts_ring *ring, uint64_t n);

/* ---------------------------------------------------------------- maps */

#define BTS_BUILD_ID_MAX 64

struct bts_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;	/* file offset of start */
	uint32_t prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t build_id_len;	/* 0 when unknown */
	uint8_t build_id[BTS_BUILD_ID_MAX];
	char *path;		/* file, "[vdso]", or "" for anonymous memory */
};

/*
 * Reads /proc/PID/maps (executable mappings only), with the build-ids of
 * the files.  Returns the number of maps in *out; free with bts_maps_free().
 */
BTS_API int bts_maps_read(pid_t pid, struct bts_map **out);
BTS_API void bts_maps_free(struct bts_map *maps, size_t n);

/* ------------------------------------------------------------- code bytes */

/*
 * Reads the ORIGINAL code bytes of a traced process: what the program's
 * file or memory holds, with any byte a source planted (a breakpoint) put
 * back.  Every reader of traced code goes through here.  Returns the number
 * of bytes read (may be short at the end of a mapping), or a negative error.
 */
struct bts_session;
BTS_API ssize_t bts_read_code(struct bts_session *s, pid_t pid, uint64_t addr,
			      void *buf, size_t len);

/* ------------------------------------------------------------ trace files */

struct bts_writer;

/*
 * Creates PATH.tmp.PID and writes the header; bts_writer_close() writes the
 * end chunk and renames it to PATH, so a file named PATH is always whole.
 * bts_writer_abort() removes the temporary file.
 */
BTS_API int bts_writer_open(const char *path, struct bts_writer **out);
BTS_API int bts_writer_session(struct bts_writer *w, int source, int mode,
			       uint64_t buffer_size);
BTS_API int bts_writer_process(struct bts_writer *w, pid_t pid, pid_t ppid,
			       const char *exe);
BTS_API int bts_writer_thread(struct bts_writer *w, pid_t pid, pid_t tid);
BTS_API int bts_writer_map(struct bts_writer *w, pid_t pid,
			   const struct bts_map *map);
/*
 * A copy of @len bytes of code at @addr in process @pid, for code no file
 * holds (the vDSO): readers get it back through bts_trace_code().
 */
BTS_API int bts_writer_code(struct bts_writer *w, pid_t pid, uint64_t addr,
			    const void *bytes, size_t len);
BTS_API int bts_writer_records(struct bts_writer *w, pid_t pid, pid_t tid,
			       const struct ptbts_record *recs, size_t n);
/*
 * @status as waitpid() reports it: WIFEXITED / WIFSIGNALED.  @tid 0: the
 * process @pid ended (its threads with no exit of their own read as ended
 * with it); otherwise the one thread @tid ended.  A process with no exit of
 * its own reads as ended with its main thread's (tid == pid) status.
 */
BTS_API int bts_writer_exit(struct bts_writer *w, pid_t pid, pid_t tid,
			    int status);
/* Frees @w, also on failure; the temporary file is then removed. */
BTS_API int bts_writer_close(struct bts_writer *w);
BTS_API void bts_writer_abort(struct bts_writer *w);

struct bts_trace;

struct bts_trace_info {
	uint32_t version;
	int source;		/* &enum ptbts_source */
	int mode;		/* &enum ptbts_mode */
	uint64_t buffer_size;
};

struct bts_thread_info {
	pid_t pid;
	pid_t tid;
	uint64_t nrecords;	/* records in the file, markers included */
	bool exited;		/* an exit chunk was seen */
	int status;		/* waitpid() status, when @exited */
};

struct bts_process_info {
	pid_t pid;
	pid_t ppid;
	const char *exe;
	bool exited;
	int status;
};

/*
 * Opens and fully validates a trace: every chunk is checked before this
 * returns, so later calls cannot fail on malformed data.  The memory form
 * copies nothing: @buf must outlive the trace.
 */
BTS_API int bts_trace_open(const char *path, struct bts_trace **out);
BTS_API int bts_trace_open_mem(const void *buf, size_t len,
			       struct bts_trace **out);
BTS_API void bts_trace_close(struct bts_trace *t);

BTS_API const struct bts_trace_info *bts_trace_info(const struct bts_trace *t);
BTS_API size_t bts_trace_nprocesses(const struct bts_trace *t);
BTS_API const struct bts_process_info *
bts_trace_process(const struct bts_trace *t, size_t i);
/* Threads in order of first appearance. */
BTS_API size_t bts_trace_nthreads(const struct bts_trace *t);
BTS_API const struct bts_thread_info *
bts_trace_thread(const struct bts_trace *t, size_t i);
/*
 * The maps of a process as they stand at the end of the file: a later map
 * replaces what it overlaps of earlier ones (as mmap does; their parts
 * outside it remain).  Sorted by start, none overlapping; strings and array
 * belong to the trace.
 */
BTS_API size_t bts_trace_maps(const struct bts_trace *t, pid_t pid,
			      const struct bts_map **maps);

/* Bytes of a process's memory that the trace carries (bts_writer_code). */
struct bts_code {
	uint64_t addr;
	uint64_t len;		/* > 0 */
	const uint8_t *bytes;	/* @len bytes: the code at @addr */
};
/*
 * The code copies of a process as they stand at the end of the file (a
 * later copy replaces what it overlaps of earlier ones).  Sorted by addr,
 * none overlapping; the array and bytes belong to the trace.
 */
BTS_API size_t bts_trace_code(const struct bts_trace *t, pid_t pid,
			      const struct bts_code **code);

/* Iterates a thread's records oldest first, across all its batches. */
struct bts_rec_iter {
	const struct bts_trace *trace;
	size_t thread;
	size_t batch;
	uint64_t index;
};
BTS_API void bts_trace_records(const struct bts_trace *t, size_t thread,
			       struct bts_rec_iter *it);
/* 1 and *rec filled, or 0 at the end. */
BTS_API int bts_rec_next(struct bts_rec_iter *it, struct ptbts_record *rec);

/* ------------------------------------------------------------- symbols */

struct bts_symbolizer;

/* Symbols of one traced process, from the maps the trace holds. */
BTS_API int bts_symbolizer_new(const struct bts_trace *t, pid_t pid,
			       struct bts_symbolizer **out);
BTS_API void bts_symbolizer_free(struct bts_symbolizer *s);
/*
 * The function containing @addr: its name (valid until the symbolizer is
 * freed) and @addr's offset into it.  0 when found, -BTS_E_INVAL when not.
 */
BTS_API int bts_symbolize(struct bts_symbolizer *s, uint64_t addr,
			  const char **name, uint64_t *offset);
/*
 * The @i-th warning bts_symbolizer_new() met (a file that is missing or
 * differs from the one traced: no names come from it; a stripped file with
 * no debug file: only its dynamic symbols name its code), or NULL past the
 * last.  libbts prints nothing: the caller says what it wants to.
 */
BTS_API const char *bts_symbolizer_warning(const struct bts_symbolizer *s,
					   size_t i);
/*
 * The source line of the instruction at @addr, from the DWARF of its file
 * or of that file's separate debug file: 0 and *file (valid until the
 * symbolizer is freed) and *line when known, -BTS_E_INVAL when not.
 */
BTS_API int bts_symbolize_line(struct bts_symbolizer *s, uint64_t addr,
			       const char **file, int *line);

/* ---------------------------------------------------- instruction history */

/*
 * The instructions a thread ran, rebuilt from its records and the code
 * bytes of the files its maps name (or the code copies the trace carries):
 * the instructions from one record's @to to the next record's @from ran in
 * order.  Holes in that knowledge are entries of their own (gaps), never
 * skipped in silence.  Model: libipt's instruction decoder.
 */

/* What an instruction does to the flow of control. */
enum bts_iclass {
	BTS_ICLASS_OTHER = 0,	/* falls through */
	BTS_ICLASS_COND,	/* conditional jump, loop, jrcxz */
	BTS_ICLASS_JUMP,	/* unconditional jump, direct or indirect */
	BTS_ICLASS_CALL,	/* near call, direct or indirect */
	BTS_ICLASS_RETURN,	/* near return */
	BTS_ICLASS_FAR,		/* far jump, call or return; iret */
	BTS_ICLASS_SYSCALL,	/* syscall, sysenter, int n */
	BTS_ICLASS_GAP,		/* no instruction: a hole in the history */
};

/* &struct bts_insn_entry.flags */
#define BTS_IF_TAKEN	 0x01	/* control went elsewhere than the next instruction */
#define BTS_IF_SIGNAL	 0x02	/* a signal handler's first instruction: the
				 * interrupted one did not run */
#define BTS_IF_SIGRETURN 0x04	/* the syscall that left a signal handler */
#define BTS_IF_RESYNC	 0x08	/* the first instruction after the start or a gap */
#define BTS_IF_TAIL	 0x10	/* after the last record: inferred, up to the
				 * first syscall or branch that would have
				 * been recorded */

/* Why the history has a hole (&struct bts_insn_entry.gap). */
enum bts_gap_reason {
	BTS_GAP_NONE = 0,
	BTS_GAP_LOST,		/* @gap_arg records were lost */
	BTS_GAP_MARKER,		/* a gap marker; @gap_arg: &enum ptbts_gap */
	BTS_GAP_FILTERED,	/* @gap_arg branches ran unrecorded (0: unknown) */
	BTS_GAP_EXEC,		/* the thread exec'd; @gap_arg: the entry point */
	BTS_GAP_NOCODE,		/* no code bytes at @gap_arg */
	BTS_GAP_UNDECODABLE,	/* the bytes at @gap_arg are no instruction */
	BTS_GAP_NO_PATH,	/* straight-line code does not reach the next
				 * record's from (@gap_arg) */
	BTS_GAP_NOT_BRANCH,	/* the record's from (@gap_arg) is no branch */
	BTS_GAP_MAX,
};

/* "lost", "marker", "filtered", "exec", "nocode", "undecodable", ... */
BTS_API const char *bts_gap_name(int reason);

struct bts_insn_entry {
	uint64_t index;		/* number in the thread's history, from 1 */
	uint64_t ip;		/* 0 for a gap */
	const uint8_t *raw;	/* @size code bytes, valid until the next call */
	uint8_t size;
	uint8_t iclass;		/* &enum bts_iclass */
	uint16_t flags;		/* BTS_IF_* */
	uint32_t gap;		/* &enum bts_gap_reason, for BTS_ICLASS_GAP */
	uint64_t gap_arg;
};

struct bts_decoder_opts {
	size_t sz;
	size_t cache_blocks;	/* blocks kept decoded; 0: the default (65536) */
	/*
	 * A session whose traced process is still there (stopped under it,
	 * or detached and running on): its code is read from its memory
	 * through bts_read_code(), planted bytes hidden, before the files
	 * and the trace's copies are tried.  Code no file holds (a JIT's)
	 * decodes only this way; code changed since it ran decodes as it is
	 * now.  NULL: offline only.
	 */
	struct bts_session *live;
};

struct bts_insn_decoder;

/* A decoder of thread @thread (an index, as in bts_trace_thread()). */
BTS_API int bts_insn_decoder_alloc(const struct bts_trace *t, size_t thread,
				   const struct bts_decoder_opts *opts,
				   struct bts_insn_decoder **out);
BTS_API void bts_insn_decoder_free(struct bts_insn_decoder *d);
/* 1 and *insn filled, 0 at the end, or a negative error (out of memory). */
BTS_API int bts_insn_next(struct bts_insn_decoder *d,
			  struct bts_insn_entry *insn);
/* The @i-th warning (a file not found or changed), or NULL past the last. */
BTS_API const char *bts_insn_decoder_warning(const struct bts_insn_decoder *d,
					     size_t i);

/* ------------------------------------------------------ function segments */

/*
 * gdb's `record function-call-history`: calls, returns, tail jumps into a
 * function and signals split the instruction history into segments, one
 * per visit of a function, numbered from 1.  Memory grows with the number
 * of segments, never with the number of instructions.
 */
enum bts_seg_entry {
	BTS_SEG_START = 0,	/* the first, or the first after a gap */
	BTS_SEG_CALL,
	BTS_SEG_RETURN,
	BTS_SEG_TAILCALL,	/* a jump to the start of a function */
	BTS_SEG_SWITCH,		/* another function without a call or return */
	BTS_SEG_SIGNAL,		/* a signal handler (or its restorer) */
	BTS_SEG_SIGRETURN,	/* back from a signal handler */
	BTS_SEG_GAP,		/* a hole: one entry, @gap says why */
};

struct bts_segment {
	uint64_t number;	/* from 1 */
	int level;		/* call depth; the outermost in the history is 0 */
	int entry;		/* &enum bts_seg_entry */
	const char *function;	/* NULL: unknown */
	uint64_t first, last;	/* instruction numbers, inclusive */
	const char *file;	/* source file of its lines, or NULL */
	int line_min, line_max;
	uint32_t gap;		/* &enum bts_gap_reason for BTS_SEG_GAP */
	uint64_t gap_arg;
};

struct bts_calls_opts {
	size_t sz;
	struct bts_symbolizer *sym;	/* names (and lines); NULL: none */
	bool lines;			/* fill file and line range (slower) */
	const struct bts_decoder_opts *decoder;
};

struct bts_call_history;

/* Decodes thread @thread once and keeps its segments. */
BTS_API int bts_call_history_build(const struct bts_trace *t, size_t thread,
				   const struct bts_calls_opts *opts,
				   struct bts_call_history **out);
BTS_API void bts_call_history_free(struct bts_call_history *h);
BTS_API size_t bts_call_history_count(const struct bts_call_history *h);
/* The segment numbered @i + 1, or NULL. */
BTS_API const struct bts_segment *
bts_call_history_segment(const struct bts_call_history *h, size_t i);
/* Entries of the instruction history (gaps included), and gaps. */
BTS_API uint64_t bts_call_history_insns(const struct bts_call_history *h);
BTS_API uint64_t bts_call_history_gaps(const struct bts_call_history *h);

/* ------------------------------------------------------------ recording */

struct bts_session_opts {
	size_t sz;
	int source;		/* &enum ptbts_source or BTS_SOURCE_AUTO */
	int mode;		/* &enum ptbts_mode: RING or BLOCK */
	uint64_t buffer_size;	/* bytes per thread; 0: the default (4 MiB) */
	struct bts_writer *writer; /* where the trace goes; may be NULL */
};

/*
 * Starts argv[0] (searched in PATH) traced from its first instruction.
 * Fails with -BTS_E_NOENT / -BTS_E_NOEXEC when it cannot be run.
 */
BTS_API int bts_session_spawn(char *const argv[],
			      const struct bts_session_opts *opts,
			      struct bts_session **out);
/* Traces every thread of a running process. */
BTS_API int bts_session_attach(pid_t pid, const struct bts_session_opts *opts,
			       struct bts_session **out);
/*
 * Traces until every traced thread is gone or bts_session_stop() is
 * called; then flushes all records to the writer.  On a stop, code the
 * source changed is restored; an attached process is detached and runs on,
 * a spawned one is killed.
 */
BTS_API int bts_session_run(struct bts_session *s);
/* Async-signal-safe. */
BTS_API void bts_session_stop(struct bts_session *s);

struct bts_session_stats {
	int source;		/* the source in use */
	uint64_t threads;	/* threads seen */
	uint64_t records;	/* records written, markers included */
	uint64_t lost;
	pid_t pid;		/* the main process */
	bool exited;		/* the main process ended (not detached) */
	int status;		/* its waitpid() status, when @exited */
};
BTS_API void bts_session_stats(const struct bts_session *s,
			       struct bts_session_stats *st);
BTS_API void bts_session_free(struct bts_session *s);

#ifdef __cplusplus
}
#endif

#endif /* BTS_H */
