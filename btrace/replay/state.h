/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A replay: the trace, its crash (if any), the threads and where each one
 * stands.  A thread's history is decoded the first time it is selected.
 */
#ifndef REPLAY_STATE_H
#define REPLAY_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <bts.h>

#include "../dump.h"
#include "frames.h"
#include "history.h"

struct replay_thread {
	size_t index;			/* in the trace */
	pid_t tid, pid;
	bool loaded;
	struct replay_history h;
	uint64_t pos;			/* the current instruction, 1..h.n */
	struct replay_stop stop;	/* where the crash found it, if it did */
	struct replay_frame *stop_frames;
	const struct bts_crash_thread *crash;	/* NULL: not in the crash */
	struct bts_call_history *calls;	/* made by the first `calls` */
};

/* A breakpoint: every location resolves to the address it stops at. */
struct replay_break {
	int number;		/* from 1, as gdb numbers them */
	uint64_t addr;
	char *spec;		/* as the user gave it */
};

struct replay {
	const char *path;
	struct bts_trace *trace;
	struct dump_opts o;		/* how dump's printers print */
	struct dump_ctx dump;		/* symbolizers, per process */
	const struct bts_crash_info *crash;	/* NULL: no crash in the file */
	struct replay_thread *threads;
	size_t nthreads;
	size_t cur;
	struct replay_break *breaks;
	size_t nbreaks;
	int last_break;		/* the number of the newest */
	bool quit;
	uint64_t window;	/* instructions held decoded; 0: the default */
};

/* Opens @path; on failure says why (one line) and returns -1. */
int replay_open(struct replay *r, const char *path);
void replay_close(struct replay *r);

/* Decodes thread @i if not yet done; on failure says why and returns -1. */
int replay_load(struct replay *r, size_t i);
/*
 * Makes thread @i current, decoding it if needed.  On failure (a thread
 * with no history, out of memory) says why and returns -1.
 */
int replay_select(struct replay *r, size_t i);
/* The current thread (selected successfully at least once). */
struct replay_thread *replay_current(struct replay *r);
struct bts_symbolizer *replay_sym(struct replay *r);

/*
 * The function-call history of @th, built on first use (with lines); on
 * failure says why and returns -1.
 */
int replay_calls(struct replay *r, struct replay_thread *th);
/* The index of the segment of th->calls holding instruction @pos. */
size_t replay_segment_of(const struct replay_thread *th, uint64_t pos);

/* Where the current thread stands: its source line and its instruction. */
void replay_print_where(struct replay *r);
/* "the crash point", "the end of the history", ... or NULL. */
const char *replay_pos_name(const struct replay_thread *th);

#endif /* REPLAY_STATE_H */
