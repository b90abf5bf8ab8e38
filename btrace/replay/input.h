/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where replay commands come from: a script (-x) first, then the terminal
 * with line editing and history (libedit), or plain lines from a pipe.
 */
#ifndef REPLAY_INPUT_H
#define REPLAY_INPUT_H

#include <stdbool.h>
#include <stdio.h>

struct replay_input {
	FILE *script;		/* NULL once read to its end */
	const char *script_path;
	unsigned int script_line;
	bool tty;		/* stdin is a terminal: prompt and edit */
	char *last;		/* the last terminal line, for an empty one */
};

/* 0, or -1 with a message when @script (may be NULL) cannot be read. */
int input_open(struct replay_input *in, const char *script);
/*
 * The next command line (malloc'ed, without its newline), or NULL at the
 * end of input.  *from_script tells where it came from.
 */
char *input_next(struct replay_input *in, bool *from_script);
void input_close(struct replay_input *in);

#endif /* REPLAY_INPUT_H */
