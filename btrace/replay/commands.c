// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay prompt's command table: names, gdb's aliases, help.  A name
 * may be shortened to any prefix that no other command shares, as in gdb.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../btrace.h"
#include "commands.h"

static replay_cmd_fn rc_help, rc_quit;

struct replay_cmd {
	const char *name;
	const char *aliases[3];
	replay_cmd_fn *run;
	const char *args;
	const char *help;
};

static const struct replay_cmd cmds[] = {
	/* reverse-s: what it meant before reverse-step existed. */
	{ "reverse-stepi", { "rsi", "reverse-s" }, rc_reverse_stepi, "[N]",
	  "go back N instructions (1)" },
	{ "stepi", { "si" }, rc_stepi, "[N]", "go forward N instructions (1)" },
	{ "reverse-next", { "rn" }, rc_reverse_next, "[N]",
	  "go back N source lines (1), over calls" },
	{ "next", { "n" }, rc_next, "[N]", "go forward N source lines (1), over calls" },
	{ "reverse-step", { "rs" }, rc_reverse_step, "[N]",
	  "go back N source lines (1), into calls" },
	{ "step", { "s" }, rc_step, "[N]", "go forward N source lines (1), into calls" },
	{ "reverse-continue", { "rc" }, rc_reverse_continue, "",
	  "go back to the previous breakpoint" },
	{ "continue", { "c", "cont" }, rc_continue, "",
	  "go forward to the next breakpoint" },
	{ "break", { "b", "br" }, rc_break, "FUNC|FILE:LINE|*ADDR",
	  "stop continue and reverse-continue there" },
	{ "delete", { "d" }, rc_delete, "[N]", "delete breakpoint N (all)" },
	{ "reverse-finish", { 0 }, rc_reverse_finish, "",
	  "go back to the call of the current function" },
	{ "finish", { "fin" }, rc_finish, "",
	  "go forward past the return of the current function" },
	{ "goto", { 0 }, rc_goto, "N|begin|end",
	  "go to instruction N, the first or the last (also record goto)" },
	{ "bt", { "backtrace", "where" }, rc_bt, "[N|-N]",
	  "the call stack here (its N innermost or outermost frames)" },
	{ "list", { "l" }, rc_list, "", "the source lines around here" },
	{ "history", { 0 }, rc_history, "[N]",
	  "N instructions around here (10)" },
	{ "calls", { 0 }, rc_calls, "[N]",
	  "N function segments around here (10)" },
	{ "info", { "i" }, rc_info, "position|threads|registers|breakpoints|sharedlibrary",
	  "where we are; the threads; the registers at the crash; the\n"
	  "                               breakpoints; the shared libraries" },
	{ "thread", { 0 }, rc_thread, "[N]",
	  "switch to thread N (a number of 'info threads' or a TID)" },
	{ "help", { "h" }, rc_help, "", "this list" },
	{ "quit", { "q", "exit" }, rc_quit, "", "leave" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static int rc_help(struct replay *r, const char *args)
{
	(void)r;
	(void)args;
	printf("Commands (gdb's names; any unique prefix works):\n");
	for (size_t i = 0; i < NCMDS; i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", cmds[i].name, cmds[i].args);
		printf("  %-28s %s", head, cmds[i].help);
		for (size_t a = 0; a < 3 && cmds[i].aliases[a]; a++)
			printf("%s%s", a ? ", " : " (also ", cmds[i].aliases[a]);
		printf("%s\n", cmds[i].aliases[0] ? ")" : "");
	}
	printf("An empty line at the prompt repeats the last command.\n");
	return 0;
}

static int rc_quit(struct replay *r, const char *args)
{
	(void)args;
	r->quit = true;
	return 0;
}

/* @word of @len matches @name, or its first words (for "record goto"). */
static bool is(const char *name, const char *word, size_t len)
{
	return strlen(name) == len && !strncmp(name, word, len);
}

/* The command named @word, or NULL; *@n: how many names it prefixes. */
static const struct replay_cmd *lookup(const char *word, size_t len, int *n)
{
	const struct replay_cmd *found = NULL;

	*n = 1;
	for (size_t i = 0; i < NCMDS; i++) {
		if (is(cmds[i].name, word, len))
			return &cmds[i];
		for (size_t a = 0; a < 3 && cmds[i].aliases[a]; a++)
			if (is(cmds[i].aliases[a], word, len))
				return &cmds[i];
	}
	*n = 0;
	for (size_t i = 0; i < NCMDS; i++) {
		if (!strncmp(cmds[i].name, word, len)) {
			found = &cmds[i];
			(*n)++;
		}
	}
	return *n == 1 ? found : NULL;
}

static const char *skip_blanks(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

int replay_command(struct replay *r, const char *line)
{
	const struct replay_cmd *c;
	char args[256];
	size_t len, alen;
	int n;

	line = skip_blanks(line);
	if (!*line || *line == '#')
		return 0;
	len = strcspn(line, " \t\r\n");
	/* gdb's two-word form of goto */
	if (!strncmp(line, "record ", 7) && !strncmp(skip_blanks(line + 7), "goto", 4)) {
		line = skip_blanks(line + 7);
		len = 4;
	}
	c = lookup(line, len, &n);
	if (!c) {
		error("%s command: \"%.*s\"; try \"help\"",
		      n > 1 ? "ambiguous" : "undefined", (int)len, line);
		return -1;
	}
	line = skip_blanks(line + len);
	alen = strcspn(line, "\r\n");
	while (alen && isspace((unsigned char)line[alen - 1]))
		alen--;
	if (alen >= sizeof(args)) {
		error("%s: arguments too long", c->name);
		return -1;
	}
	memcpy(args, line, alen);
	args[alen] = 0;
	return c->run(r, args);
}

int parse_count_arg(const char *args, uint64_t *n)
{
	char *end;
	unsigned long long v;

	if (!*args) {
		*n = 1;
		return 0;
	}
	errno = 0;
	v = strtoull(args, &end, 10);
	if (errno || end == args || *end || args[0] == '-' || !v) {
		error("'%s' is not a positive number", args);
		return -1;
	}
	*n = v;
	return 0;
}
