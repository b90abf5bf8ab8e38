// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace replay: a gdb-like prompt over a saved trace, no live process
 * needed.  The engine lives in replay/: history.c (the instructions in
 * memory), motion.c (stepping), frames.c (backtraces), state.c (threads
 * and positions), commands.c and *_cmds.c (the commands), input.c (lines).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "btrace.h"
#include "names.h"
#include "options.h"
#include "replay/commands.h"
#include "replay/input.h"
#include "replay/state.h"

static const struct command_help replay_help = {
	.name = "replay",
	.usage = { "[-x SCRIPT] [--window N] FILE" },
	.summary = "Replays a trace file at a gdb-like prompt: step backwards and forwards\n"
		   "through the instructions the program ran, with backtraces and source.",
	.details =
	"It starts where the trace ends: at the crash point of the thread that\n"
	"crashed (a trace written by 'btrace record --on-crash'), else at the\n"
	"last instruction of the first thread, and says where that is.\n"
	"\n"
	"Commands (gdb's names, aliases and unique prefixes; 'help' lists them):\n"
	"  reverse-stepi [N] (rsi), stepi [N] (si)     by instructions\n"
	"  reverse-next [N] (rn), next [N] (n)         by source lines, over calls\n"
	"  reverse-step [N] (rs), step [N] (s)         by source lines, into calls\n"
	"  reverse-finish, finish                      out of the current function\n"
	"  break FUNC|FILE:LINE|*ADDR (b), delete [N]  breakpoints\n"
	"  reverse-continue (rc), continue (c)         to the previous or next one\n"
	"  goto N|begin|end                            to instruction N\n"
	"  bt [N|-N]                                   the call stack here\n"
	"  list                                        source lines around here\n"
	"  history [N], calls [N]                      instructions, function calls\n"
	"  info position|threads|registers|breakpoints|sharedlibrary\n"
	"      where, the threads, the registers, the breakpoints, the libraries\n"
	"  thread [N]                                  switch threads\n"
	"  help, quit (q)\n"
	"At the crash point bt is the stack unwound at the crash; elsewhere that\n"
	"stack adjusted by the calls and returns between here and the crash; in\n"
	"a trace without a crash, the stack the history shows.  Instructions are\n"
	"numbered as 'btrace dump --insns' numbers them; the current one is\n"
	"marked '=>'.  Leaving either end of the history stops with \"No more\n"
	"reverse-execution history.\"\n"
	"\n"
	"-x SCRIPT runs the commands of SCRIPT first (as gdb -x), then reads the\n"
	"terminal (with line editing) or standard input, to its end or 'quit'.\n"
	"\n"
	"Memory is bounded by a window of instructions held decoded (--window,\n"
	"at least 16; 32 bytes each), not by the history: an instruction\n"
	"outside it is decoded again from the index point before it (the file's\n"
	"index, 'btrace index', or one built when the thread is first selected).\n"
	"\n"
	"Exit status: 0; 1 when FILE cannot be read (missing, not a trace,\n"
	"truncated, damaged) or a command of SCRIPT fails (the script stops\n"
	"there); 2 for a bad command line.\n",
};

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * With BTRACE_REPLAY_DECODED in the environment, the instructions the
 * current thread has decoded again since it was loaded, and the CPU time
 * of the command, go to stderr after each command: how tests see what a
 * command decodes, and the benchmark what it costs.
 */
static void say_decoded(struct replay *r, double since)
{
	static int want = -1;
	struct replay_thread *th;

	if (want < 0)
		want = getenv("BTRACE_REPLAY_DECODED") != NULL;
	th = want ? replay_current(r) : NULL;
	if (th && th->loaded)
		fprintf(stderr, "decoded %" PRIu64 " in %.3f ms cpu\n",
			th->h.w->decoded, cpu_ms() - since);
}

static int run(struct replay *r, struct replay_input *in)
{
	bool from_script;
	char *line;

	while (!r->quit && (line = input_next(in, &from_script))) {
		double since = cpu_ms();
		int ret = replay_command(r, line);

		free(line);
		fflush(stdout);
		say_decoded(r, since);
		if (ret < 0 && from_script)
			return EXIT_FAILED;
	}
	if (!r->quit && in->tty)
		putchar('\n');
	return 0;
}

static void say_start(struct replay *r)
{
	struct replay_thread *th = replay_current(r);
	const char *name = replay_pos_name(th);

	printf("Replaying %s: thread %d (process %d), %zu thread%s.\n", r->path,
	       (int)th->tid, (int)th->pid, r->nthreads, r->nthreads == 1 ? "" : "s");
	if (r->crash)
		printf("Program terminated with signal SIG%s, %s.\n",
		       sigabbrev_np(r->crash->signo) ?: "?",
		       sigdescr_np(r->crash->signo) ?: "unknown signal");
	printf("At instruction %" PRIu64 " of %" PRIu64 "%s%s.\n", th->pos,
	       th->h.n, name ? ", " : "", name ? name : "");
	replay_print_where(r);
}

static int replay_file(const char *path, const char *script, uint64_t window)
{
	struct replay_input in;
	struct replay r;
	int ret;

	if (input_open(&in, script) < 0)
		return EXIT_FAILED;
	if (replay_open(&r, path) < 0) {
		input_close(&in);
		return EXIT_FAILED;
	}
	r.window = window;
	if (replay_select(&r, r.cur) < 0) {
		ret = EXIT_FAILED;
	} else {
		say_start(&r);
		ret = run(&r, &in);
	}
	replay_close(&r);
	input_close(&in);
	fflush(stdout);
	return ret;
}

int cmd_replay(int argc, char **argv)
{
	const char *script = NULL;
	bool raw_names = false;
	uint64_t window = 0;
	const struct option opts[] = {
		OPT_STRING('x', "script", "SCRIPT", &script,
			   "run the commands of SCRIPT first"),
		OPT_CALLBACK(0, "window", "N", &window,
			     "hold N instructions decoded at a time (65536)",
			     parse_count),
		OPT_NO_DEMANGLE(&raw_names),
		OPT_END(),
	};
	int first = parse_options(argc, argv, &replay_help, opts, 0);

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first == argc) {
		error("replay: no trace file given (see 'btrace replay --help')");
		return EXIT_USAGE;
	}
	if (argc - first > 1) {
		error("replay: one trace file at a time");
		return EXIT_USAGE;
	}
	names_keep_raw(raw_names);
	return replay_file(argv[first], script, window);
}
