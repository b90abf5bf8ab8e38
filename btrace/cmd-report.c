// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace report: a post-mortem of a trace file, for people: what died and
 * why (report/crash.c), then per thread, the crashing one first, the
 * backtrace and the branches and calls that led there (report/thread.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace.h"
#include "names.h"
#include "options.h"
#include "report/report.h"

static const struct command_help report_help = {
	.name = "report",
	.usage = { "[--last N] [--json] FILE" },
	.summary = "Says what happened at the end of a trace file, above all a crash trace\n"
		   "written by 'btrace record --on-crash': what died and why, where, and how\n"
		   "it got there.",
	.details =
	"Text output:\n"
	"  Process PID (EXE) was killed by signal SIGSEGV (Segmentation fault),\n"
	"  SEGV_MAPERR, fault address 0x0.\n"
	"  Thread TID crashed here:\n"
	"  FILE:LINE\tSOURCE\n"
	"  N\t   0x... <func+off>:\tINSTRUCTION\n"
	"then for each thread, the crashing one first:\n"
	"  thread TID (process PID) [crashed]\n"
	"  Backtrace:                 gdb's layout, unwound at the crash\n"
	"  #0  0x... in func () at FILE:LINE\n"
	"  Last N branches:           as 'btrace dump' shows records\n"
	"  Last N function calls:     as 'btrace dump --calls --insn-range\n"
	"                             --line-range --indent' shows them\n"
	"A trace without a crash says how its first process ended, and each\n"
	"thread's backtrace is the one its history shows at its end.\n"
	"\n"
	"--json: one JSON object: crash (null, or pid, tid, exe, signo, signal,\n"
	"code, code_name, addr or sender_pid/sender_uid, insn as dump --insns\n"
	"--json --source), threads (tid, pid, crashed, frames [n, kind (pc,\n"
	"return, signal, unknown, gap), pc, func, off, file, line], branches and\n"
	"calls as dump --json gives them).\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read (missing, not a trace,\n"
	"truncated, damaged); 2 for a bad command line.\n",
};

/* The threads in report order: the current (crashing) one first. */
static int report_threads(struct replay *r, const struct report_opts *o)
{
	size_t first = r->cur;
	bool comma = false;

	if (o->json)
		fputs(",\"threads\":[", stdout);
	for (size_t k = 0; k < r->nthreads; k++) {
		size_t i = k == 0 ? first : k <= first ? k - 1 : k;

		if (o->json && comma)
			putchar(',');
		comma = true;
		if (report_thread(r, i, o) < 0)
			return EXIT_FAILED;
	}
	if (o->json)
		puts("]}");
	return 0;
}

int report_write(const char *path, const struct report_opts *o)
{
	struct replay r;
	int ret;

	if (replay_open(&r, path) < 0)
		return EXIT_FAILED;
	signal(SIGPIPE, SIG_DFL);
	if (o->json) {
		fputs("{\"file\":", stdout);
		json_str(path);
		putchar(',');
	}
	report_crash(&r, o);
	ret = report_threads(&r, o);
	replay_close(&r);
	if (fflush(stdout) || ferror(stdout)) {
		error("report: cannot write the output: %s", strerror(errno));
		return EXIT_FAILED;
	}
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .last = 50 };
	bool raw_names = false;
	const struct option opts[] = {
		OPT_CALLBACK(0, "last", "N", &o.last,
			     "the last N branches and calls per thread (50)", parse_count),
		OPT_FLAG(0, "json", &o.json, "one JSON object (fields below)"),
		OPT_NO_DEMANGLE(&raw_names),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &report_help, opts, 0);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first == argc) {
		error("report: no trace file given (see 'btrace report --help')");
		return EXIT_USAGE;
	}
	if (argc - first > 1) {
		error("report: one trace file at a time");
		return EXIT_USAGE;
	}
	names_keep_raw(raw_names);
	return report_write(argv[first], &o);
}
