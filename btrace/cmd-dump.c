// SPDX-License-Identifier: GPL-2.0-or-later
/* btrace dump: the records of a trace file, per thread, oldest first. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"

static const struct command_help dump_help = {
	.name = "dump",
	.usage = { "[--raw] FILE" },
	.summary = "Prints the records of a trace file, thread by thread, oldest first.",
	.details =
	"Default output, for people:\n"
	"  # trace: version 1, source ptrace-step, mode block, buffer 4194304 bytes\n"
	"  # process PID (parent PPID): EXE\n"
	"  thread TID (process PID)\n"
	"        12  0x000055555555513d <main+29>  ->  0x0000555555555030 <puts@plt>\n"
	"        13  0x0000555555555180 <f+4>  ->  0x00005555555551a0 <handler>  [signal]\n"
	"            # lost 1234 records\n"
	"  # thread TID exited with status 0\n"
	"Each record shows its index in the thread, FROM and TO with the function\n"
	"they lie in (as <function+offset>) where it is known; asynchronous records\n"
	"are marked [signal] or [sigreturn]; markers and notes are '#' lines.\n"
	"\n"
	"--raw output, a stable format for tools:\n"
	"  # thread TID           before the records of each thread\n"
	"  0xFROM 0xTO            a branch or asynchronous record (lower-case hex)\n"
	"  # exec 0xENTRY         the thread exec'd a program entered at ENTRY\n"
	"  # lost N               N records were lost here\n"
	"  # gap REASON           a hole: unknown, unreadable, disabled, undecodable\n"
	"  # filtered N           N branches ran but were not recorded\n"
	"and nothing else.\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read (missing, not a trace,\n"
	"truncated, damaged); 2 for a bad command line.\n",
};

static const char *const gap_names[] = {
	[PTBTS_GAP_UNKNOWN]	= "unknown",
	[PTBTS_GAP_UNREADABLE]	= "unreadable",
	[PTBTS_GAP_DISABLED]	= "disabled",
	[PTBTS_GAP_UNDECODABLE]	= "undecodable",
};

/* A marker as the text after "# ", the same in both layouts. */
static void print_marker(int kind, uint64_t to)
{
	switch (kind) {
	case PTBTS_KIND_EXEC:
		printf("exec 0x%" PRIx64, to);
		break;
	case PTBTS_KIND_LOST:
		printf("lost %" PRIu64, to);
		break;
	case PTBTS_KIND_GAP:
		if (to < sizeof(gap_names) / sizeof(gap_names[0]))
			printf("gap %s", gap_names[to]);
		else
			printf("gap %" PRIu64, to);
		break;
	case PTBTS_KIND_FILTERED:
		printf("filtered %" PRIu64, to);
		break;
	default:
		printf("%s 0x%" PRIx64, bts_kind_name(kind), to);
	}
}

static int bad_record(const char *path, pid_t tid, uint64_t index)
{
	error("%s: thread %d, record %" PRIu64 ": unknown record kind", path,
	      (int)tid, index);
	return EXIT_FAILED;
}

/* ------------------------------------------------------------------ raw */

static int dump_thread_raw(const char *path, const struct bts_trace *t, size_t i)
{
	const struct bts_thread_info *th = bts_trace_thread(t, i);
	struct ptbts_record rec;
	struct bts_rec_iter it;
	uint64_t index = 0;

	printf("# thread %d\n", (int)th->tid);
	bts_trace_records(t, i, &it);
	for (; bts_rec_next(&it, &rec) > 0; index++) {
		int kind = bts_record_kind(&rec);

		if (kind < 0)
			return bad_record(path, th->tid, index);
		if (rec.from) {
			printf("0x%llx 0x%llx\n", rec.from, rec.to);
			continue;
		}
		fputs("# ", stdout);
		print_marker(kind, rec.to);
		putchar('\n');
	}
	return 0;
}

/* --------------------------------------------------------------- pretty */

struct symbols {
	pid_t pid;
	struct bts_symbolizer *sym;	/* NULL when none could be made */
};

struct pretty {
	const char *path;
	const struct bts_trace *trace;
	struct symbols *procs;
	size_t nprocs;
};

static void report_symbolizer(pid_t pid, int err, struct bts_symbolizer *sym)
{
	const char *w;

	if (err < 0) {
		error_bts(err, "warning: process %d: no symbols", (int)pid);
		return;
	}
	for (size_t i = 0; (w = bts_symbolizer_warning(sym, i)); i++)
		error("warning: %s", w);
}

static struct bts_symbolizer *symbolizer_of(struct pretty *p, pid_t pid)
{
	struct symbols *procs;
	struct bts_symbolizer *sym = NULL;
	int err;

	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return p->procs[i].sym;
	procs = realloc(p->procs, (p->nprocs + 1) * sizeof(*procs));
	if (!procs)
		return NULL;
	p->procs = procs;
	err = bts_symbolizer_new(p->trace, pid, &sym);
	report_symbolizer(pid, err, sym);
	p->procs[p->nprocs++] = (struct symbols){ pid, err < 0 ? NULL : sym };
	return err < 0 ? NULL : sym;
}

static void print_addr(struct bts_symbolizer *sym, uint64_t addr)
{
	const char *name;
	uint64_t off;

	printf("0x%016" PRIx64, addr);
	if (!sym || bts_symbolize(sym, addr, &name, &off) < 0)
		return;
	if (off)
		printf(" <%s+%" PRIu64 ">", name, off);
	else
		printf(" <%s>", name);
}

static void print_status(const char *what, int status)
{
	if (WIFEXITED(status))
		printf("# %s exited with status %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("# %s killed by signal %d (SIG%s)\n", what, WTERMSIG(status),
		       sigabbrev_np(WTERMSIG(status)) ?: "?");
}

static int dump_thread_pretty(struct pretty *p, size_t i)
{
	const struct bts_thread_info *th = bts_trace_thread(p->trace, i);
	struct bts_symbolizer *sym = symbolizer_of(p, th->pid);
	struct ptbts_record rec;
	struct bts_rec_iter it;
	uint64_t index = 0;
	char what[48];

	printf("thread %d (process %d)\n", (int)th->tid, (int)th->pid);
	bts_trace_records(p->trace, i, &it);
	for (; bts_rec_next(&it, &rec) > 0; index++) {
		int kind = bts_record_kind(&rec);

		if (kind < 0)
			return bad_record(p->path, th->tid, index);
		if (!rec.from) {
			printf("%10s# ", "");
			print_marker(kind, rec.to);
			putchar('\n');
			continue;
		}
		printf("%8" PRIu64 "  ", index);
		print_addr(sym, rec.from);
		fputs("  ->  ", stdout);
		print_addr(sym, rec.to);
		if (kind != PTBTS_KIND_BRANCH)
			printf("  [%s]", bts_kind_name(kind));
		putchar('\n');
	}
	snprintf(what, sizeof(what), "thread %d", (int)th->tid);
	if (th->exited)
		print_status(what, th->status);
	return 0;
}

static void print_header(const struct bts_trace *t)
{
	const struct bts_trace_info *info = bts_trace_info(t);

	printf("# trace: version %u, source %s, mode %s, buffer %" PRIu64
	       " bytes\n", info->version, bts_source_name(info->source),
	       info->mode == PTBTS_MODE_RING ? "ring" :
	       info->mode == PTBTS_MODE_BLOCK ? "block" : "stop",
	       info->buffer_size);
	for (size_t i = 0; i < bts_trace_nprocesses(t); i++) {
		const struct bts_process_info *pr = bts_trace_process(t, i);
		char what[48];

		printf("# process %d (parent %d): %s\n", (int)pr->pid,
		       (int)pr->ppid, pr->exe ? pr->exe : "?");
		snprintf(what, sizeof(what), "process %d", (int)pr->pid);
		if (pr->exited)
			print_status(what, pr->status);
	}
}

static int dump_pretty(const char *path, const struct bts_trace *t)
{
	struct pretty p = { .path = path, .trace = t };
	int ret = 0;

	print_header(t);
	for (size_t i = 0; !ret && i < bts_trace_nthreads(t); i++)
		ret = dump_thread_pretty(&p, i);
	for (size_t i = 0; i < p.nprocs; i++)
		bts_symbolizer_free(p.procs[i].sym);
	free(p.procs);
	return ret;
}

/* ----------------------------------------------------------------- main */

static int dump_file(const char *path, bool raw)
{
	struct bts_trace *t;
	int ret = bts_trace_open(path, &t);

	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_FAILED;
	}
	if (raw) {
		for (size_t i = 0; !ret && i < bts_trace_nthreads(t); i++)
			ret = dump_thread_raw(path, t, i);
	} else {
		ret = dump_pretty(path, t);
	}
	bts_trace_close(t);
	if (fflush(stdout) || ferror(stdout)) {
		error("dump: cannot write the output: %s", strerror(errno));
		return EXIT_FAILED;
	}
	return ret;
}

int cmd_dump(int argc, char **argv)
{
	bool raw = false;
	const struct option opts[] = {
		OPT_RAW(&raw),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &dump_help, opts, 0);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first == argc) {
		error("dump: no trace file given (see 'btrace dump --help')");
		return EXIT_USAGE;
	}
	if (argc - first > 1) {
		error("dump: one trace file at a time");
		return EXIT_USAGE;
	}
	return dump_file(argv[first], raw);
}
