/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option parser every btrace command shares.  A command describes its
 * options in one table; the same table parses argv and prints --help, so a
 * flag cannot be documented one way and parsed another.
 */
#ifndef BTRACE_OPTIONS_H
#define BTRACE_OPTIONS_H

#include <stdbool.h>

enum option_type {
	OPTION_END,
	OPTION_FLAG,		/* bool *value set to true, no argument */
	OPTION_STRING,		/* const char **value, one argument */
	OPTION_CALLBACK,	/* parse(arg, value): NULL, or why @arg is wrong */
};

struct option {
	enum option_type type;
	char short_name;	/* 0 when none */
	const char *long_name;	/* NULL when none */
	const char *argname;	/* shown in help: "FILE", "SIZE" */
	const char *help;
	void *value;
	const char *(*parse)(const char *arg, void *value);
};

/*
 * The options that mean one thing in every command live here, so that two
 * commands cannot give one flag two meanings.
 */
#define OPT_FLAG(s, l, v, h)		{ OPTION_FLAG, (s), (l), NULL, (h), (v), NULL }
#define OPT_STRING(s, l, a, v, h)	{ OPTION_STRING, (s), (l), (a), (h), (v), NULL }
#define OPT_CALLBACK(s, l, a, v, h, f)	{ OPTION_CALLBACK, (s), (l), (a), (h), (v), (f) }
#define OPT_END()			{ OPTION_END, 0, NULL, NULL, NULL, NULL, NULL }

#define OPT_OUTPUT(v)	OPT_STRING('o', "output", "FILE", (v), \
				   "write the trace to FILE (default: btrace.btr)")
#define OPT_PID(v)	OPT_CALLBACK('p', "pid", "PID", (v), \
				     "record the running process PID instead of CMD", \
				     parse_pid)
/* --source NAME; @names: the sources the command takes, for its help. */
#define OPT_SOURCE(v, names)	OPT_CALLBACK(0, "source", "NAME", (v), \
					     names "; see 'btrace info'", parse_source)
#define OPT_MODE(v)	OPT_CALLBACK(0, "mode", "MODE", (v), \
				     "block (default: lose nothing), ring (the newest) or stop (the oldest)", \
				     parse_mode)
#define OPT_BUFFER(v)	OPT_CALLBACK(0, "buffer", "SIZE", (v), \
				     "bytes per thread, K/M/G suffixes (default: 4M)", \
				     parse_buffer_size)
#define OPT_NO_DEMANGLE(v) OPT_FLAG(0, "no-demangle", (v), \
				 "show C++ and Rust names as mangled in the binary")
#define OPT_RAW(v)	OPT_FLAG(0, "raw", (v), \
				 "print the stable raw format (see below)")

struct command_help {
	const char *name;	/* "record" */
	const char *usage[3];	/* synopsis lines after "btrace NAME " */
	const char *summary;	/* one line */
	const char *details;	/* printed after the options, or NULL */
};

/* Command-line parsing behaviour. */
#define PARSE_STOP_AT_ARG 1	/* the first non-option starts the command */

/* What parse_options() returns besides an argument index. */
#define PARSE_ERROR (-1)	/* a message was printed to stderr */
#define PARSE_HELP (-2)		/* --help was printed to stdout */

/*
 * Parses argv[1..argc) (argv[0] is the command name).  Non-option arguments
 * are moved, in order, to the end of argv; returns the index of the first,
 * or PARSE_ERROR / PARSE_HELP.  "--" ends the options.
 */
int parse_options(int argc, char **argv, const struct command_help *cmd,
		  const struct option *opts, int flags);
void print_help(const struct command_help *cmd, const struct option *opts);

/* Callbacks for the options above: NULL, or why the argument is wrong. */
const char *parse_pid(const char *arg, void *value);		/* pid_t */
const char *parse_count(const char *arg, void *value);	/* uint64_t, > 0 */
const char *parse_source(const char *arg, void *value);	/* int */
const char *parse_mode(const char *arg, void *value);		/* int */
const char *parse_size_opt(const char *arg, void *value);	/* uint64_t */
/* Sizes of records (24 bytes each): 24 at least; a buffer up to 1T. */
const char *parse_records_size(const char *arg, void *value);	/* uint64_t */
const char *parse_buffer_size(const char *arg, void *value);	/* uint64_t */

#endif /* BTRACE_OPTIONS_H */
