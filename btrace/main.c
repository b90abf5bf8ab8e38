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
	{ "stats",  cmd_stats,  "count the records, instructions and calls of a trace file" },
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
		printf("  %-8s %s\n", commands[i].name, commands[i].summary);
	printf("  %-8s %s\n", "help", "show the help of a command");
	printf("\n'btrace help COMMAND' or 'btrace COMMAND --help' tells more.\n");
}

static int version(void)
{
	unsigned int v = bts_version();

	printf("btrace (ptrace-bts) %u.%u.%u\n", v >> 16, (v >> 8) & 0xff,
	       v & 0xff);
	return 0;
}

static int unknown(const char *name)
{
	error("'%s' is not a btrace command (see 'btrace --help')", name);
	return EXIT_USAGE;
}

/* "btrace help CMD" is "btrace CMD --help". */
static int help(int argc, char **argv)
{
	const struct command *c;
	char *args[3];

	if (argc < 2) {
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
