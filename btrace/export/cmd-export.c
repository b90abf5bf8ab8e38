// SPDX-License-Identifier: GPL-2.0-or-later
/* btrace export: the function-call history in a profile viewer's format. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "../btrace.h"
#include "../dump.h"
#include "../options.h"
#include "export.h"

static const struct command_help export_help = {
	.name = "export",
	.usage = { "--format FORMAT [--from N --to M] [--thread TID] FILE" },
	.summary = "Writes the function-call history of a trace file to stdout, in a\n"
		   "format that profile viewers open.",
	.details =
	"Formats:\n"
	"  folded       folded stacks (main;f;g 1234), for flamegraph.pl,\n"
	"               inferno and speedscope; with several threads each\n"
	"               stack starts with 'thread TID'\n"
	"  speedscope   speedscope's JSON: one evented profile per thread\n"
	"  chrome       the Trace Event Format (JSON, B and E events), for\n"
	"               Perfetto and chrome://tracing\n"
	"  perfetto     Perfetto's protobuf trace (binary), for histories too\n"
	"               big for JSON\n"
	"\n"
	"Trace records carry no timestamps: the clock of every format counts\n"
	"instructions (a viewer showing microseconds shows instructions).  A\n"
	"call's frames are those of 'btrace dump --calls'; --from and --to\n"
	"select its segments by number, as there; frames open before --from\n"
	"open at its start.  A gap in the history closes every frame.\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read or has no thread TID;\n"
	"2 for a bad command line.\n",
};

static const struct {
	const char *name;
	const struct export_ops *ops;
} formats[] = {
	{ "folded", &export_folded },
	{ "speedscope", &export_speedscope },
	{ "chrome", &export_chrome },
	{ "perfetto", &export_perfetto },
};

static const char *parse_format(const char *arg, void *value)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(arg, formats[i].name)) {
			*(const struct export_ops **)value = formats[i].ops;
			return NULL;
		}
	return "is not a format (folded, speedscope, chrome, perfetto)";
}

static bool has_thread(const struct bts_trace *t, pid_t tid)
{
	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		if (bts_trace_thread(t, i)->tid == tid)
			return true;
	return false;
}

int export_write(const char *path, const struct dump_opts *o,
		 const struct export_ops *ops)
{
	static char buf[1 << 16];
	struct dump_ctx c = { .path = path, .o = o };
	struct export_out x = { .ops = ops };
	struct bts_trace *t;
	int ret = bts_trace_new(path, &t);

	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_FAILED;
	}
	if (o->thread && !has_thread(t, o->thread)) {
		error("%s: no thread %d in the trace", path, (int)o->thread);
		bts_trace_free(t);
		return EXIT_FAILED;
	}
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	signal(SIGPIPE, SIG_DFL);
	c.trace = t;
	ret = export_trace(&c, &x);
	dump_ctx_free(&c);
	bts_trace_free(t);
	if (fflush(stdout) || ferror(stdout)) {
		error("export: cannot write the output: %s", strerror(errno));
		return EXIT_FAILED;
	}
	return ret;
}

int cmd_export(int argc, char **argv)
{
	struct dump_opts o = { .view = VIEW_CALLS, .line_range = true };
	const struct export_ops *ops = NULL;
	const struct option opts[] = {
		OPT_CALLBACK(0, "format", "FORMAT", &ops, "folded, speedscope, chrome or perfetto", parse_format),
		OPT_CALLBACK(0, "from", "N", &o.from, "only segments from number N on", parse_count),
		OPT_CALLBACK(0, "to", "M", &o.to, "only segments up to number M", parse_count),
		OPT_CALLBACK(0, "thread", "TID", &o.thread, "only thread TID", parse_pid),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &export_help, opts, 0);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (!ops) {
		error("export: no --format given (see 'btrace export --help')");
		return EXIT_USAGE;
	}
	if (o.from && o.to && o.from > o.to) {
		error("export: --from is past --to");
		return EXIT_USAGE;
	}
	if (first == argc) {
		error("export: no trace file given (see 'btrace export --help')");
		return EXIT_USAGE;
	}
	if (argc - first > 1) {
		error("export: one trace file at a time");
		return EXIT_USAGE;
	}
	return export_write(argv[first], &o, ops);
}
