/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The interface every branch source of a recording session fills in.
 *
 * libbts keeps the ptrace side for every source (spawn, attach, threads,
 * processes, signals, exit: session/); a source records the branches of
 * the threads it is given, in its own way, and keeps its state behind the
 * session's and each thread's opaque @src pointer.  The session decides
 * nothing by a source's name: what differs is an operation here or a
 * capability bit.  A new source is one folder under sources/ with its
 * struct bts_source_ops, and one entry in the table of sources/sources.c,
 * which the layer that creates sessions (recorder/) picks from.
 *
 * Every operation may be NULL where the source has nothing to do.
 */
#ifndef BTS_SOURCE_H
#define BTS_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct bts_session;
struct bts_thread;
struct bts_stop_event;
struct bts_frame;

/* What a source can do, or needs. */
enum {
	BTS_SRC_ABI32	 = 1u << 0,	/* records 32-bit (i386) programs */
	BTS_SRC_DEBUGGER = 1u << 1,	/* a debugger can drive it (control/) */
	BTS_SRC_PLACE	 = 1u << 2,	/* stops so often that tracer and program
					   are worth placing on one CPU */
	BTS_SRC_SKIP	 = 1u << 3,	/* takes objects to run at full speed
					   (the skip operation) */
	BTS_SRC_NOBP	 = 1u << 4,	/* plants no int3: a memory's table is off */
	BTS_SRC_GUEST	 = 1u << 5,	/* the traced process is an emulator that
					   runs the program: its registers are
					   not the program's, the source writes
					   the START itself */
};

/*
 * Whether a mapping (a line of /proc/@pid/maps: @perms, @path, ...) holds
 * the program's code.
 */
typedef bool (*bts_map_code_fn)(pid_t pid, const char *perms,
				const char *path, uint64_t start,
				uint64_t end, uint64_t offset);

struct bts_source_ops {
	int id;			/* PTBTS_SOURCE_* */
	unsigned int caps;	/* BTS_SRC_* */

	/*
	 * For a session's requested source @want (0 or BTS_SOURCE_AUTO:
	 * any) in @mode: @id when this source takes it, 0 when it passes,
	 * or -BTS_E_* (bts_fail()) when asked for by name and unusable.
	 */
	int (*pick)(int want, int mode);
	/*
	 * The command that runs @path with @argv under this source (an
	 * emulator's), into *@out, the source's until close; NULL: @path
	 * itself.  0 or -BTS_E_*.
	 */
	int (*command)(struct bts_session *s, const char *path,
		       char *const argv[], char *const **out);
	/* Which mappings are the program's code; NULL: the executable ones. */
	bts_map_code_fn map_code;
	/* The session's private state (s->src); 0 or -BTS_E_*. */
	int (*open)(struct bts_session *s);
	void (*close)(struct bts_session *s);
	/*
	 * After open, for a source with BTS_SRC_SKIP: the objects to run at
	 * full speed, @globs as the session's options give them (NULL: none;
	 * the caller's, read during the call only).  0 or -BTS_E_*.
	 */
	int (*skip)(struct bts_session *s, const char *const *globs);

	/*
	 * A thread joins the session, before its first stop: its private
	 * state (t->src), when it needs one from the start; 0 or -BTS_E_*.
	 */
	int (*add)(struct bts_session *s, struct bts_thread *t);
	/* At a thread's first stop: it records from here (t->started). */
	void (*attach)(struct bts_session *s, struct bts_thread *t);
	/* The thread leaves the session: its private state (t->src) freed. */
	void (*detach)(struct bts_session *s, struct bts_thread *t);
	/* An exec stop of @t: the EXEC chunk, the new image's maps, its start. */
	void (*exec)(struct bts_session *s, struct bts_thread *t);
	/*
	 * @t runs on untraced from here, recorded no more: an image the
	 * source cannot record, a shadow whose memory went with an exec.
	 */
	void (*untrace)(struct bts_session *s, struct bts_thread *t);
	/* Whether the source follows the started @t by its stops. */
	bool (*recording)(struct bts_session *s, const struct bts_thread *t);
	/* What the source holds of @t's records, to the session's writer. */
	void (*drain)(struct bts_session *s, struct bts_thread *t);

	/* The ptrace request that resumes @t; NULL: PTRACE_CONT, it runs. */
	int (*resume_request)(struct bts_session *s, struct bts_thread *t);
	/*
	 * A signal-delivery-stop of a started @t (a step report, a trap, a
	 * signal): the signal to deliver, 0 when the stop was the source's.
	 */
	int (*signal)(struct bts_session *s, struct bts_thread *t,
		      const struct bts_stop_event *ev);
	/* A syscall stop of @t; @t is then resumed. */
	void (*syscall)(struct bts_session *s, struct bts_thread *t);
	/* PTRACE_EVENT_EXIT of @t: what it ran so far, before it goes. */
	void (*exiting)(struct bts_session *s, struct bts_thread *t);
	/*
	 * A stop that came instead of the one asked for (an interrupt's): the
	 * source takes its own step, syscall or trap into @t's records; @t
	 * stays stopped.  True when the stop was the source's.
	 */
	bool (*own_stop)(struct bts_session *s, struct bts_thread *t,
			 const struct bts_stop_event *ev);
	/* @t is stopped and stays so a while: the records of what it ran. */
	void (*sync)(struct bts_session *s, struct bts_thread *t);
	/*
	 * A report the source kept back (a thread it held), before the next
	 * wait: true and *@tid, *@status.  @all_stopped: no thread runs.
	 */
	bool (*held)(struct bts_session *s, bool all_stopped, pid_t *tid,
		     int *status);
	/* waitpid(-1, status, __WALL) as the source needs it; NULL: that. */
	pid_t (*wait)(struct bts_session *s, int *status);
	/* Every change to the program's code out: it is let go, or killed. */
	void (*restore)(struct bts_session *s);
	/*
	 * The code at the addresses the source may have read is not what it
	 * read (another image became current, a debugger wrote memory).
	 */
	void (*code_changed)(struct bts_session *s);

	/*
	 * @t's process is about to die of @sig: what the crash trace needs
	 * that only the source knows (an emulator's guest's registers) is
	 * gathered, *@si corrected to the program's own signal, and *@exe
	 * to the program's file (an emulator's guest's, for the trace's
	 * name and process).  Returns the thread that crashed (@t, or the
	 * guest's that the emulator killed itself for).
	 */
	struct bts_thread *(*crash)(struct bts_session *s, struct bts_thread *t,
				    int sig, siginfo_t *si, const char **exe);
	/*
	 * @t's registers as the program has them; 0 or -errno.  NULL: the
	 * source changes none, PTRACE_GETREGS shows them as they are.
	 */
	int (*getregs)(struct bts_session *s, struct bts_thread *t,
		       struct user_regs_struct *r);
	/*
	 * At a crash: @t's stack as the program has it into @frames (at
	 * most @max), *@why saying why it stopped early (or "").  NULL:
	 * unwound through ptrace, from the registers ptrace shows.
	 */
	size_t (*unwind)(struct bts_session *s, struct bts_thread *t,
			 struct bts_frame *frames, size_t max, char *why,
			 size_t whylen);
};

#endif /* BTS_SOURCE_H */
