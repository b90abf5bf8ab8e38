// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record: run a program (or attach to a process) and record every
 * branch its threads take into a trace file.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"
#include "record-crash.h"
#include "record-progress.h"
#include "record-speed.h"
#include "tracer-guard.h"

/* BR_INST_RETIRED.NEAR_TAKEN: event 0xc4, unit mask 0x20. */
#define PEBS_EVENT_NEAR_TAKEN	0x20c4ULL

static const struct command_help record_help = {
	.name = "record",
	.usage = { "[OPTIONS] [--] CMD [ARGS...]", "[OPTIONS] -p PID" },
	.summary = "Runs CMD, or traces the running process PID, and records every taken\n"
		   "branch of every thread into FILE.  FILE appears only once it is\n"
		   "complete.  A summary line goes to stderr.",
	.details =
	"Signals: Ctrl-C (or Ctrl-\\, or a hangup) in the terminal reaches the\n"
	"program as it would without btrace, and btrace completes FILE when the\n"
	"program ends.  SIGINT or SIGTERM (or SIGQUIT, SIGHUP) sent to btrace\n"
	"alone, with kill, stops the recording: btrace restores the program's\n"
	"code, kills the program it started (or lets a process attached with -p\n"
	"run on), completes FILE and exits.  btrace records in a child, the\n"
	"recorder: a SIGKILL of btrace makes the recorder stop the same way.  A\n"
	"SIGKILL of the recorder kills the program with ptrace-step, and leaves\n"
	"FILE.tmp.PID, readable with 'btrace dump --incomplete'.\n"
	"\n"
	"Index: once FILE is complete, btrace writes into it the index of each\n"
	"thread's history, as 'btrace index' does (--no-index: not), decoding\n"
	"every thread once; if that fails, FILE stays complete without it.\n"
	"\n"
	"Exit status: the program's: its exit code, or 128+N when signal N\n"
	"killed it (137 when btrace was told to stop and killed it); 0 when\n"
	"btrace detached from a process given with -p.  Otherwise:\n"
	"  125  btrace failed (bad option, source not available, I/O error, ...)\n"
	"  126  the program was found but cannot be run\n"
	"  127  the program was not found\n"
	"\n"
	"Children: fork, vfork, clone and exec are followed (--no-follow: let\n"
	"children go untraced): each process has its own threads and records in\n"
	"FILE, an exec starts a new image with its maps, and the summary lists\n"
	"every process with its exit status or signal.\n"
	"\n"
	"Flight recorder (--on-crash): nothing is written while all goes well; a\n"
	"one-line summary goes to stderr.  Every thread keeps only its newest N\n"
	"records (--keep N, default 65536) in RING mode: memory is bounded by\n"
	"24*N bytes per live thread (1.5 MiB at the default).  When a signal is\n"
	"about to kill a traced process (default disposition that terminates;\n"
	"handled or ignored signals are no crash), btrace stops its threads and\n"
	"writes a crash trace: signal and siginfo, registers and unwound stacks\n"
	"of every thread, maps with build-ids, the records, copies of code with\n"
	"no file.  One file per crashed process, named from -o PATTERN (%p pid,\n"
	"%e program name, %% a percent sign; default btrace-crash.%e.%p.btr),\n"
	"checked before the program runs (exit 125 if it cannot be written);\n"
	"then the signal is delivered and the process dies as it would have.\n",
};

struct record_opts {
	const char *output;
	pid_t pid;
	int source;
	int mode;
	uint64_t buffer;
	bool no_follow;
	bool on_crash;
	uint64_t keep;
	const char *crash_pattern;
	int format;		/* BTS_FORMAT_* */
	struct record_speed speed;	/* --cpu, --skip, limits */
	bool progress, no_progress;
	bool no_index;
	uint64_t pebs_event, pebs_period;	/* kmod-pebs; 0: the default */
};

/* --format compact|raw|tnt. */
static const char *parse_format(const char *arg, void *value)
{
	int *format = value;

	if (!strcmp(arg, "compact"))
		*format = BTS_FORMAT_COMPACT;
	else if (!strcmp(arg, "raw"))
		*format = BTS_FORMAT_RAW;
	else if (!strcmp(arg, "tnt"))
		*format = BTS_FORMAT_TNT;
	else
		return "expected compact, raw or tnt";
	return NULL;
}

/*
 * tnt is written compact while the program runs, and rewritten once the
 * file is whole: its records follow from code the whole trace names.
 * A rewrite that fails leaves the compact file, whole.
 */
static int finish_tnt(const char *path)
{
	int ret = bts_trace_tnt_file(path);

	if (ret < 0)
		error("record: %s: not rewritten in the tnt encoding, kept compact: %s",
		      path, bts_errdetail());
	return ret;
}

/* --pebs-event NAME|0xUUEE: what kmod-pebs samples. */
static const char *parse_pebs_event(const char *arg, void *value)
{
	uint64_t *event = value;
	char *end;

	if (!strcmp(arg, "all-branches")) {
		*event = PTBTS_PEBS_EVENT_BRANCHES;
		return NULL;
	}
	if (!strcmp(arg, "near-taken")) {
		*event = PEBS_EVENT_NEAR_TAKEN;
		return NULL;
	}
	errno = 0;
	*event = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' ||
	    bts_pebs_event_problem(*event, 1))
		return "expected all-branches, near-taken or an event as 0xUUEE "
		       "(unit mask UU, event select EE, not 0)";
	return NULL;
}

/* --pebs-period N: one sample every N events. */
static const char *parse_pebs_period(const char *arg, void *value)
{
	if (parse_count(arg, value) ||
	    *(uint64_t *)value > PTBTS_PEBS_PERIOD_MAX)
		return "expected 1 to 2147483647 events";
	return NULL;
}

/* ------------------------------------------------------------- signals */

static struct bts_session *volatile running;
static volatile sig_atomic_t stop_signal;

/*
 * A signal from the terminal (Ctrl-C, Ctrl-\, a hangup) goes to the whole
 * foreground process group, so the program receives its own copy: btrace
 * lets the program decide and records on.  One sent to btrace alone (kill,
 * si_code SI_USER or SI_QUEUE) asks btrace to stop recording.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code == SI_KERNEL)
		return;
	stop_signal = sig;
	if (running)
		bts_session_stop(running);
}

/* No SA_RESTART: the session's waitpid() must return EINTR to notice. */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* --------------------------------------------------------------- record */

/*
 * Checks the source before anything starts, to say why it cannot work:
 * a refusal (Yama, a policy, ...) in the very line `btrace info` prints.
 * One that refuses attaching only (Yama 1) is left to the attach: the
 * process may have made btrace its tracer (PR_SET_PTRACER).
 */
static int check_source(int source, bool attach)
{
	struct bts_source_info info[16];
	struct bts_refusal r;
	int n;

	if (source == BTS_SOURCE_AUTO) {
		if (!bts_refusal_for(source, attach, &r, sizeof(r)))
			return 0;
		error("record: %s", r.line);
		return -1;
	}
	n = bts_probe_sources(info, 16, sizeof(*info));
	for (int i = 0; i < n && i < 16; i++) {
		if (info[i].source != source)
			continue;
		if (info[i].available)
			return 0;
		error("record: source %s is not available: %s",
		      bts_source_name(source), info[i].why);
		return -1;
	}
	error("record: source %s is not available here", bts_source_name(source));
	return -1;
}

static int start(const struct record_opts *o, char **cmd, struct bts_writer *w,
		 struct bts_session **s)
{
	BTS_OPTS(bts_session_opts, so, .source = o->source, .mode = o->mode,
		 .buffer_size = o->buffer, .writer = w,
		 .no_follow = o->no_follow, .on_crash = o->on_crash,
		 .crash_pattern = o->crash_pattern,
		 .pebs_event = o->pebs_event, .pebs_period = o->pebs_period);
	struct bts_refusal r;
	int ret;

	record_speed_opts(&o->speed, &so);

	if (o->pid) {
		ret = bts_session_new_attach(o->pid, &so, s);
		if (ret == -BTS_E_PERM &&
		    bts_refusal_for(o->source, true, &r, sizeof(r)))
			error("record: %s", r.line);
		else if (ret < 0)
			error_bts(ret, "record: process %d", (int)o->pid);
		return ret < 0 ? EXIT_RECORD_FAILED : 0;
	}
	note_setuid("record", cmd[0]);
	ret = bts_session_new_spawn(cmd, &so, s);
	if (ret >= 0)
		return 0;
	if (ret == -BTS_E_PERM &&
	    bts_refusal_for(o->source, false, &r, sizeof(r)))
		error("record: %s", r.line);
	else if (ret == -BTS_E_NOENT || ret == -BTS_E_NOEXEC)
		error_bts(ret, "%s", cmd[0]);
	else	/* the session's set-up, before the program: not its fault */
		error_bts(ret, "record");
	if (ret == -BTS_E_NOENT)
		return EXIT_RECORD_NOENT;
	if (ret == -BTS_E_NOEXEC)
		return EXIT_RECORD_NOEXEC;
	return EXIT_RECORD_FAILED;
}

static int program_status(const struct bts_session_stats *st)
{
	if (!st->exited)
		return 0;
	if (WIFSIGNALED(st->status))
		return 128 + WTERMSIG(st->status);
	return WEXITSTATUS(st->status);
}

static void summary(const struct bts_session_stats *st, const char *path)
{
	char stopped[48] = "";

	if (stop_signal)
		snprintf(stopped, sizeof(stopped), "; stopped by SIG%s",
			 sigabbrev_np(stop_signal) ?: "?");
	error("recorded %" PRIu64 " thread%s, %" PRIu64 " records, %" PRIu64
	      " lost (%s) to %s%s%s", st->threads, st->threads == 1 ? "" : "s",
	      st->records, st->lost, bts_source_name(st->source), path, stopped,
	      record_speed_cut(st));
}

/* Runs the session to its end and completes the file. */
static uint64_t o_keep;
static bool o_tnt;
static enum progress_mode o_progress;
static bool o_attach;	/* -p: qemu-user, which cannot attach, is no hint */
static bool o_index;	/* write the index into the completed file */

/*
 * The index of every thread's history, written into the completed file
 * (btrace index), so that replay and dump --insns --from/--last start
 * near any point without decoding the history first.  The file is whole
 * without it: a failure only says so, and 'btrace index' can try again.
 */
static void write_index(const char *path)
{
	int ret = bts_trace_index_file(path, NULL);

	if (ret < 0)
		error_bts(ret, "record: %s is complete but has no index "
			  "(btrace index %s may add it)", path, path);
}

static int run(struct bts_session *s, struct bts_writer *w, const char *path)
{
	struct bts_session_stats st;
	int ret;

	running = s;
	if (stop_signal)
		bts_session_stop(s);
	record_progress_start(s, o_progress, !o_attach);
	ret = bts_session_run(s);
	record_progress_stop();
	running = NULL;
	record_speed_disarm();
	bts_session_stats(s, &st, sizeof(st));
	if (ret < 0) {
		bts_session_free(s);
		error_bts(ret, "record");
		bts_writer_free(w);
		return EXIT_RECORD_FAILED;
	}
	if (!w) {
		/* --on-crash: crash traces only, written as they happened. */
		ret = record_crash_summary(s, &st, o_keep);
		bts_session_free(s);
		return ret ? EXIT_RECORD_FAILED : program_status(&st);
	}
	record_print_processes(s);
	record_print_unrecorded(s, st.source);
	bts_session_free(s);
	ret = bts_writer_finish(w);
	bts_writer_free(w);
	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_RECORD_FAILED;
	}
	if (o_index)
		write_index(path);
	if (o_tnt && finish_tnt(path) < 0)
		return EXIT_RECORD_FAILED;
	summary(&st, path);
	return program_status(&st);
}

/*
 * --on-crash: a crash comes once, so its trace's name is checked before
 * the program runs, with the program's name for %e.
 */
static int check_crash_pattern(const struct record_opts *o, char **cmd)
{
	char exe[PATH_MAX] = "", link[64];
	ssize_t n;
	int ret;

	if (o->pid) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)o->pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
	} else {
		snprintf(exe, sizeof(exe), "%s", cmd[0]);
	}
	ret = bts_crash_pattern_check(o->crash_pattern, exe);
	if (ret < 0)
		error_bts(ret, "record: --on-crash -o %s",
			  o->crash_pattern ? o->crash_pattern : "btrace-crash.%e.%p.btr");
	return ret;
}

static int record(const struct record_opts *o, char **cmd)
{
	struct bts_session *s;
	struct bts_writer *w;
	int ret;

	if (check_source(o->source, o->pid != 0))
		return EXIT_RECORD_FAILED;
	if (o->on_crash && check_crash_pattern(o, cmd))
		return EXIT_RECORD_FAILED;
	ret = tracer_guard("the recorder", o->on_crash ? NULL : o->output);
	if (ret != TRACER_GUARD_CHILD)
		return ret;
	w = NULL;
	ret = o->on_crash ? 0 : bts_writer_new(o->output, &w);
	if (!ret && w) {
		ret = bts_writer_format(w, o->format == BTS_FORMAT_TNT ?
					BTS_FORMAT_COMPACT : o->format);
		if (ret < 0)
			bts_writer_free(w);
	}
	if (ret == -BTS_E_IO) {
		/* The detail says it all: "cannot create FILE: why". */
		error("%s", bts_errdetail());
		return EXIT_RECORD_FAILED;
	}
	if (ret < 0) {
		error_bts(ret, "%s", o->output);
		return EXIT_RECORD_FAILED;
	}
	catch_signals();
	ret = start(o, cmd, w, &s);
	if (ret) {
		bts_writer_free(w);
		return ret;
	}
	record_speed_arm(&o->speed, s);
	return run(s, w, o->output);
}

int cmd_record(int argc, char **argv)
{
	static const char *const default_output = "btrace.btr";
	struct record_opts o = {
		.output = default_output,
		.source = BTS_SOURCE_AUTO,
		.mode = PTBTS_MODE_BLOCK,
		.buffer = 4 << 20,
		.keep = RECORD_KEEP_DEFAULT,
		.format = BTS_FORMAT_COMPACT,
	};
	const struct option opts[] = {
		OPT_OUTPUT(&o.output),
		OPT_PID(&o.pid),
		OPT_SOURCE(&o.source, "auto (default), kmod-bts, kmod-pebs, kmod-step, "
			   "perf-bts, ptrace-step or qemu-user"),
		OPT_MODE(&o.mode),
		OPT_BUFFER(&o.buffer),
		OPT_FLAG(0, "no-follow", &o.no_follow,
			 "trace CMD's own process only, not its children"),
		OPT_FLAG(0, "on-crash", &o.on_crash,
			 "flight recorder: write a crash trace per crashed process only"),
		OPT_CALLBACK(0, "keep", "N", &o.keep,
			     "--on-crash: newest N records per thread (default 65536; 24*N bytes)",
			     parse_keep),
		OPT_CALLBACK(0, "format", "FORMAT", &o.format,
			     "records in FILE: compact (default, a few bytes a branch), raw (24 bytes) "
			     "or tnt (about a bit a branch, read with the traced files)",
			     parse_format),
		OPT_CALLBACK(0, "pebs-event", "EVENT", &o.pebs_event,
			     "kmod-pebs: the event sampled: all-branches (default), "
			     "near-taken or 0xUUEE (unit mask, event select)",
			     parse_pebs_event),
		OPT_CALLBACK(0, "pebs-period", "N", &o.pebs_period,
			     "kmod-pebs: one PEBS record every N events (default 1000)",
			     parse_pebs_period),
		OPT_RECORD_SPEED(&o.speed),
		OPT_FLAG(0, "progress", &o.progress,
			 "show a progress line on stderr (default: when it is a terminal)"),
		OPT_FLAG(0, "no-progress", &o.no_progress,
			 "no progress line, even on a terminal"),
		OPT_FLAG(0, "no-index", &o.no_index,
			 "write no index of the histories into FILE (see 'btrace index')"),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &record_help, opts,
				  PARSE_STOP_AT_ARG);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_RECORD_FAILED;
	if (o.pid && first < argc) {
		error("record: give a program or -p PID, not both");
		return EXIT_RECORD_FAILED;
	}
	if (!o.pid && first == argc) {
		error("record: no program given (see 'btrace record --help')");
		return EXIT_RECORD_FAILED;
	}
	if (!*o.output) {
		error("record: --output: empty file name");
		return EXIT_RECORD_FAILED;
	}
	/* The file is written under a temporary name and renamed when whole. */
	if (!strcmp(o.output, "-")) {
		error("record: --output -: a trace file cannot go to standard output; give a file name");
		return EXIT_RECORD_FAILED;
	}
	if ((o.pebs_event || o.pebs_period) &&
	    o.source != PTBTS_SOURCE_KMOD_PEBS) {
		error("record: --pebs-event and --pebs-period go with --source kmod-pebs");
		return EXIT_RECORD_FAILED;
	}
	if (o.progress && o.no_progress) {
		error("record: --progress and --no-progress exclude each other");
		return EXIT_RECORD_FAILED;
	}
	o_progress = o.progress ? PROGRESS_ON :
		     o.no_progress ? PROGRESS_OFF : PROGRESS_AUTO;
	o_attach = o.pid != 0;
	/* PEBS samples are no history to index. */
	o_index = !o.no_index && !o.on_crash &&
		  o.source != PTBTS_SOURCE_KMOD_PEBS;
	o_tnt = o.format == BTS_FORMAT_TNT;
	if (!o.on_crash && o.keep != RECORD_KEEP_DEFAULT) {
		error("record: --keep works with --on-crash only (see --mode ring --buffer)");
		return EXIT_RECORD_FAILED;
	}
	if (o.on_crash) {
		/* -o is the pattern of the crash traces' names. */
		o.crash_pattern = o.output == default_output ? NULL : o.output;
		o.mode = PTBTS_MODE_RING;
		o.buffer = o.keep * sizeof(struct ptbts_record);
		o_keep = o.keep;
	}
	return record(&o, argv + first);
}
