// SPDX-License-Identifier: GPL-2.0-or-later
/* One table per command both parses its options and prints its --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"

static const struct option help_option =
	OPT_FLAG('h', "help", NULL, "show this help and exit");

static const struct option *find_long(const struct option *opts,
				      const char *name, size_t len)
{
	for (; opts->type != OPTION_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len &&
		    !strncmp(opts->long_name, name, len))
			return opts;
	if (len == 4 && !strncmp(name, "help", 4))
		return &help_option;
	return NULL;
}

static const struct option *find_short(const struct option *opts, char c)
{
	for (; opts->type != OPTION_END; opts++)
		if (opts->short_name && opts->short_name == c)
			return opts;
	return c == 'h' ? &help_option : NULL;
}

static void name_of(const struct option *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
}

/* Stores one option's value; @arg is NULL for a flag. */
static int apply(const struct command_help *cmd, const struct option *o,
		 const char *arg)
{
	char name[64];
	const char *why;

	name_of(o, name, sizeof(name));
	switch (o->type) {
	case OPTION_FLAG:
		if (o == &help_option)
			return PARSE_HELP;
		*(bool *)o->value = true;
		return 0;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTION_CALLBACK:
		why = o->parse(arg, o->value);
		if (!why)
			return 0;
		error("%s: %s '%s': %s", cmd->name, name, arg, why);
		return PARSE_ERROR;
	default:
		return PARSE_ERROR;
	}
}

enum bad_kind { UNKNOWN, NEEDS_ARG, TAKES_NO_ARG };

static int bad_option(const struct command_help *cmd, enum bad_kind kind,
		      const char *opt)
{
	int len = (int)strcspn(opt, "=");

	if (kind == UNKNOWN)
		error("%s: unknown option '%.*s' (see 'btrace %s --help')",
		      cmd->name, len, opt, cmd->name);
	else
		error("%s: option '%.*s' %s", cmd->name, len, opt,
		      kind == NEEDS_ARG ? "needs an argument" : "takes no argument");
	return PARSE_ERROR;
}

/* "--name", "--name=value" or "--name value"; returns argv slots used. */
static int parse_long(const struct command_help *cmd, const struct option *opts,
		      int argc, char **argv, int i)
{
	const char *name = argv[i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *o = find_long(opts, name, len);
	int ret;

	if (!o)
		return bad_option(cmd, UNKNOWN, argv[i]);
	if (o->type == OPTION_FLAG) {
		if (eq)
			return bad_option(cmd, TAKES_NO_ARG, argv[i]);
		ret = apply(cmd, o, NULL);
		return ret < 0 ? ret : 1;
	}
	if (eq) {
		ret = apply(cmd, o, eq + 1);
		return ret < 0 ? ret : 1;
	}
	if (i + 1 >= argc)
		return bad_option(cmd, NEEDS_ARG, argv[i]);
	ret = apply(cmd, o, argv[i + 1]);
	return ret < 0 ? ret : 2;
}

/* "-abc", "-ofile" or "-o file"; returns argv slots used. */
static int parse_short(const struct command_help *cmd, const struct option *opts,
		       int argc, char **argv, int i)
{
	for (const char *p = argv[i] + 1; *p; p++) {
		const struct option *o = find_short(opts, *p);
		char opt[3] = { '-', *p, 0 };
		int ret;

		if (!o)
			return bad_option(cmd, UNKNOWN, opt);
		if (o->type == OPTION_FLAG) {
			ret = apply(cmd, o, NULL);
			if (ret < 0)
				return ret;
			continue;
		}
		if (p[1]) {
			ret = apply(cmd, o, p + 1);
			return ret < 0 ? ret : 1;
		}
		if (i + 1 >= argc)
			return bad_option(cmd, NEEDS_ARG, opt);
		ret = apply(cmd, o, argv[i + 1]);
		return ret < 0 ? ret : 2;
	}
	return 1;
}

int parse_options(int argc, char **argv, const struct command_help *cmd,
		  const struct option *opts, int flags)
{
	char **args = calloc(argc, sizeof(*args));
	int nargs = 0, i = 1, used;

	if (!args) {
		error("out of memory");
		return PARSE_ERROR;
	}
	while (i < argc) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (flags & PARSE_STOP_AT_ARG)
				break;
			args[nargs++] = argv[i++];
			continue;
		}
		used = a[1] == '-' ? parse_long(cmd, opts, argc, argv, i)
				   : parse_short(cmd, opts, argc, argv, i);
		if (used < 0) {
			free(args);
			if (used == PARSE_HELP)
				print_help(cmd, opts);
			return used;
		}
		i += used;
	}
	while (i < argc)
		args[nargs++] = argv[i++];
	memcpy(argv + argc - nargs, args, nargs * sizeof(*args));
	free(args);
	return argc - nargs;
}

/* ------------------------------------------------------------------ help */

static int left_column(const struct option *o, char *buf, size_t size)
{
	char s[8] = "    ";

	if (o->short_name)
		snprintf(s, sizeof(s), "-%c%s", o->short_name,
			 o->long_name ? ", " : "");
	return snprintf(buf, size, "  %s%s%s%s%s", s,
			o->long_name ? "--" : "", o->long_name ? o->long_name : "",
			o->argname ? " " : "", o->argname ? o->argname : "");
}

static void print_option(const struct option *o, int width)
{
	char left[128];

	left_column(o, left, sizeof(left));
	printf("%-*s  %s\n", width, left, o->help);
}

void print_help(const struct command_help *cmd, const struct option *opts)
{
	char left[128];
	int width = left_column(&help_option, left, sizeof(left));

	for (const struct option *o = opts; o->type != OPTION_END; o++) {
		int w = left_column(o, left, sizeof(left));

		if (w > width)
			width = w;
	}
	for (int i = 0; i < 3 && cmd->usage[i]; i++)
		printf("%s btrace %s %s\n", i ? "   or:" : "usage:", cmd->name,
		       cmd->usage[i]);
	printf("\n%s\n\nOptions:\n", cmd->summary);
	for (const struct option *o = opts; o->type != OPTION_END; o++)
		print_option(o, width);
	print_option(&help_option, width);
	if (cmd->details)
		printf("\n%s", cmd->details);
}

/* ------------------------------------------------------- option values */

const char *parse_pid(const char *arg, void *value)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT32_MAX)
		return "not a process id";
	*(pid_t *)value = (pid_t)v;
	return NULL;
}

const char *parse_count(const char *arg, void *value)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v)
		return "not a positive number";
	*(uint64_t *)value = v;
	return NULL;
}

const char *parse_source(const char *arg, void *value)
{
	if (bts_source_parse(arg, value) < 0)
		return "unknown source (see 'btrace info')";
	return NULL;
}

const char *parse_mode(const char *arg, void *value)
{
	if (!strcmp(arg, "ring"))
		*(int *)value = PTBTS_MODE_RING;
	else if (!strcmp(arg, "block"))
		*(int *)value = PTBTS_MODE_BLOCK;
	else if (!strcmp(arg, "stop"))
		*(int *)value = PTBTS_MODE_STOP;
	else
		return "unknown mode (block, ring or stop)";
	return NULL;
}

const char *parse_size_opt(const char *arg, void *value)
{
	if (parse_size(arg, value))
		return "not a size (a positive number of bytes, with an "
		       "optional K, M or G suffix)";
	return NULL;
}

/* Records are 24 bytes: a size of records holds one at least. */
const char *parse_records_size(const char *arg, void *value)
{
	uint64_t v;
	const char *why = parse_size_opt(arg, &v);

	if (why)
		return why;
	if (v < sizeof(struct ptbts_record))
		return "holds no record (a record is 24 bytes)";
	*(uint64_t *)value = v;
	return NULL;
}

/* libbts takes buffers up to 1T per thread. */
const char *parse_buffer_size(const char *arg, void *value)
{
	uint64_t v;
	const char *why = parse_records_size(arg, &v);

	if (why)
		return why;
	if (v > (1ull << 40))
		return "too large (at most 1T per thread)";
	*(uint64_t *)value = v;
	return NULL;
}
