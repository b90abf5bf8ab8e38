// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb 13 against `btrace gdbserver --trace`: a saved trace of gdb-seq, its
 * thread standing at the end of its history or at the instruction --at
 * names; `record btrace bts` gives gdb the history before it, whose
 * instructions and function segments are the ones `btrace dump --insns`
 * and `--calls` show there.  Running is refused, bad inputs end the stub
 * with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"
#include "gdb_util.h"

#define READ_ONLY "E.The program is a saved trace: its history can be read, " \
		  "not run or changed."

/*
 * The program @prog of progs/ recorded into a trace of the test's own,
 * @name (malloc'ed path); it exits with @code.
 */
static char *record_prog(const char *name, const char *prog_name, int code)
{
	char *btr = harness_path(harness_tmpdir(), name), *prog = PROG_PATH(prog_name);
	struct harness_cmd cmd;

	ASSERT_EQ(harness_btrace(&cmd, 60, "record", "-o", btr, "--", prog, NULL),
		  code);
	harness_cmd_free(&cmd);
	free(prog);
	return btr;
}

/* gdb-seq exits with 3. */
#define record_seq(name) record_prog(name, "gdb-seq", 3)

/* The lines of @text (modified in place) into @lines, at most @max. */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;
	char *p;

	for (p = strtok(text, "\n"); p && n < max; p = strtok(NULL, "\n"))
		lines[n++] = p;
	return n;
}

/* What follows the number and tab that start a history line. */
static const char *after_number(const char *line)
{
	const char *tab = strchr(line, '\t');

	return tab ? tab + 1 : line;
}

/* The line of dump (--insns or --calls) output @out that is entry @n. */
static const char *dump_entry(char **lines, size_t nlines, unsigned long n)
{
	for (size_t i = 0; i < nlines; i++)
		if (strtoul(lines[i], NULL, 10) == n && strchr(lines[i], '\t'))
			return lines[i];
	return NULL;
}

/* The number of the first dump line holding @text, or 0. */
static unsigned long dump_find(char **lines, size_t nlines, const char *text)
{
	for (size_t i = 0; i < nlines; i++)
		if (strstr(lines[i], text))
			return strtoul(lines[i], NULL, 10);
	return 0;
}

static char *trace_target(const char *btr, const char *args)
{
	char *btrace = BTRACE_PATH(), *t;

	if (asprintf(&t, "target remote | %s gdbserver --trace %s %s", btrace,
		     btr, args) < 0)
		FAIL("out of memory");
	free(btrace);
	return t;
}

#define INSN_LINES_MAX 200000
#define CALL_LINES_MAX 10000

/*
 * --at the first instruction of seq_done: gdb stands there, and the ten
 * instructions and eight function segments before it (main, then seq_run
 * and seq_leaf in turn) are dump's.
 */
TEST(gdb_trace, history_at)
{
	static char *lines[INSN_LINES_MAX], *clines[CALL_LINES_MAX];
	char *btr = record_seq("at.btr"), *target, at[64], *text, *gl[32];
	char addr[32];
	const char *cmds[] = {
		"echo @@begin pc\\n", "printf \"%#018lx\\n\", $pc",
		"echo @@end pc\\n",
		"echo @@begin sym\\n", "x/i $pc", "echo @@end sym\\n",
		"record btrace bts",
		"echo @@begin insns\\n", "record instruction-history",
		"echo @@end insns\\n",
		"set record function-call-history-size 7",
		"echo @@begin calls\\n", "record function-call-history",
		"echo @@end calls\\n",
		NULL,
	};
	struct harness_cmd dump, calls, cmd;
	unsigned long n, seg;
	size_t nl, ncl, ng, i;

	ASSERT_EQ(harness_btrace(&dump, 60, "dump", "--insns", btr, NULL), 0);
	nl = split_lines(dump.out, lines, INSN_LINES_MAX);
	n = dump_find(lines, nl, "<seq_done+0>:");
	ASSERT_GT(n, 10UL);
	ASSERT_EQ(harness_btrace(&calls, 60, "dump", "--calls", btr, NULL), 0);
	ncl = split_lines(calls.out, clines, CALL_LINES_MAX);
	seg = dump_find(clines, ncl, "\tseq_done");
	ASSERT_GT(seg, 8UL);

	snprintf(at, sizeof(at), "--at %lu", n);
	target = trace_target(btr, at);
	gdb_run(&cmd, "gdb-seq", target, cmds);

	text = gdb_section(&cmd, "pc");
	snprintf(addr, sizeof(addr), "%.18s\n",
		 strstr(dump_entry(lines, nl, n), "0x"));
	EXPECT_STREQ(text, addr);
	free(text);
	text = gdb_section(&cmd, "sym");
	EXPECT_TRUE(strstr(text, " <seq_done>:\tnop") != NULL);
	free(text);

	text = gdb_section(&cmd, "insns");
	ng = split_lines(text, gl, 32);
	ASSERT_EQ(ng, (size_t)10);
	for (i = 0; i < ng; i++)
		EXPECT_STREQ(after_number(gl[i]),
			     after_number(dump_entry(lines, nl, n - 10 + i)));
	free(text);

	/* gdb 13 shows one segment more than the size at the end. */
	text = gdb_section(&cmd, "calls");
	ng = split_lines(text, gl, 32);
	ASSERT_EQ(ng, (size_t)8);
	for (i = 0; i < ng; i++)
		EXPECT_STREQ(after_number(gl[i]),
			     after_number(dump_entry(clines, ncl, seg - 8 + i)));
	free(text);
	gdb_expect_process(&cmd, "[Inferior 1 (", ") detached]");

	harness_cmd_free(&cmd);
	harness_cmd_free(&calls);
	harness_cmd_free(&dump);
	free(target);
	free(btr);
}

/* Without --at, gdb stands at the last instruction of the history. */
TEST(gdb_trace, history_end)
{
	static char *lines[INSN_LINES_MAX];
	char *btr = record_seq("end.btr"), *target, *text, *gl[32], addr[32];
	const char *cmds[] = {
		"record btrace bts",
		"echo @@begin insns\\n", "record instruction-history /f",
		"echo @@end insns\\n",
		"echo @@begin pc\\n", "printf \"%#018lx\\n\", $pc",
		"echo @@end pc\\n",
		NULL,
	};
	struct harness_cmd dump, cmd;
	unsigned long last;
	size_t nl, ng, i;

	ASSERT_EQ(harness_btrace(&dump, 60, "dump", "--insns", btr, NULL), 0);
	nl = split_lines(dump.out, lines, INSN_LINES_MAX);
	last = strtoul(lines[nl - 1], NULL, 10);
	ASSERT_GT(last, 10UL);

	target = trace_target(btr, "");
	gdb_run(&cmd, "gdb-seq", target, cmds);
	text = gdb_section(&cmd, "pc");
	snprintf(addr, sizeof(addr), "%.18s\n",
		 strstr(dump_entry(lines, nl, last), "0x"));
	EXPECT_STREQ(text, addr);
	free(text);

	/* Addresses only: gdb may name libc's functions by other aliases. */
	text = gdb_section(&cmd, "insns");
	ng = split_lines(text, gl, 32);
	ASSERT_EQ(ng, (size_t)10);
	for (i = 0; i < ng; i++)
		EXPECT_EQ(strncmp(strstr(gl[i], "0x"),
				  strstr(dump_entry(lines, nl, last - 10 + i), "0x"),
				  18), 0);
	free(text);
	harness_cmd_free(&cmd);
	harness_cmd_free(&dump);
	free(target);
	free(btr);
}

/* continue and stepi at the end are refused, in gdb's words; kill ends. */
TEST(gdb_trace, run_refused)
{
	char *btr = record_seq("run.btr"), *target = trace_target(btr, "");
	const char *cmds[] = {
		"record btrace bts", "continue", "stepi",
		"echo @@begin back\\n", "reverse-stepi", "info record",
		"echo @@end back\\n",
		"record stop", "kill",
		NULL,
	};
	struct harness_cmd cmd;
	char *back;
	const char *p;
	int refused = 0;

	gdb_run(&cmd, "gdb-seq", target, cmds);
	for (p = cmd.err; (p = strstr(p, "Remote failure reply: " READ_ONLY)); p++)
		refused++;
	EXPECT_EQ(refused, 2);
	/* Going back in the history is gdb's own: it works. */
	back = gdb_section(&cmd, "back");
	EXPECT_TRUE(strstr(back, "Replay in progress.") != NULL);
	gdb_expect_process(&cmd, "[Inferior 1 (", ") killed]");
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	free(back);
	harness_cmd_free(&cmd);
	free(target);
	free(btr);
}

/*
 * The end of a crash trace: the saved registers (level3's argument in
 * rdi, the stack pointer); one instruction before it, only the pc.
 */
TEST(gdb_trace, crash_registers)
{
	char *btr = harness_path(harness_tmpdir(), "crash.btr");
	char *prog = PROG_PATH("crash-deep"), *target, *end, *before, at[64];
	const char *cmds[] = {
		"echo @@begin regs\\n", "info registers rdi rsp",
		"echo @@end regs\\n",
		NULL,
	};
	struct harness_cmd rec, dump, cmd;
	unsigned long last;
	const char *nl;

	ASSERT_EQ(harness_btrace(&rec, 60, "record", "--on-crash", "-o", btr, "--",
				 prog, NULL), 139);
	ASSERT_EQ(harness_btrace(&dump, 60, "dump", "--insns", btr, NULL), 0);
	nl = dump.out + dump.out_len - 1;
	while (nl > dump.out && nl[-1] != '\n')
		nl--;
	last = strtoul(nl, NULL, 10);
	ASSERT_GT(last, 1UL);

	target = trace_target(btr, "");
	gdb_run(&cmd, "crash-deep", target, cmds);
	gdb_expect_out(&cmd, "level3 (p=0x10) at tests/progs/crash-deep.c:16");
	end = gdb_section(&cmd, "regs");
	EXPECT_TRUE(harness_matches("^rdi +0x10 +16\nrsp +0x[0-9a-f]+ +0x[0-9a-f]+\n$",
				    end));
	harness_cmd_free(&cmd);
	free(target);

	snprintf(at, sizeof(at), "--at %lu", last - 1);
	target = trace_target(btr, at);
	gdb_run(&cmd, "crash-deep", target, cmds);
	before = gdb_section(&cmd, "regs");
	EXPECT_STREQ(before, "rdi            <unavailable>\n"
			     "rsp            <unavailable>\n");
	harness_cmd_free(&cmd);
	free(target);
	free(end);
	free(before);
	harness_cmd_free(&dump);
	harness_cmd_free(&rec);
	free(prog);
	free(btr);
}

static void expect_refused(const char *const args[], int code, const char *msg)
{
	struct harness_cmd cmd;

	EXPECT_EQ(harness_btrace_argv(&cmd, 60, args), code);
	if (!strstr(cmd.err, msg))
		harness_fail(__FILE__, __LINE__, "stderr lacks \"%s\":\n%s", msg,
			     cmd.err);
	EXPECT_STREQ(cmd.out, "");
	harness_cmd_free(&cmd);
}

TEST(gdb_trace, bad_inputs)
{
	char *btr = record_seq("bad.btr");
	char *missing = harness_path(harness_tmpdir(), "missing.btr");
	char *prog = PROG_PATH("gdb-seq"), *msg;

	{
		const char *a[] = { "gdbserver", "--trace", missing, NULL };

		if (asprintf(&msg, "gdbserver: %s: ", missing) < 0)
			FAIL("out of memory");
		expect_refused(a, 1, msg);
		free(msg);
	}
	{
		const char *a[] = { "gdbserver", "--trace", prog, NULL };

		expect_refused(a, 1, "not a trace file");
	}
	{
		const char *a[] = { "gdbserver", "--trace", btr, "--at",
				    "99999999", NULL };

		expect_refused(a, 1, "--at 99999999: the history of thread ");
	}
	{
		const char *a[] = { "gdbserver", "--trace", btr, "--thread", "1",
				    NULL };

		expect_refused(a, 1, "--thread 1: the trace has no such thread");
	}
	{
		const char *a[] = { "gdbserver", "--at", "5", "--", prog, NULL };

		expect_refused(a, 2, "gdbserver: --at goes with --trace FILE");
	}
	{
		const char *a[] = { "gdbserver", "--trace", btr, "--", prog, NULL };

		expect_refused(a, 2, "give a program, --attach PID or --trace FILE");
	}
	{
		const char *a[] = { "gdbserver", "--trace", btr, "--at", "0", NULL };

		expect_refused(a, 2, "--at");
	}
	free(prog);
	free(missing);
	free(btr);
}

#define THREADS_MAX 8

/* The tids of the "thread TID (process PID)" lines of dump output @out. */
static size_t dump_tids(const char *out, pid_t *tids, size_t max)
{
	const char *p = out;
	size_t n = 0;
	int tid, pid;

	for (; p && *p && n < max; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (sscanf(p, "thread %d (process %d)", &tid, &pid) == 2)
			tids[n++] = tid;
	return n;
}

/* The number of the last entry line of dump output @lines. */
static unsigned long dump_last(char **lines, size_t nlines)
{
	while (nlines && !strchr(lines[nlines - 1], '\t'))
		nlines--;
	return nlines ? strtoul(lines[nlines - 1], NULL, 10) : 0;
}

/*
 * gdb's lines @gl after the first are the @count entries before entry
 * @last of dump's @lines.
 */
static void expect_history(char **gl, size_t ng, size_t count, char **lines,
			   size_t nl, unsigned long last)
{
	ASSERT_EQ(ng, count + 1);
	ASSERT_GT(last, (unsigned long)count);
	/* Addresses only: gdb may name libc's functions by other aliases. */
	for (size_t i = 1; i < ng; i++)
		EXPECT_EQ(strncmp(strstr(gl[i], "0x"),
				  strstr(dump_entry(lines, nl, last - count - 1 + i), "0x"),
				  18), 0);
}

/* A trace of gdb-threads: main and its threads A and B. */
#define record_threads(name) record_prog(name, "gdb-threads", 0)

#define PY_TID "python print(gdb.selected_thread().ptid[1])"

#define THREAD_INSNS 1200

/*
 * Every thread of the process is gdb's, in the trace's order, each at the
 * end of its history: the instructions before it are dump --thread's
 * (enough of them to tell A's leaf_a calls from B's leaf_b ones).
 */
TEST(gdb_trace, threads)
{
	static char *lines[INSN_LINES_MAX], *gl[THREAD_INSNS + 8];
	char *btr = record_threads("threads.btr"), *target, *text;
	char name[16], want[256] = "", size[64];
	const char *cmds[] = {
		"echo @@begin list\\n",
		"python print(' '.join(str(t.ptid[1]) for t in "
		"sorted(gdb.selected_inferior().threads(), key=lambda t: t.num)))",
		"echo @@end list\\n",
		"echo @@begin info\\n", "info threads", "echo @@end info\\n",
		"record btrace bts",
		size,
		"thread 1", "echo @@begin t1\\n", PY_TID,
		"record instruction-history", "echo @@end t1\\n",
		"thread 2", "echo @@begin t2\\n", PY_TID,
		"record instruction-history", "echo @@end t2\\n",
		"thread 3", "echo @@begin t3\\n", PY_TID,
		"record instruction-history", "echo @@end t3\\n",
		NULL,
	};
	struct harness_cmd dump, one, cmd;
	pid_t tids[THREADS_MAX];
	size_t n, i, nl, ng;

	snprintf(size, sizeof(size), "set record instruction-history-size %d",
		 THREAD_INSNS);
	ASSERT_EQ(harness_btrace(&dump, 60, "dump", btr, NULL), 0);
	n = dump_tids(dump.out, tids, THREADS_MAX);
	ASSERT_EQ(n, (size_t)3);
	for (i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%d",
			 i ? " " : "", (int)tids[i]);
	strcat(want, "\n");

	target = trace_target(btr, "");
	gdb_run(&cmd, "gdb-threads", target, cmds);
	text = gdb_section(&cmd, "list");
	EXPECT_STREQ(text, want);
	free(text);
	/* info threads: three, the first (main) the current one. */
	text = gdb_section(&cmd, "info");
	ng = split_lines(text, gl, THREAD_INSNS + 8);
	ASSERT_EQ(ng, (size_t)4);
	for (i = 0; i < n; i++) {
		char lwp[64];

		snprintf(lwp, sizeof(lwp), "Thread %d.%d ", (int)tids[0],
			 (int)tids[i]);
		EXPECT_TRUE(strstr(gl[1 + i], lwp) != NULL);
		EXPECT_EQ(gl[1 + i][0], i ? ' ' : '*');
	}
	free(text);

	for (i = 0; i < n; i++) {
		char tid[32];

		snprintf(tid, sizeof(tid), "%d", (int)tids[i]);
		ASSERT_EQ(harness_btrace(&one, 60, "dump", "--insns", "--thread",
					 tid, btr, NULL), 0);
		nl = split_lines(one.out, lines, INSN_LINES_MAX);
		snprintf(name, sizeof(name), "t%zu", i + 1);
		text = gdb_section(&cmd, name);
		ng = split_lines(text, gl, THREAD_INSNS + 8);
		ASSERT_GT(ng, (size_t)0);
		EXPECT_EQ(strtol(gl[0], NULL, 10), (long)tids[i]);
		expect_history(gl, ng, THREAD_INSNS, lines, nl,
			       dump_last(lines, nl));
		free(text);
		harness_cmd_free(&one);
	}
	harness_cmd_free(&cmd);
	harness_cmd_free(&dump);
	free(target);
	free(btr);
}

/*
 * --thread B --at done_b's first instruction: the stop names B, which
 * stands there; main still stands at the end of its history.
 */
TEST(gdb_trace, thread_at)
{
	static char *lines[INSN_LINES_MAX];
	char *btr = record_threads("thread_at.btr"), *target, *text, *gl[32];
	char args[96], tid[32], addr[32], to_main[160];
	const char *cmds[] = {
		"echo @@begin b\\n", PY_TID, "printf \"%#018lx\\n\", $pc",
		"echo @@end b\\n",
		"record btrace bts",
		"echo @@begin bh\\n", PY_TID, "record instruction-history",
		"echo @@end bh\\n",
		to_main,
		"echo @@begin main\\n", PY_TID, "printf \"%#018lx\\n\", $pc",
		"echo @@end main\\n",
		NULL,
	};
	struct harness_cmd dump, db, dm, cmd;
	pid_t tids[THREADS_MAX];
	unsigned long at = 0;
	size_t n, i, nl, ng;

	ASSERT_EQ(harness_btrace(&dump, 60, "dump", btr, NULL), 0);
	n = dump_tids(dump.out, tids, THREADS_MAX);
	ASSERT_EQ(n, (size_t)3);
	/* B: the thread whose history holds done_b. */
	for (i = 1; i < n && !at; i++) {
		snprintf(tid, sizeof(tid), "%d", (int)tids[i]);
		ASSERT_EQ(harness_btrace(&db, 60, "dump", "--insns", "--thread",
					 tid, btr, NULL), 0);
		nl = split_lines(db.out, lines, INSN_LINES_MAX);
		at = dump_find(lines, nl, "<done_b+0>:");
		if (!at)
			harness_cmd_free(&db);
	}
	ASSERT_GT(at, 10UL);
	snprintf(to_main, sizeof(to_main), "python [t for t in "
		 "gdb.selected_inferior().threads() if t.ptid[1] == %d][0].switch()",
		 (int)tids[0]);

	snprintf(args, sizeof(args), "--thread %s --at %lu", tid, at);
	target = trace_target(btr, args);
	gdb_run(&cmd, "gdb-threads", target, cmds);
	text = gdb_section(&cmd, "b");
	snprintf(addr, sizeof(addr), "%.18s", strstr(dump_entry(lines, nl, at), "0x"));
	ng = split_lines(text, gl, 32);
	ASSERT_EQ(ng, (size_t)2);
	EXPECT_STREQ(gl[0], tid);
	EXPECT_STREQ(gl[1], addr);
	free(text);
	text = gdb_section(&cmd, "bh");
	ng = split_lines(text, gl, 32);
	EXPECT_STREQ(gl[0], tid);
	expect_history(gl, ng, 10, lines, nl, at);
	free(text);

	snprintf(tid, sizeof(tid), "%d", (int)tids[0]);
	ASSERT_EQ(harness_btrace(&dm, 60, "dump", "--insns", "--thread", tid, btr,
				 NULL), 0);
	nl = split_lines(dm.out, lines, INSN_LINES_MAX);
	text = gdb_section(&cmd, "main");
	snprintf(addr, sizeof(addr), "%.18s",
		 strstr(dump_entry(lines, nl, dump_last(lines, nl)), "0x"));
	ng = split_lines(text, gl, 32);
	ASSERT_EQ(ng, (size_t)2);
	EXPECT_STREQ(gl[0], tid);
	EXPECT_STREQ(gl[1], addr);
	free(text);

	harness_cmd_free(&cmd);
	harness_cmd_free(&dm);
	harness_cmd_free(&db);
	harness_cmd_free(&dump);
	free(target);
	free(btr);
}

/*
 * A crash trace of crash-threads: each of its four threads has the
 * registers the crash saved of it, not only the crashed one.
 */
TEST(gdb_trace, crash_threads)
{
	char *btr = harness_path(harness_tmpdir(), "crash-threads.btr");
	char *prog = PROG_PATH("crash-threads"), *target, *text;
	const char *cmds[] = {
		"echo @@begin regs\\n", "thread apply all info registers rsp",
		"echo @@end regs\\n",
		NULL,
	};
	struct harness_cmd rec, dump, cmd;
	pid_t tids[THREADS_MAX];
	const char *p;
	size_t n, known = 0;

	ASSERT_EQ(harness_btrace(&rec, 60, "record", "--on-crash", "-o", btr, "--",
				 prog, NULL), 139);
	ASSERT_EQ(harness_btrace(&dump, 60, "dump", btr, NULL), 0);
	n = dump_tids(dump.out, tids, THREADS_MAX);
	ASSERT_EQ(n, (size_t)4);

	target = trace_target(btr, "");
	gdb_run(&cmd, "crash-threads", target, cmds);
	text = gdb_section(&cmd, "regs");
	for (p = text; (p = strstr(p, "\nrsp            0x")); p++)
		known++;
	EXPECT_EQ(known, n);
	EXPECT_TRUE(strstr(text, "<unavailable>") == NULL);
	free(text);
	harness_cmd_free(&cmd);
	harness_cmd_free(&dump);
	harness_cmd_free(&rec);
	free(target);
	free(prog);
	free(btr);
}
