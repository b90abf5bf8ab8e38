/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call stack at a position of the history: the stack unwound at the
 * crash, adjusted by the calls and returns between the position and the
 * crash; without one, the stack the history itself shows.
 */
#ifndef REPLAY_FRAMES_H
#define REPLAY_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bts.h>

#include "history.h"

enum frame_kind {
	FRAME_PC,		/* @pc: where the innermost frame is */
	FRAME_RETURN,		/* @pc: a return address (its line: pc - 1) */
	FRAME_SIGNAL,		/* a signal frame: the handler was called here */
	FRAME_UNKNOWN,		/* a frame older than the history */
	FRAME_GAP,		/* the position is a gap: where is unknown */
};

struct replay_frame {
	int kind;		/* &enum frame_kind */
	uint64_t pc;
};

/* The stack unwound when the thread stopped, innermost first. */
struct replay_stop {
	uint64_t pos;		/* where in the history; 0: no stop known */
	const struct replay_frame *frames;
	size_t n;
};

/* Frames shown at most: deeper stacks are cut, as a bound on output. */
#define REPLAY_MAX_FRAMES 256

/*
 * Fills up to @max frames of the stack at @pos, innermost first; returns
 * how many.  @stop may be NULL.
 */
size_t replay_frames(const struct replay_history *h, uint64_t pos,
		     const struct replay_stop *stop,
		     struct replay_frame *out, size_t max);

/* "#N  0x... in func () at file:line", gdb's layout; @json: one object. */
void replay_frame_print(struct bts_symbolizer *sym, size_t i,
			const struct replay_frame *fr, bool json);

#endif /* REPLAY_FRAMES_H */
