/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Moving through a thread's history as gdb moves through a btrace replay:
 * by instructions, by source lines stepping over calls (next), and out of
 * the current function (finish), forwards or backwards.
 */
#ifndef REPLAY_MOTION_H
#define REPLAY_MOTION_H

#include <stdbool.h>
#include <stdint.h>

#include <bts.h>

#include "history.h"

enum motion_result {
	MOTION_DONE,		/* moved as asked */
	MOTION_NO_HISTORY,	/* stopped at an end of the history */
};

/* @count instructions; gaps count as one. */
int motion_stepi(const struct replay_history *h, uint64_t *pos,
		 uint64_t count, bool reverse);
/*
 * One source line, calls stepped over; by instruction where the line is
 * unknown (@sym NULL or no line information), as gdb's nexti.  Backwards
 * it ends at the first instruction of the previous line; leaving the
 * function's start it ends at the call that entered it.
 */
int motion_next(const struct replay_history *h, struct bts_symbolizer *sym,
		uint64_t *pos, bool reverse);
/*
 * One source line into calls, as gdb's step: forwards to the first
 * instruction of the next line, in a called function that has lines
 * (those without are run through whole); backwards to the start of the
 * previous line, in the function it returned from if it has lines.
 */
int motion_step(const struct replay_history *h, struct bts_symbolizer *sym,
		uint64_t *pos, bool reverse);
/*
 * Out of the current function: forwards to the first instruction after
 * its return, backwards to the call that entered it.
 */
int motion_finish(const struct replay_history *h, uint64_t *pos, bool reverse);

#endif /* REPLAY_MOTION_H */
