// SPDX-License-Identifier: GPL-2.0-or-later
/* Command lines for the replay prompt: script, terminal (libedit), pipe. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "../btrace.h"
#include "input.h"

#define PROMPT "(replay) "

int input_open(struct replay_input *in, const char *script)
{
	memset(in, 0, sizeof(*in));
	in->tty = isatty(STDIN_FILENO);
	if (!script)
		return 0;
	in->script = fopen(script, "re");
	if (!in->script) {
		error("replay: %s: %s", script, strerror(errno));
		return -1;
	}
	in->script_path = script;
	return 0;
}

static char *read_line(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len = getline(&line, &cap, f);

	if (len < 0) {
		free(line);
		return NULL;
	}
	if (len && line[len - 1] == '\n')
		line[len - 1] = 0;
	return line;
}

/* A terminal line; an empty one repeats the last, as gdb's prompt does. */
static char *terminal_line(struct replay_input *in)
{
	char *line = readline(PROMPT);

	if (!line)
		return NULL;
	if (!line[strspn(line, " \t")] && in->last) {
		free(line);
		return strdup(in->last);
	}
	if (line[strspn(line, " \t")]) {
		add_history(line);
		free(in->last);
		in->last = strdup(line);
	}
	return line;
}

char *input_next(struct replay_input *in, bool *from_script)
{
	char *line;

	if (in->script) {
		line = read_line(in->script);
		if (line) {
			in->script_line++;
			*from_script = true;
			return line;
		}
		fclose(in->script);
		in->script = NULL;
	}
	*from_script = false;
	if (in->tty)
		return terminal_line(in);
	return read_line(stdin);
}

void input_close(struct replay_input *in)
{
	if (in->script)
		fclose(in->script);
	free(in->last);
	memset(in, 0, sizeof(*in));
}
