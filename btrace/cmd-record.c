// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record: run a program (or attach to a process) and record every
 * branch its threads take into a trace file.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <bts.h>

#include "btrace.h"
#include "options.h"

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
	"run on), completes FILE and exits.\n"
	"\n"
	"Exit status: the program's: its exit code, or 128+N when signal N\n"
	"killed it (137 when btrace was told to stop and killed it); 0 when\n"
	"btrace detached from a process given with -p.  Otherwise:\n"
	"  125  btrace failed (bad option, source not available, I/O error, ...)\n"
	"  126  the program was found but cannot be run\n"
	"  127  the program was not found\n",
};

struct record_opts {
	const char *output;
	pid_t pid;
	int source;
	int mode;
	uint64_t buffer;
};

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

/* Checks a named source before anything starts, to say why it cannot work. */
static int check_source(int source)
{
	struct bts_source_info info[16];
	int n;

	if (source == BTS_SOURCE_AUTO)
		return 0;
	n = bts_probe_sources(info, 16);
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
		 .buffer_size = o->buffer, .writer = w);
	int ret;

	if (o->pid) {
		ret = bts_session_attach(o->pid, &so, s);
		if (ret < 0)
			error_bts(ret, "record: process %d", (int)o->pid);
		return ret < 0 ? EXIT_RECORD_FAILED : 0;
	}
	ret = bts_session_spawn(cmd, &so, s);
	if (ret >= 0)
		return 0;
	error_bts(ret, "%s", cmd[0]);
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
	      " lost (%s) to %s%s", st->threads, st->threads == 1 ? "" : "s",
	      st->records, st->lost, bts_source_name(st->source), path, stopped);
}

/* Runs the session to its end and completes the file. */
static int run(struct bts_session *s, struct bts_writer *w, const char *path)
{
	struct bts_session_stats st;
	int ret;

	running = s;
	if (stop_signal)
		bts_session_stop(s);
	ret = bts_session_run(s);
	running = NULL;
	bts_session_stats(s, &st);
	bts_session_free(s);
	if (ret < 0) {
		error_bts(ret, "record");
		bts_writer_abort(w);
		return EXIT_RECORD_FAILED;
	}
	ret = bts_writer_close(w);
	if (ret < 0) {
		error_bts(ret, "%s", path);
		return EXIT_RECORD_FAILED;
	}
	summary(&st, path);
	return program_status(&st);
}

static int record(const struct record_opts *o, char **cmd)
{
	struct bts_session *s;
	struct bts_writer *w;
	int ret;

	if (check_source(o->source))
		return EXIT_RECORD_FAILED;
	ret = bts_writer_open(o->output, &w);
	if (ret < 0) {
		error_bts(ret, "%s", o->output);
		return EXIT_RECORD_FAILED;
	}
	catch_signals();
	ret = start(o, cmd, w, &s);
	if (ret) {
		bts_writer_abort(w);
		return ret;
	}
	return run(s, w, o->output);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.output = "btrace.btr",
		.source = BTS_SOURCE_AUTO,
		.mode = PTBTS_MODE_BLOCK,
		.buffer = 4 << 20,
	};
	const struct option opts[] = {
		OPT_OUTPUT(&o.output),
		OPT_PID(&o.pid),
		OPT_SOURCE(&o.source),
		OPT_MODE(&o.mode),
		OPT_BUFFER(&o.buffer),
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
	return record(&o, argv + first);
}
