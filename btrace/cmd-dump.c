// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace dump: a trace file, thread by thread, oldest first, in one of
 * four views: the branches (the default), the raw records (--raw), the
 * instruction history (--insns, dump-insns.c) and the function-call
 * history (--calls, dump-calls.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <bts.h>

#include "btrace.h"
#include "disasm.h"
#include "dump.h"
#include "names.h"
#include "options.h"

static const struct command_help dump_help = {
	.name = "dump",
	.usage = { "[--raw | --pebs] [--incomplete] [--thread TID] FILE",
		   "[--branches | --insns [--raw-bytes] [--source] [--syntax att|intel] |\n"
		   "                   --calls [--insn-range] [--line-range] [--indent]]\n"
		   "                   [--last N | --from N --to M] [--thread TID] [--json]\n"
		   "                   [--function GLOB] [--object GLOB] [--grep REGEX]\n"
		   "                   [--addr LO-HI] [--no-demangle] FILE" },
	.summary = "Prints the records of a trace file, thread by thread, oldest first,\n"
		   "or the instructions and function calls they imply.",
	.details =
	"Default output (--branches), for people:\n"
	"  # trace: version 1, source ptrace-step, mode block, buffer 4194304 bytes\n"
	"  # process PID (parent PPID): EXE\n"
	"  # process PID exec'd EXE2        (each later image it ran)\n"
	"  thread TID (process PID)\n"
	"        12  0x000055555555513d <main+29>  ->  0x0000555555555030 <puts@plt>\n"
	"        13  0x0000555555555180 <f+4>  ->  0x00005555555551a0 <handler>  [signal]\n"
	"            # lost 1234 records\n"
	"  # thread TID exited with status 0\n"
	"Each record shows its index in the thread, FROM and TO with the function\n"
	"they lie in (as <function+offset>) where it is known, else the file they\n"
	"lie in (as <?? from FILE>); asynchronous records\n"
	"are marked [signal] or [sigreturn]; markers and notes are '#' lines.\n"
	"\n"
	"--raw output, a stable format for tools:\n"
	"  # thread TID           before the records of each thread\n"
	"  0xFROM 0xTO            a branch or asynchronous record (lower-case hex)\n"
	"  # exec 0xENTRY         the thread exec'd a program entered at ENTRY\n"
	"  # lost N               N records were lost here\n"
	"  # gap REASON           a hole: unknown, unreadable, disabled, undecodable;\n"
	"                         code-changed: no hole, the code ahead was rewritten\n"
	"  # filtered N           N branches ran but were not recorded\n"
	"and nothing else.\n"
	"\n"
	"--pebs, kmod-pebs's samples (PEBS records), one line each, in the\n"
	"order recorded, after a line that says what was sampled:\n"
	"  # pebs: 428 records, 0 lost; event 0xc4 every 7 events, format 3\n"
	"  TID N 0xIP <function+offset> rax 0x.. rbx 0x.. ... r15 0x.. rflags 0x.. tsc N\n"
	"N counts the thread's records from 0; IP is the eventing instruction,\n"
	"or with [after] (formats 0 and 1) the one after it; the registers and\n"
	"tsc where the format has them.\n"
	"\n"
	"--insns, as gdb's 'record instruction-history' (numbered from 1; a gap\n"
	"has a number of its own; --raw-bytes is gdb's /r, --source its /s):\n"
	"  thread TID (process PID)\n"
	"  main.c:13\t  int i = 0;                       (--source)\n"
	"  1\t   0x0000000000401667 <main+8>:\tmovl   $0x0, -0x4(%rbp)\n"
	"  2\t   0x000000000040166e <main+15>:\tc7 45 fc 00 00 00 00\tmovl ...  (--raw-bytes)\n"
	"  3\t[decode error (1): lost 12 records]\n"
	"The text is gdb's (GNU's): AT&T by default, Intel with --syntax intel\n"
	"  4\t   0x0000000000401675 <main+22>:\tcall   0x401136 <f>\n"
	"  5\t   0x000000000040167a <main+27>:\tmov    0x2e8f(%rip),%eax        # 0x404510 <n>\n"
	"  5\t   0x000000000040167a <main+27>:\tmov    eax,DWORD PTR [rip+0x2e8f]        # 0x404510 <n>\n"
	"\n"
	"--calls, as gdb's 'record function-call-history' (one line per visit of\n"
	"a function, numbered from 1; --insn-range is /i, --line-range /l,\n"
	"--indent /c: two spaces per call level):\n"
	"  1\tmain\tinst 1,8\tat t.c:13,15\n"
	"  2\t  inc\tinst 9,15\tat t.c:2,4\n"
	"Unknown functions show as ?? (?? from FILE where a file holds them);\n"
	"gaps as in --insns.\n"
	"\n"
	"--function GLOB, --object GLOB, --grep REGEX and --addr LO-HI keep the\n"
	"entries of code they all match: a branch by its source or destination, an\n"
	"instruction by its address, a call by its function and first instruction;\n"
	"markers and gaps are left out.  Entries keep their numbers.\n"
	"\n"
	"Ranges count the entries of the view: records (from 0) for --branches,\n"
	"instructions for --insns, function segments for --calls.  --from and\n"
	"--to are inclusive.\n"
	"\n"
	"--json: one JSON object per line, for every view but --raw.  Fields:\n"
	"  every line   tid (thread), n (the entry's number)\n"
	"  --branches   kind (branch, signal, sigreturn, exec, lost, gap, filtered);\n"
	"               records: from, to (hex strings), from_func, from_off,\n"
	"               to_func, to_off (when known), else from_object,\n"
	"               to_object (the file, when known); markers: value\n"
	"  --insns      ip (hex string), size, bytes (hex), class (other, cond,\n"
	"               jump, call, return, far, syscall), flags (taken, signal,\n"
	"               sigreturn, resync, tail), func, off (when known) or\n"
	"               object (the file, when known), asm,\n"
	"               file, line (with --source, when known)\n"
	"  --calls      level, entry (start, call, return, tailcall, switch,\n"
	"               signal, sigreturn, gap), func (null when unknown),\n"
	"               object (the file of an unknown func, when known),\n"
	"               first, last (instruction numbers), file, line_min,\n"
	"               line_max (with --line-range, when known)\n"
	"  gaps         gap (lost, marker, filtered, exec, nocode, undecodable,\n"
	"               no-path, not-branch, code-changed), arg, text\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read (missing, not a trace,\n"
	"truncated, damaged) or has no thread TID; 2 for a bad command line.\n"
	"Output into a closed pipe ends the command quietly.\n",
};

static const char *const gap_names[] = {
	[PTBTS_GAP_UNKNOWN]	= "unknown",
	[PTBTS_GAP_UNREADABLE]	= "unreadable",
	[PTBTS_GAP_DISABLED]	= "disabled",
	[PTBTS_GAP_UNDECODABLE]	= "undecodable",
	[PTBTS_GAP_CODE_CHANGED] = "code-changed",
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
		/* 0: the source could not count what ran in the region. */
		if (to)
			printf("filtered %" PRIu64, to);
		else
			printf("filtered");
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

/* 0, or EXIT_FAILED said when reading records failed (a changed file). */
static int records_failed(int ret, const char *path, pid_t tid)
{
	if (ret >= 0)
		return 0;
	error_bts(ret, "%s: thread %d", path, (int)tid);
	return EXIT_FAILED;
}

/* ------------------------------------------------------------------ raw */

static int dump_thread_raw(const char *path, const struct bts_trace *t, size_t i)
{
	const struct bts_thread_info *th = bts_trace_thread(t, i);
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	uint64_t index = 0;
	int ret;

	printf("# thread %d\n", (int)th->tid);
	ret = bts_rec_iter_new(t, i, &it);
	if (ret < 0)
		return records_failed(ret, path, th->tid);
	for (; (ret = bts_rec_iter_next(it, &rec)) > 0; index++) {
		int kind = bts_record_kind(&rec);

		if (kind < 0) {
			bts_rec_iter_free(it);
			return bad_record(path, th->tid, index);
		}
		if (rec.from) {
			printf("0x%llx 0x%llx\n", rec.from, rec.to);
			continue;
		}
		fputs("# ", stdout);
		print_marker(kind, rec.to);
		putchar('\n');
	}
	bts_rec_iter_free(it);
	return records_failed(ret, path, th->tid);
}

/* ------------------------------------------------------------- branches */

void dump_addr(struct bts_symbolizer *sym, uint64_t addr)
{
	const char *name;
	uint64_t off;

	printf("0x%016" PRIx64, addr);
	if (!sym)
		return;
	if (symbolize_shown(sym, addr, &name, &off) < 0) {
		/* No function: the file, as gdb's "?? () from FILE". */
		name = bts_symbolize_object(sym, addr);
		if (name)
			printf(" <?? from %s>", shown(name));
		return;
	}
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

void dump_branch_text(struct bts_symbolizer *sym, uint64_t index,
		      const struct ptbts_record *rec, int kind)
{
	if (!rec->from) {
		printf("%10s# ", "");
		print_marker(kind, rec->to);
		putchar('\n');
		return;
	}
	printf("%8" PRIu64 "  ", index);
	dump_addr(sym, rec->from);
	fputs("  ->  ", stdout);
	dump_addr(sym, rec->to);
	if (kind != PTBTS_KIND_BRANCH)
		printf("  [%s]", bts_kind_name(kind));
	putchar('\n');
}

static void json_addr(const char *what, struct bts_symbolizer *sym,
		      uint64_t addr)
{
	const char *name;
	uint64_t off;

	printf(",\"%s\":\"0x%" PRIx64 "\"", what, addr);
	if (!sym)
		return;
	if (symbolize_shown(sym, addr, &name, &off) < 0) {
		name = bts_symbolize_object(sym, addr);
		if (name) {
			printf(",\"%s_object\":", what);
			json_str(name);
		}
		return;
	}
	printf(",\"%s_func\":", what);
	json_str(name);
	printf(",\"%s_off\":%" PRIu64, what, off);
}

void dump_branch_json(struct bts_symbolizer *sym, pid_t tid,
		      uint64_t index, const struct ptbts_record *rec, int kind)
{
	printf("{\"tid\":%d,\"n\":%" PRIu64 ",\"kind\":\"%s\"", (int)tid, index,
	       bts_kind_name(kind));
	if (!rec->from) {
		printf(",\"value\":%" PRIu64 "}\n", (uint64_t)rec->to);
		return;
	}
	json_addr("from", sym, rec->from);
	json_addr("to", sym, rec->to);
	puts("}");
}

/* With a filter: the branches from or to code it picks, and no marker. */
static bool branch_shown(const struct dump_filter *f, struct bts_symbolizer *sym,
			 const struct ptbts_record *rec)
{
	if (!filter_active(f))
		return true;
	return rec->from && (filter_addr(f, sym, rec->from) ||
			     filter_addr(f, sym, rec->to));
}

static int dump_branches(struct dump_ctx *c, size_t i)
{
	const struct bts_thread_info *th = bts_trace_thread(c->trace, i);
	struct bts_symbolizer *sym = dump_symbolizer(c, th->pid);
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	uint64_t index = 0, lo = 1, hi = 0;
	char what[48];
	int ret = 0;

	dump_range(c->o, 0, th->nrecords, &lo, &hi);
	if (!c->o->json)
		printf("thread %d (process %d)\n", (int)th->tid, (int)th->pid);
	ret = bts_rec_iter_new(c->trace, i, &it);
	if (ret < 0)
		return records_failed(ret, c->path, th->tid);
	/* --last, --from: straight to the first record shown. */
	if (lo && lo <= hi && bts_rec_iter_seek(it, lo))
		index = lo;
	for (; index <= hi && (ret = bts_rec_iter_next(it, &rec)) > 0; index++) {
		int kind = bts_record_kind(&rec);

		if (kind < 0) {
			bts_rec_iter_free(it);
			return bad_record(c->path, th->tid, index);
		}
		if (index < lo || !branch_shown(&c->o->filter, sym, &rec))
			continue;
		if (c->o->json)
			dump_branch_json(sym, th->tid, index, &rec, kind);
		else
			dump_branch_text(sym, index, &rec, kind);
	}
	bts_rec_iter_free(it);
	if (ret < 0)
		return records_failed(ret, c->path, th->tid);
	snprintf(what, sizeof(what), "thread %d", (int)th->tid);
	if (th->exited && !c->o->json)
		print_status(what, th->status);
	return 0;
}

/* The programs a process exec'd after its first. */
static void print_images(const struct bts_trace *t, pid_t pid)
{
	for (size_t k = 1; k < bts_trace_nimages(t, pid); k++) {
		const struct bts_image_info *im = bts_trace_image(t, pid, k);

		printf("# process %d exec'd %s\n", (int)pid,
		       im->exe && *im->exe ? shown(im->exe) : "?");
	}
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
		       (int)pr->ppid, pr->exe ? shown(pr->exe) : "?");
		print_images(t, pr->pid);
		snprintf(what, sizeof(what), "process %d", (int)pr->pid);
		if (pr->exited)
			print_status(what, pr->status);
	}
}

/* ----------------------------------------------------------------- main */

static int dump_thread(struct dump_ctx *c, size_t i)
{
	if (c->o->raw)
		return dump_thread_raw(c->path, c->trace, i);
	switch (c->o->view) {
	case VIEW_INSNS:
		return dump_insns(c, i);
	case VIEW_CALLS:
		return dump_calls(c, i);
	default:
		return dump_branches(c, i);
	}
}

static long find_thread(const struct bts_trace *t, pid_t tid)
{
	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		if (bts_trace_thread(t, i)->tid == tid)
			return i;
	return -1;
}

static int dump_threads(struct dump_ctx *c)
{
	long only = -1;
	int ret = 0;

	if (c->o->thread) {
		only = find_thread(c->trace, c->o->thread);
		if (only < 0) {
			error("%s: no thread %d in the trace", c->path,
			      (int)c->o->thread);
			return EXIT_FAILED;
		}
	}
	if (c->o->view == VIEW_PEBS)
		return dump_pebs(c);
	if (!c->o->raw && !c->o->json && c->o->view == VIEW_BRANCHES)
		print_header(c->trace);
	for (size_t i = 0; !ret && i < bts_trace_nthreads(c->trace); i++)
		if (only < 0 || (size_t)only == i)
			ret = dump_thread(c, i);
	return ret;
}

/* Like git: output into a closed pipe ends the command, quietly. */
static int output_failed(void)
{
	if (errno == EPIPE)
		return 128 + SIGPIPE;
	error("dump: cannot write the output: %s", strerror(errno));
	return EXIT_FAILED;
}

static int dump_file(const char *path, const struct dump_opts *o)
{
	static char buf[1 << 16];
	struct dump_ctx c = { .path = path, .o = o };
	struct bts_trace *t;
	const struct bts_trace_info *info;
	int ret = open_trace(path, o->incomplete, &t);

	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_FAILED;
	}
	info = bts_trace_info(t);
	if (info->incomplete)
		error("warning: %s is incomplete (its recording was cut short): "
		      "what its first %" PRIu64 " bytes hold, in whole chunks",
		      path, info->whole_len);
	/* Full buffering even on a terminal would delay people; on a pipe it
	 * is what makes a long view fast. */
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	signal(SIGPIPE, SIG_DFL);
	c.trace = t;
	ret = dump_threads(&c);
	dump_ctx_free(&c);
	bts_trace_free(t);
	if (fflush(stdout) || ferror(stdout))
		return output_failed();
	return ret;
}

/* ------------------------------------------------------------- options */

static const char *parse_syntax(const char *arg, void *value)
{
	if (!strcmp(arg, "att"))
		*(int *)value = DISASM_ATT;
	else if (!strcmp(arg, "intel"))
		*(int *)value = DISASM_INTEL;
	else
		return "unknown syntax (att or intel)";
	return NULL;
}

static const char *check_opts(const struct dump_opts *o, int nviews)
{
	if (nviews > 1)
		return "--raw, --branches, --insns, --calls and --pebs exclude each other";
	if (o->view == VIEW_PEBS && (o->json || o->last || o->from || o->to ||
				     filter_active(&o->filter)))
		return "--pebs takes no --json, no range and no filter";
	if (o->raw && (o->json || o->last || o->from || o->to))
		return "--raw takes no --json and no range";
	if (o->raw && filter_active(&o->filter))
		return "--raw takes no --function, --object, --grep or --addr";
	if ((o->raw_bytes || o->source || o->syntax != DISASM_ATT) &&
	    o->view != VIEW_INSNS)
		return "--raw-bytes, --source and --syntax go with --insns";
	if ((o->insn_range || o->line_range || o->indent) && o->view != VIEW_CALLS)
		return "--insn-range, --line-range and --indent go with --calls";
	if (o->last && (o->from || o->to))
		return "--last excludes --from and --to";
	if (o->from && o->to && o->from > o->to)
		return "--from is past --to";
	return NULL;
}

/* The command line after its options. */
static int dump_args(struct dump_opts *o, int argc, char **argv, int first,
		     bool raw_names, int nviews, enum dump_view view)
{
	const char *why;

	o->view = view;
	why = check_opts(o, nviews);
	if (why) {
		error("dump: %s", why);
		return EXIT_USAGE;
	}
	if (first == argc) {
		error("dump: no trace file given (see 'btrace dump --help')");
		return EXIT_USAGE;
	}
	if (argc - first > 1) {
		error("dump: one trace file at a time");
		return EXIT_USAGE;
	}
	names_keep_raw(raw_names);
	return dump_file(argv[first], o);
}

int cmd_dump(int argc, char **argv)
{
	struct dump_opts o = { 0 };
	bool branches = false, insns = false, calls = false, pebs = false;
	bool raw_names = false;
	const struct option opts[] = {
		OPT_RAW(&o.raw),
		OPT_FLAG(0, "branches", &branches, "the records with symbols (the default view)"),
		OPT_FLAG(0, "insns", &insns, "the instruction history (gdb's instruction-history)"),
		OPT_FLAG(0, "calls", &calls, "the function-call history (gdb's function-call-history)"),
		OPT_FLAG(0, "pebs", &pebs, "kmod-pebs's PEBS records: IP and registers"),
		OPT_FLAG(0, "raw-bytes", &o.raw_bytes, "--insns: show the bytes of each instruction (/r)"),
		OPT_FLAG(0, "source", &o.source, "--insns: show the source lines (/s)"),
		OPT_CALLBACK(0, "syntax", "att|intel", &o.syntax,
			     "--insns: AT&T (default) or Intel syntax, as gdb's disassembly-flavor",
			     parse_syntax),
		OPT_FLAG(0, "insn-range", &o.insn_range, "--calls: show each call's instructions (/i)"),
		OPT_FLAG(0, "line-range", &o.line_range, "--calls: show each call's source lines (/l)"),
		OPT_FLAG(0, "indent", &o.indent, "--calls: indent by call depth (/c)"),
		OPT_CALLBACK(0, "last", "N", &o.last, "only the last N entries", parse_count),
		OPT_CALLBACK(0, "from", "N", &o.from, "only entries from number N on", parse_count),
		OPT_CALLBACK(0, "to", "M", &o.to, "only entries up to number M", parse_count),
		OPT_CALLBACK(0, "thread", "TID", &o.thread, "only thread TID", parse_pid),
		OPT_STRING(0, "function", "GLOB", &o.filter.function,
			   "only code of the functions GLOB matches ('shapes::*')"),
		OPT_STRING(0, "object", "GLOB", &o.filter.object,
			   "only code in the files GLOB matches ('libc.so*')"),
		OPT_CALLBACK(0, "grep", "REGEX", &o.filter, "only code of the functions "
			     "whose names REGEX matches", parse_filter_grep),
		OPT_CALLBACK(0, "addr", "LO-HI", &o.filter, "only code at addresses LO to "
			     "HI (hexadecimal, inclusive)", parse_filter_addr),
		OPT_FLAG(0, "json", &o.json, "one JSON object per line (fields below)"),
		OPT_NO_DEMANGLE(&raw_names),
		OPT_FLAG(0, "incomplete", &o.incomplete,
			 "read a file cut short (a killed recorder's FILE.tmp.PID) up to its last whole chunk"),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &dump_help, opts, 0);
	int ret;

	if (first == PARSE_HELP)
		ret = 0;
	else if (first < 0)
		ret = EXIT_USAGE;
	else
		ret = dump_args(&o, argc, argv, first, raw_names,
				o.raw + branches + insns + calls + pebs,
				insns ? VIEW_INSNS : calls ? VIEW_CALLS :
				pebs ? VIEW_PEBS : VIEW_BRANCHES);
	filter_free(&o.filter);	/* --grep's compiled expression */
	return ret;
}
