// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * All-stop run control through gdb 13: threads that hit breakpoints or get
 * signals at the same moment are each reported once (tests/progs/gdb-meet),
 * a signal gdb gives the program has its handler entry in the branch trace,
 * and a thread just created is listed at once.
 */
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"

/*
 * Continues to the end, counting the stops per breakpoint function or
 * signal, and per thread: "NAME HITS [PER-THREAD COUNTS]|...", then True
 * when hit_a and hit_b came from two threads, which both hit hit_both and
 * both got SIGUSR1.
 */
#define PY_COUNT_STOPS							\
	"python import collections\n"					\
	"hits = collections.defaultdict(list)\n"			\
	"def on_stop(ev):\n"						\
	"  t = gdb.selected_thread().ptid[1]\n"				\
	"  if isinstance(ev, gdb.BreakpointEvent):\n"			\
	"    hits[gdb.selected_frame().name()].append(t)\n"		\
	"  elif isinstance(ev, gdb.SignalEvent):\n"			\
	"    hits[ev.stop_signal].append(t)\n"				\
	"gdb.events.stop.connect(on_stop)\n"				\
	"for i in range(400):\n"					\
	"  try:\n"							\
	"    gdb.execute('continue', to_string=True)\n"		\
	"  except gdb.error:\n"						\
	"    break\n"							\
	"def show(k):\n"						\
	"  c = collections.Counter(hits[k])\n"				\
	"  return '%s %d %s' % (k, len(hits[k]), sorted(c.values()))\n" \
	"a = set(hits['hit_a'])\n"					\
	"b = set(hits['hit_b'])\n"					\
	"print('@@hits ' + '|'.join(show(k) for k in sorted(hits)), "	\
	"len(a | b) == 2 and set(hits['hit_both']) == a | b == set(hits['SIGUSR1']))"

static void expect_all_hits(const char *record)
{
	const char *const cmds[] = {
		"break main", "continue", record,
		"break hit_a", "break hit_b", "break hit_both",
		PY_COUNT_STOPS, NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "gdb-meet", NULL, cmds);
	gdb_expect_out(&cmd, "@@hits SIGUSR1 32 [16, 16]|hit_a 16 [16]|"
		       "hit_b 16 [16]|hit_both 32 [16, 16] True\n");
	/* The handler ran once per SIGUSR1 gdb saw and passed on. */
	gdb_expect_exit(&cmd, "exited with code 07");
	harness_cmd_free(&cmd);
}

TEST(gdb_allstop, simultaneous_hits_each_reported)
{
	expect_all_hits("info threads");
}

TEST(gdb_allstop, simultaneous_hits_while_recording)
{
	expect_all_hits("record btrace bts");
}

/*
 * A thread is not reported by a stop of its own when it is created (as
 * gdbserver without QThreadEvents): it is listed from its clone on, held
 * at its first instruction whenever the program is stopped.
 */
TEST(gdb_allstop, new_thread_listed_at_once)
{
	static const char *const cmds[] = {
		"break created", "continue",
		"python print('@@known', len(gdb.selected_inferior().threads()))",
		"info threads",
		"python ts = gdb.selected_inferior().threads()\n"
		"print('@@listed', len(ts), len(set(t.ptid[1] for t in ts)))",
		"continue", NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "gdb-clone", NULL, cmds);
	gdb_expect_out(&cmd, "@@known 2\n");
	gdb_expect_out(&cmd, "@@listed 2 2\n");
	gdb_expect_out(&cmd, "Thread 1 hit Breakpoint 1, created ()");
	gdb_expect_exit(&cmd, "exited with code 04");
	harness_cmd_free(&cmd);
}
