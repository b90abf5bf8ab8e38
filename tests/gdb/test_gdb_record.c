// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb 13 against `btrace gdbserver`: `record btrace bts` over the exact
 * sequence of tests/progs/gdb-seq-asm.S (21 instructions in 7 function
 * segments from seq_run to seq_done), the history commands, reverse
 * stepping and record goto, record stop and the exit code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"

/* The history as (number:offset from seq_run:size), oldest first. */
static const char seq_insns[] =
	"1:0:1 2:1:3 3:4:5 4:9:2 "
	"5:11:5 6:27:3 7:30:1 8:16:2 9:18:2 "
	"10:11:5 11:27:3 12:30:1 13:16:2 14:18:2 "
	"15:11:5 16:27:3 17:30:1 18:16:2 19:18:2 "
	"20:20:1 21:21:5\n";

/* Function segments as (number:level:first insn-last insn). */
static const char seq_calls[] =
	"1:0:1-5 2:1:6-7 3:0:8-10 4:1:11-12 5:0:13-15 6:1:16-17 7:0:18-21\n";

#define PY_HISTORY							\
	"python r = gdb.current_recording(); "				\
	"b = int(gdb.parse_and_eval('(long)&seq_run')); "		\
	"print('@@begin py'); print(r.method, r.format); "		\
	"print(' '.join('%d:%d:%d' % (i.number, i.pc - b, i.size) "	\
	"for i in r.instruction_history)); "				\
	"print(' '.join('%d:%d:%d-%d' % (f.number, f.level, "		\
	"f.instructions[0].number, f.instructions[-1].number) "		\
	"for f in r.function_call_history)); "				\
	"print(r.replay_position); print('@@end py')"

TEST(gdb_record, seq_history)
{
	static const char *const cmds[] = {
		"break seq_run", "continue", "record btrace bts",
		"break seq_done", "continue",
		"echo @@begin info\\n", "info record", "echo @@end info\\n",
		PY_HISTORY,
		"echo @@begin calls\\n", "record function-call-history /ilc",
		"echo @@end calls\\n",
		NULL,
	};
	struct harness_cmd cmd;
	char *info, *py, *calls, *want;

	gdb_run(&cmd, "gdb-seq", NULL, cmds);
	info = gdb_section(&cmd, "info");
	if (strncmp(info, "Active record target: record-btrace\n"
			  "Recording format: Branch Trace Store.\n"
			  "Buffer size: 64kB.\n"
			  "Recorded 21 instructions in 7 functions (0 gaps) for thread 1 (Thread ",
		    strlen("Active record target: record-btrace\n"
			   "Recording format: Branch Trace Store.\n"
			   "Buffer size: 64kB.\n"
			   "Recorded 21 instructions in 7 functions (0 gaps) for thread 1 (Thread ")))
		FAIL("info record:\n%s", info);
	py = gdb_section(&cmd, "py");
	if (asprintf(&want, "btrace bts\n%s%sNone\n", seq_insns, seq_calls) < 0)
		FAIL("out of memory");
	EXPECT_STREQ(py, want);
	calls = gdb_section(&cmd, "calls");
	EXPECT_STREQ(calls,
		"1\tseq_run\tinst 1,5\tat tests/progs/gdb-seq-asm.S:15,19\n"
		"2\t  seq_leaf\tinst 6,7\tat tests/progs/gdb-seq-asm.S:30,31\n"
		"3\tseq_run\tinst 8,10\tat tests/progs/gdb-seq-asm.S:19,21\n"
		"4\t  seq_leaf\tinst 11,12\tat tests/progs/gdb-seq-asm.S:30,31\n"
		"5\tseq_run\tinst 13,15\tat tests/progs/gdb-seq-asm.S:19,21\n"
		"6\t  seq_leaf\tinst 16,17\tat tests/progs/gdb-seq-asm.S:30,31\n"
		"7\tseq_run\tinst 18,21\tat tests/progs/gdb-seq-asm.S:20,23\n");
	free(want);
	free(info);
	free(py);
	free(calls);
	harness_cmd_free(&cmd);
}

/*
 * reverse-stepi, record goto begin / end / N land on the instructions of
 * the known sequence; record stop, and the program runs on to its exit.
 */
TEST(gdb_record, seq_reverse_goto_stop)
{
	static const char *const cmds[] = {
		"break seq_run", "continue", "record btrace bts",
		"break seq_done", "continue",
		"echo @@begin pos\\n",
		GDB_GOTO_WALK,
		"echo @@end pos\\n",
		"record stop", "delete", "continue",
		NULL,
	};
	struct harness_cmd cmd;
	char *pos, *p, *lines[16];
	int n = 0;

	gdb_run(&cmd, "gdb-seq", NULL, cmds);
	pos = gdb_section(&cmd, "pos");
	/* Only the @@pos lines: gdb prints frames in between. */
	for (p = strtok(pos, "\n"); p && n < 16; p = strtok(NULL, "\n"))
		if (!strncmp(p, "@@pos ", 6))
			lines[n++] = p + 6;
	ASSERT_EQ(n, 7);
	EXPECT_STREQ(lines[0], "end 31");	/* live, at seq_done */
	EXPECT_STREQ(lines[1], "21 21");	/* call seq_done */
	EXPECT_STREQ(lines[2], "17 30");	/* seq_leaf's ret */
	EXPECT_STREQ(lines[3], "1 0");
	EXPECT_STREQ(lines[4], "3 4");
	EXPECT_STREQ(lines[5], "8 16");
	EXPECT_STREQ(lines[6], "end 31");
	gdb_expect_exit(&cmd, "exited with code 03");
	free(pos);
	harness_cmd_free(&cmd);
}
