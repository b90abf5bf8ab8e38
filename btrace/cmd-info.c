// SPDX-License-Identifier: GPL-2.0-or-later
/* btrace info: which branch sources work here, and why the others do not. */
#include <stdio.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"

static const struct command_help info_help = {
	.name = "info",
	.usage = { "" },
	.summary = "Says which branch sources work on this machine, and for each one\n"
		   "that does not, why.",
	.details = "Output: one line per source, fastest first,\n"
		   "  NAME  available\n"
		   "  NAME  unavailable: WHY\n"
		   "then 'auto  -> NAME', the source 'btrace record' picks by default\n"
		   "('auto  -> none' when no source works).\n"
		   "\n"
		   "Exit status: 0, 1 when the sources could not be probed, 2 for a\n"
		   "bad command line.\n",
};

#define MAX_SOURCES 16

static int print_sources(void)
{
	struct bts_source_info info[MAX_SOURCES];
	const char *pick = "none";
	int n = bts_probe_sources(info, MAX_SOURCES);

	if (n < 0) {
		error_bts(n, "info: cannot probe the branch sources");
		return EXIT_FAILED;
	}
	if (n > MAX_SOURCES)
		n = MAX_SOURCES;
	for (int i = 0; i < n; i++) {
		const char *name = bts_source_name(info[i].source);

		if (info[i].available) {
			printf("%-12s available\n", name);
			if (!strcmp(pick, "none"))
				pick = name;
		} else {
			printf("%-12s unavailable: %s\n", name, info[i].why);
		}
	}
	printf("%-12s -> %s\n", "auto", pick);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	const struct option opts[] = { OPT_END() };
	int first = parse_options(argc, argv, &info_help, opts, 0);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		error("info: unexpected argument '%s'", argv[first]);
		return EXIT_USAGE;
	}
	return print_sources();
}
