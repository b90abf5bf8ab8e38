// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace: record the branches a program takes, and read them back.
 * This file only finds the command; each lives in its own cmd-*.c.
 */
#include <stdio.h>
#include <string.h>

#include <bts.h>

#include "btrace.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "run a program (or attach to one) and record its branches" },
	{ "dump",   cmd_dump,   "print the branches, instructions or calls of a trace file" },
	{ "info",   cmd_info,   "say which branch sources work on this machine" },
	{ "index",  cmd_index,  "write the index of a trace file's histories into it" },
	{ "stats",  cmd_stats,  "count the records, instructions and calls of a trace file" },
	{ "gdbserver", cmd_gdbserver, "let gdb debug a program, with reverse stepping from its branches" },
	{ "report", cmd_report, "say what killed a traced program, where, and how it got there" },
	{ "export", cmd_export, "write the function calls of a trace file for profile viewers" },
	{ "view",   cmd_view,   "write a web page that shows a trace file's calls (speedscope)" },
	{ "replay", cmd_replay, "step back and forth through a trace file at a gdb-like prompt" },
	{ "selftest", cmd_selftest, "compare every branch source that works here, record for record" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(void)
{
	printf("usage: btrace [--version] [--help] COMMAND [ARGS]\n\n"
	       "Records the branches a program takes, and reads them back.\n\n"
	       "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	printf("  %-10s %s\n", "help", "show the help of a command");
	printf("\n'btrace help COMMAND' or 'btrace COMMAND --help' tells more.\n");
}

static int version(void)
{
	unsigned int v = bts_version();

	printf("btrace (ptrace-bts) %u.%u.%u\n", v >> 16, (v >> 8) & 0xff,
	       v & 0xff);
	return 0;
}

/* Edit distance, capped: enough to catch a typo, as git's "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[16], i, j;

	if (la >= 16 || lb >= 16)
		return 16;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0], up;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

static int unknown(const char *name)
{
	const char *best = NULL;
	size_t d, best_d = 3;	/* at most two edits away */

	for (size_t i = 0; i < NCOMMANDS; i++) {
		d = distance(name, commands[i].name);
		if (d < best_d) {
			best_d = d;
			best = commands[i].name;
		}
	}
	if (best) {
		error("'%s' is not a btrace command; did you mean '%s'? "
		      "(see 'btrace --help')", name, best);
		return EXIT_USAGE;
	}
	error("'%s' is not a btrace command (see 'btrace --help')", name);
	return EXIT_USAGE;
}

/* "btrace help CMD" is "btrace CMD --help". */
static int help(int argc, char **argv)
{
	const struct command *c;
	char *args[3];

	/* "help" alone, or "help help" as git takes it: the command list. */
	if (argc < 2 || !strcmp(argv[1], "help")) {
		usage();
		return 0;
	}
	if (argc > 2) {
		error("help: one command at a time");
		return EXIT_USAGE;
	}
	c = find_command(argv[1]);
	if (!c)
		return unknown(argv[1]);
	args[0] = argv[1];
	args[1] = "--help";
	args[2] = NULL;
	return c->run(2, args);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		error("no command given (see 'btrace --help')");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return help(1, argv + 1);
	if (!strcmp(argv[1], "--version"))
		return version();
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		error("unknown option '%s' (see 'btrace --help')", argv[1]);
		return EXIT_USAGE;
	}
	c = find_command(argv[1]);
	if (!c)
		return unknown(argv[1]);
	return c->run(argc - 1, argv + 1);
}
