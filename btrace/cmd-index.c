// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace index: writes the index of every thread's history into a trace
 * file, so that dump --insns --from/--to/--last reach a place in it
 * without decoding all that comes before.  libbts writes the new file
 * under a temporary name and renames it over the old one only when whole.
 */
#include <stdio.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"

static const struct command_help index_help = {
	.name = "index",
	.usage = { "FILE" },
	.summary = "Writes into the trace FILE the index of each thread's instruction\n"
		   "history: every 4096 records, where decoding may start, the number\n"
		   "of instructions before it and the call stack there.  'dump --insns'\n"
		   "with --from, --to or --last then decodes only from the point\n"
		   "before the first instruction it prints.  An index FILE had is\n"
		   "replaced.",
	.details = "FILE is written anew under FILE.tmp.PID and renamed over FILE only\n"
		   "once whole: an interrupted run leaves FILE as it was.  The new\n"
		   "file's permissions are the old one's, less the umask.  A file\n"
		   "without an index reads the same; readers older than the index\n"
		   "skip it.\n"
		   "\n"
		   "Exit status: 0, 1 when FILE cannot be read, decoded or written\n"
		   "(it is then unchanged), 2 for a bad command line.\n",
};

int cmd_index(int argc, char **argv)
{
	const struct option opts[] = { OPT_END() };
	int first = parse_options(argc, argv, &index_help, opts, 0);
	int ret;

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first != argc - 1) {
		error(first == argc ? "index: no trace file given"
				    : "index: one trace file at a time");
		return EXIT_USAGE;
	}
	ret = bts_trace_index_file(argv[first], NULL);
	if (ret < 0) {
		error_bts(ret, "%s", argv[first]);
		return EXIT_FAILED;
	}
	return 0;
}
