// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace view FILE [-o OUT.html]: the page of view.h.  The history and
 * the report are made as 'btrace export' and 'btrace report' make them,
 * each in a child writing to an unnamed temporary file: those write to
 * stdout and may exit on a failure, which must not leave the page half
 * made.  The page is written under a temporary name and renamed into
 * place once whole.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bts.h>

#include "../btrace.h"
#include "../dump.h"
#include "../export/export.h"
#include "../options.h"
#include "../out-file.h"
#include "../report/report.h"
#include "view.h"

static const struct command_help view_help = {
	.name = "view",
	.usage = { "[-o OUT.html] [--from N --to M] [--thread TID] FILE" },
	.summary = "Writes one HTML page that shows the function-call history of a trace\n"
		   "file in speedscope: a timeline of the calls of each thread, a flame\n"
		   "graph, and for a crash trace the crash report beside them.",
	.details =
	"The page needs no network: speedscope, the history and the report are\n"
	"all inside it.  Open it in a web browser.  The clock is the instruction\n"
	"count (trace records carry no timestamps).  speedscope's views:\n"
	"  Time Order   the calls of one thread in order (the timeline); the\n"
	"               thread is chosen at the top; the mouse wheel zooms\n"
	"  Left Heavy   the flame graph: equal stacks merged, heaviest first\n"
	"  Sandwich     a table of the functions, with callers and callees\n"
	"Ctrl-F (or /) searches the frames by name.  Open the page at\n"
	"OUT.html#view=left-heavy (or sandwich) to start in another view.\n"
	"--from, --to and --thread select the history as for 'btrace export'\n"
	"(a page of a long history is big: speedscope reads it whole); the\n"
	"report is always whole.\n"
	"\n"
	"OUT.html appears only once complete; an existing regular file of\n"
	"that name is replaced.  Default: FILE with .btr replaced by .html.\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read, OUT.html cannot be\n"
	"written or the viewer is not installed; 2 for a bad command line.\n",
};

struct part {
	const char *path;
	const struct dump_opts *o;	/* the history's; NULL: the report */
};

/* Runs in the child, with stdout the part's file. */
static int make_part(const struct part *p)
{
	const struct report_opts o = { .last = 50 };

	if (p->o)
		return export_write(p->path, p->o, &export_speedscope);
	return report_write(p->path, &o);
}

/* The part in an unnamed temporary file, or NULL (the child said why). */
static FILE *part_file(const struct part *p)
{
	FILE *f = tmpfile();
	int status;
	pid_t pid;

	if (!f) {
		error("view: no temporary file: %s", strerror(errno));
		return NULL;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		error("view: fork: %s", strerror(errno));
		fclose(f);
		return NULL;
	}
	if (pid == 0) {
		if (dup2(fileno(f), STDOUT_FILENO) < 0)
			_exit(EXIT_FAILED);
		exit(make_part(p));
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error("view: waitpid: %s", strerror(errno));
			fclose(f);
			return NULL;
		}
	}
	if (WIFSIGNALED(status))
		error("view: making the %s: killed by signal %d",
		      p->o ? "history" : "report", WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fclose(f);
		return NULL;
	}
	return f;
}

/* FILE.btr -> FILE.html; FILE -> FILE.html. */
static char *default_output(const char *path)
{
	size_t n = strlen(path);
	char *out;

	if (n > 4 && !strcmp(path + n - 4, ".btr"))
		n -= 4;
	if (asprintf(&out, "%.*s.html", (int)n, path) < 0)
		return NULL;
	return out;
}

static bool is_crash(const char *path, int *ret)
{
	struct bts_trace *t;
	bool crash;
	int err = bts_trace_new(path, &t);

	if (err < 0) {
		error_bts(err, "%s", path);
		*ret = EXIT_FAILED;
		return false;
	}
	crash = bts_trace_crashed(t) != 0;
	bts_trace_free(t);
	*ret = 0;
	return crash;
}

static int write_page(const char *out_path, const struct view_page *p)
{
	struct out_file out;

	if (out_file_open(&out, out_path))
		return EXIT_FAILED;
	if (view_page_write(out.f, p)) {
		error("view: cannot write %s: %s", shown(out_path),
		      errno ? strerror(errno) : "an asset could not be read");
		out_file_abort(&out);
		return EXIT_FAILED;
	}
	return out_file_commit(&out) ? EXIT_FAILED : 0;
}

static int view_file(const char *path, const struct dump_opts *o,
		     const char *out_path)
{
	char assets[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct view_page p = { .assets = assets, .name = slash ? slash + 1 : path };
	struct part history = { .path = path, .o = o }, report = { .path = path };
	int ret;
	bool crash;

	if (view_assets(assets, sizeof(assets)))
		return EXIT_FAILED;
	crash = is_crash(path, &ret);
	if (ret)
		return ret;
	p.profile = part_file(&history);
	if (!p.profile)
		return EXIT_FAILED;
	if (crash) {
		p.report = part_file(&report);
		if (!p.report) {
			fclose(p.profile);
			return EXIT_FAILED;
		}
	}
	errno = 0;
	ret = write_page(out_path, &p);
	fclose(p.profile);
	if (p.report)
		fclose(p.report);
	return ret;
}

int cmd_view(int argc, char **argv)
{
	struct dump_opts o = { .view = VIEW_CALLS, .line_range = true };
	const char *output = NULL;
	const struct option opts[] = {
		OPT_STRING('o', "output", "OUT.html", &output,
			   "write the page to OUT.html (default: FILE.html)"),
		OPT_CALLBACK(0, "from", "N", &o.from, "only call segments from number N on", parse_count),
		OPT_CALLBACK(0, "to", "M", &o.to, "only call segments up to number M", parse_count),
		OPT_CALLBACK(0, "thread", "TID", &o.thread, "only thread TID", parse_pid),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &view_help, opts, 0);
	char *out;
	int ret;

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first == argc) {
		error("view: no trace file given (see 'btrace view --help')");
		return EXIT_USAGE;
	}
	if (argc - first > 1) {
		error("view: one trace file at a time");
		return EXIT_USAGE;
	}
	if (o.from && o.to && o.from > o.to) {
		error("view: --from is past --to");
		return EXIT_USAGE;
	}
	if (output && !*output) {
		error("view: -o: empty file name");
		return EXIT_USAGE;
	}
	if (output && !strcmp(output, "-")) {
		error("view: -o -: the page cannot go to standard output; give a file name");
		return EXIT_USAGE;
	}
	out = output ? strdup(output) : default_output(argv[first]);
	if (!out) {
		error("view: out of memory");
		return EXIT_FAILED;
	}
	ret = view_file(argv[first], &o, out);
	free(out);
	return ret;
}
