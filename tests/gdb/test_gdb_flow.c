// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb 13 against `btrace gdbserver` over C programs: reverse-next and
 * reverse-finish land on the right source lines (tests/progs/gdb-calls.c),
 * and every thread of tests/progs/gdb-threads.c has a history of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"

#define PY_LINE								\
	"python f = gdb.selected_frame(); "				\
	"print('@@line', f.name(), f.find_sal().line)"

/* The @@-prefixed lines of @text, each without its prefix, joined by '|'. */
static char *tagged(char *text, const char *tag)
{
	size_t n = strlen(tag), len = 0;
	char *out = calloc(1, strlen(text) + 1), *p;

	if (!out)
		FAIL("out of memory");
	for (p = strtok(text, "\n"); p; p = strtok(NULL, "\n")) {
		if (strncmp(p, tag, n))
			continue;
		if (len)
			out[len++] = '|';
		strcpy(out + len, p + n);
		len += strlen(p + n);
	}
	return out;
}

TEST(gdb_flow, reverse_next_finish)
{
	static const char *const cmds[] = {
		"break main", "continue", "record btrace bts",
		"break 26", "continue",
		"echo @@begin lines\\n",
		PY_LINE,
		"reverse-next", PY_LINE,
		"record goto end",
		/* Into the second instruction of the last visit of leaf. */
		"python h = gdb.current_recording().function_call_history; "
		"s = [f for f in h if f.symbol and f.symbol.name == 'leaf'][-1]; "
		"gdb.execute('record goto %d' % s.instructions[1].number)",
		PY_LINE,
		"reverse-finish", PY_LINE,
		"echo @@end lines\\n",
		"echo @@begin calls\\n", "record function-call-history /c 1,7",
		"echo @@end calls\\n",
		"record stop", "delete", "continue",
		NULL,
	};
	struct harness_cmd cmd;
	char *lines, *got, *calls;

	gdb_run(&cmd, "gdb-calls", NULL, cmds);
	lines = gdb_section(&cmd, "lines");
	got = tagged(lines, "@@line ");
	EXPECT_STREQ(got, "main 26|main 24|leaf 11|middle 17");
	calls = gdb_section(&cmd, "calls");
	EXPECT_STREQ(calls, "1\tmain\n2\t  middle\n3\t    leaf\n4\t  middle\n"
			    "5\t    leaf\n6\t  middle\n7\tmain\n");
	gdb_expect_exit(&cmd, "exited with code 022");
	free(lines);
	free(got);
	free(calls);
	harness_cmd_free(&cmd);
}

TEST(gdb_flow, threads_own_history)
{
	static const char *const cmds[] = {
		"break ready", "continue", "record btrace bts",
		"break done_a", "break done_b", "continue", "continue",
		"echo @@begin threads\\n",
		/* Per thread: the leaf functions of its history, and visits. */
		"python out = []\n"
		"for t in gdb.selected_inferior().threads():\n"
		"  t.switch()\n"
		"  h = gdb.current_recording().function_call_history\n"
		"  names = [f.symbol.name for f in h if f.symbol and f.symbol.name.startswith('leaf')]\n"
		"  out.append('%s %d' % (','.join(sorted(set(names))), len(names)))\n"
		"print('@@th ' + '|'.join(sorted(out)))",
		"echo @@end threads\\n",
		"record stop", "delete", "continue",
		NULL,
	};
	struct harness_cmd cmd;
	char *threads;

	gdb_run(&cmd, "gdb-threads", NULL, cmds);
	threads = gdb_section(&cmd, "threads");
	EXPECT_STREQ(threads, "@@th  0|leaf_a 3|leaf_b 5\n");
	gdb_expect_exit(&cmd, "exited normally");
	free(threads);
	harness_cmd_free(&cmd);
}
