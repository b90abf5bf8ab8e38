/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The commands of the replay prompt.  commands.c finds a command by name,
 * gdb alias or unique prefix; motion_cmds.c and view_cmds.c run them.
 */
#ifndef REPLAY_COMMANDS_H
#define REPLAY_COMMANDS_H

#include "state.h"

/*
 * Runs one command line; 0, or -1 when it failed (one line on stderr).
 * Sets r->quit for quit.  Blank lines and '#' comments do nothing.
 */
int replay_command(struct replay *r, const char *line);

/* Handlers: @args is the rest of the line, without leading blanks. */
typedef int replay_cmd_fn(struct replay *r, const char *args);

replay_cmd_fn rc_stepi, rc_reverse_stepi, rc_next, rc_reverse_next;
replay_cmd_fn rc_finish, rc_reverse_finish, rc_goto;
replay_cmd_fn rc_bt, rc_list, rc_history, rc_calls, rc_info, rc_thread;
replay_cmd_fn rc_step, rc_reverse_step, rc_break, rc_delete, rc_continue;
replay_cmd_fn rc_reverse_continue;

/* info breakpoints, info sharedlibrary. */
int info_breakpoints(struct replay *r);
int info_sharedlibrary(struct replay *r);

/* Says where a motion (&enum motion_result) ended, as gdb does. */
int replay_moved(struct replay *r, int result);

/* A count argument: empty is 1; -1 with a message when it is not one. */
int parse_count_arg(const char *args, uint64_t *n);

#endif /* REPLAY_COMMANDS_H */
