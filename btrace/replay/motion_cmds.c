// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The commands that move: stepi, next, finish, their reverse forms, goto.
 * Each ends by saying where it stopped, as gdb does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../btrace.h"
#include "commands.h"
#include "motion.h"

int replay_moved(struct replay *r, int result)
{
	if (result == MOTION_NO_HISTORY)
		printf("\nNo more reverse-execution history.\n");
	replay_print_where(r);
	return 0;
}

static int no_args(const char *cmd, const char *args)
{
	if (!*args)
		return 0;
	error("%s takes no argument", cmd);
	return -1;
}

static int stepi(struct replay *r, const char *args, bool reverse)
{
	struct replay_thread *th = replay_current(r);
	uint64_t n;

	if (parse_count_arg(args, &n) < 0)
		return -1;
	return replay_moved(r, motion_stepi(&th->h, &th->pos, n, reverse));
}

int rc_stepi(struct replay *r, const char *args)
{
	return stepi(r, args, false);
}

int rc_reverse_stepi(struct replay *r, const char *args)
{
	return stepi(r, args, true);
}

typedef int line_motion(const struct replay_history *h, struct bts_symbolizer *sym,
			uint64_t *pos, bool reverse);

/* N source lines by @move (motion_next or motion_step). */
static int by_lines(struct replay *r, const char *args, bool reverse,
		    line_motion *move)
{
	struct replay_thread *th = replay_current(r);
	int result = MOTION_DONE;
	uint64_t n;

	if (parse_count_arg(args, &n) < 0)
		return -1;
	while (n-- && result == MOTION_DONE)
		result = move(&th->h, replay_sym(r), &th->pos, reverse);
	return replay_moved(r, result);
}

int rc_step(struct replay *r, const char *args)
{
	return by_lines(r, args, false, motion_step);
}

int rc_reverse_step(struct replay *r, const char *args)
{
	return by_lines(r, args, true, motion_step);
}

int rc_next(struct replay *r, const char *args)
{
	return by_lines(r, args, false, motion_next);
}

int rc_reverse_next(struct replay *r, const char *args)
{
	return by_lines(r, args, true, motion_next);
}

static int finish(struct replay *r, const char *cmd, const char *args,
		  bool reverse)
{
	struct replay_thread *th = replay_current(r);

	if (no_args(cmd, args) < 0)
		return -1;
	return replay_moved(r, motion_finish(&th->h, &th->pos, reverse));
}

int rc_finish(struct replay *r, const char *args)
{
	return finish(r, "finish", args, false);
}

int rc_reverse_finish(struct replay *r, const char *args)
{
	return finish(r, "reverse-finish", args, true);
}

int rc_goto(struct replay *r, const char *args)
{
	struct replay_thread *th = replay_current(r);
	unsigned long long v;
	char *end;

	if (!strcmp(args, "begin") || !strcmp(args, "start")) {
		th->pos = 1;
		return replay_moved(r, MOTION_DONE);
	}
	if (!strcmp(args, "end")) {
		th->pos = th->h.n;
		return replay_moved(r, MOTION_DONE);
	}
	errno = 0;
	v = strtoull(args, &end, 10);
	if (!*args || errno || *end || args[0] == '-') {
		error("goto: N, begin or end, not '%s'", args);
		return -1;
	}
	if (v < 1 || v > th->h.n) {
		error("goto: instruction %llu is not in the history (1 to %" PRIu64 ")",
		      v, th->h.n);
		return -1;
	}
	th->pos = v;
	return replay_moved(r, MOTION_DONE);
}
