// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace dump's views on real traces: the function-call history of
 * seq-calls (main -> f -> g, a recursion, a tail call) and of seq-flow
 * (signals), segment for segment with exact instruction counts; the same
 * count from gdb's `record full`; the text layouts; ranges, threads and
 * bad options; a closed pipe; btrace stats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

#define TIMEOUT 120

/* Runs btrace with @args (NULL-ended) and asserts exit code @want. */
static void btrace(const char *const args[], int want, struct harness_cmd *cmd)
{
	int code = harness_btrace_argv(cmd, TIMEOUT, args);

	if (code != want)
		FAIL("btrace %s %s exited with %d, expected %d; stderr:\n%s",
		     args[0], args[1], code, want, cmd->err);
}

/* A JSON line's field @key as text (strings without quotes), or NULL. */
static const char *field(const char *line, const char *key, char *buf,
			 size_t len)
{
	char pat[64];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	if (*p == '"')
		end = strchr(++p, '"');
	else
		end = p + strcspn(p, ",}");
	if (!end || (size_t)(end - p) >= len)
		return NULL;
	memcpy(buf, p, end - p);
	buf[end - p] = 0;
	return buf;
}

static uint64_t num(const char *line, const char *key)
{
	char buf[64];

	if (!field(line, key, buf, sizeof(buf)))
		FAIL("no field %s in: %s", key, line);
	return strtoull(buf, NULL, 0);
}

struct seg_want {
	const char *func;
	int dlevel;		/* level relative to the first */
	const char *entry;
	uint64_t insns;		/* 0: not checked */
};

/* The first segment in @func entered by a call. */
static size_t find_call(char **lines, size_t n, const char *func)
{
	char want[128], buf[128];

	snprintf(want, sizeof(want), "%s", func);
	for (size_t i = 0; i < n; i++)
		if (field(lines[i], "func", buf, sizeof(buf)) &&
		    !strcmp(buf, want) &&
		    field(lines[i], "entry", buf, sizeof(buf)) &&
		    !strcmp(buf, "call"))
			return i;
	FAIL("no call of %s in the history", func);
}

static void expect_segments(char **lines, size_t n, size_t at,
			    const struct seg_want *want, size_t nwant)
{
	int level0 = num(lines[at], "level");
	char buf[128];

	ASSERT_LE(at + nwant, n);
	for (size_t i = 0; i < nwant; i++) {
		const char *l = lines[at + i];
		const struct seg_want *w = &want[i];

		if (!field(l, "func", buf, sizeof(buf)) || strcmp(buf, w->func))
			FAIL("segment %zu: %s, expected %s", i, l, w->func);
		EXPECT_STREQ(field(l, "entry", buf, sizeof(buf)), w->entry);
		EXPECT_EQ((int)num(l, "level") - level0, w->dlevel);
		EXPECT_EQ(num(l, "n"), num(lines[at], "n") + i);
		if (w->insns)
			EXPECT_EQ(num(l, "last") - num(l, "first") + 1, w->insns);
		if (i)
			EXPECT_EQ(num(l, "first"), num(lines[at + i - 1], "last") + 1);
	}
}

static const struct seg_want calls_want[] = {
	{ "calls_run", 0, "call", 2 },
	{ "calls_f", 1, "call", 1 },
	{ "calls_g", 2, "call", 2 },
	{ "calls_f", 1, "return", 1 },
	{ "calls_run", 0, "return", 2 },
	{ "calls_rec", 1, "call", 4 },
	{ "calls_rec", 2, "call", 4 },
	{ "calls_rec", 3, "call", 4 },
	{ "calls_rec", 4, "call", 3 },
	{ "calls_rec", 3, "return", 1 },
	{ "calls_rec", 2, "return", 1 },
	{ "calls_rec", 1, "return", 1 },
	{ "calls_run", 0, "return", 1 },
	{ "calls_tail", 1, "call", 2 },
	{ "calls_leaf", 2, "tailcall", 2 },
	{ "calls_run", 0, "return", 2 },
	{ "main", -1, "return", 0 },
};
#define NCALLS (sizeof(calls_want) / sizeof(calls_want[0]))

struct traced {
	char *btr;
	struct harness_cmd rec, dump;
	char **lines;
	size_t n, at;
};

static void trace_calls(struct traced *t, const char *prog, const char *func)
{
	const char *args[] = { "dump", "--calls", "--json", "--line-range",
			       NULL, NULL };

	t->btr = raw_record(prog, NULL, 0, &t->rec);
	args[4] = t->btr;
	btrace(args, 0, &t->dump);
	t->lines = raw_lines(t->dump.out, &t->n);
	t->at = find_call(t->lines, t->n, func);
}

static void traced_free(struct traced *t)
{
	free(t->lines);
	harness_cmd_free(&t->dump);
	harness_cmd_free(&t->rec);
	free(t->btr);
}

/*
 * The segments of calls_run, exactly; and gdb's `record full` counts its
 * instructions as we do.
 */
TEST(dump_views, calls_exact_and_gdb_count)
{
	const char *argv[] = {
		"/usr/bin/gdb", "-nx", "-batch", "-ex", "break calls_run",
		"-ex", "run", "-ex", "record full", "-ex", "finish",
		"-ex", "info record", NULL, NULL,
	};
	struct harness_cmd gdb;
	struct traced t;
	char buf[4096];
	uint64_t ours;
	const char *p;

	trace_calls(&t, "seq-calls", "calls_run");
	expect_segments(t.lines, t.n, t.at, calls_want, NCALLS);
	/* calls_g's nop and ret, on lines 43 and 44 of seq-calls-asm.S */
	ASSERT_TRUE(field(t.lines[t.at + 2], "file", buf, sizeof(buf)) != NULL);
	EXPECT_STREQ(strrchr(buf, '/'), "/seq-calls-asm.S");
	EXPECT_EQ(num(t.lines[t.at + 2], "line_min"), (uint64_t)43);
	EXPECT_EQ(num(t.lines[t.at + 2], "line_max"), (uint64_t)44);
	ours = num(t.lines[t.at + NCALLS - 2], "last") - num(t.lines[t.at], "first") + 1;
	EXPECT_EQ(ours, (uint64_t)33);
	argv[13] = PROG_PATH("seq-calls");
	ASSERT_EQ(harness_run((char *const *)argv, TIMEOUT, &gdb), 0);
	p = strstr(gdb.out, "Log contains ");
	if (!p)
		FAIL("gdb said:\n%s\n%s", gdb.out, gdb.err);
	EXPECT_EQ(strtoull(p + strlen("Log contains "), NULL, 10), ours);
	free((char *)argv[13]);
	harness_cmd_free(&gdb);
	traced_free(&t);
}

static const struct seg_want flow_want[] = {
	{ "seq_run", 0, "call", 6 },
	{ "seq_switch", 1, "call", 7 },		/* case 0 */
	{ "seq_run", 0, "return", 5 },
	{ "seq_switch", 1, "call", 7 },		/* case 1 */
	{ "seq_run", 0, "return", 5 },
	{ "seq_switch", 1, "call", 6 },		/* case 2 falls through */
	{ "seq_run", 0, "return", 9 },
	{ "seq_leaf", 1, "call", 2 },
	{ "seq_run", 0, "return", 1 },
	{ "seq_tail_caller", 1, "call", 2 },
	{ "seq_tail_callee", 2, "tailcall", 2 },
	{ "seq_run", 0, "return", 14 },		/* reps, syscalls */
	{ "seq_usr1_handler", 1, "signal", 2 },
	{ "__restore_rt", 1, "return", 2 },
	{ "seq_run", 0, "sigreturn", 1 },	/* nop; the ud2 did not run */
	{ "seq_ill_handler", 1, "signal", 2 },
	{ "__restore_rt", 1, "return", 2 },
	{ "seq_run", 0, "sigreturn", 4 },
	{ "main", -1, "return", 0 },
};

/*
 * The segments of seq_run, exactly, signals included; its instructions:
 * the interrupted ones did not run.
 */
TEST(dump_views, signals)
{
	const char *args[] = { "dump", "--insns", "--json", "--from", NULL,
			       "--to", NULL, NULL, NULL };
	struct raw_labels labels;
	struct harness_cmd dump;
	char from[32], to[32], ip[32], buf[128];
	uint64_t ud2, handler, kill_sc;
	size_t n, seen_handler = 0;
	struct traced t;
	char **lines;

	trace_calls(&t, "seq-flow", "seq_run");
	expect_segments(t.lines, t.n, t.at, flow_want,
			sizeof(flow_want) / sizeof(flow_want[0]));
	raw_labels_parse(t.rec.out, &labels);
	snprintf(from, sizeof(from), "%" PRIu64, num(t.lines[t.at], "first"));
	snprintf(to, sizeof(to), "%" PRIu64, num(t.lines[t.at + 17], "last"));
	args[4] = from;
	args[6] = to;
	args[7] = t.btr;
	btrace(args, 0, &dump);
	lines = raw_lines(dump.out, &n);
	EXPECT_EQ((uint64_t)n, strtoull(to, NULL, 10) - strtoull(from, NULL, 10) + 1);
	ud2 = raw_label(&labels, "seq_ud2");
	handler = raw_label(&labels, "seq_usr1_handler");
	kill_sc = raw_label(&labels, "seq_kill_syscall");
	for (size_t i = 0; i < n; i++) {
		uint64_t a = num(lines[i], "ip");

		snprintf(ip, sizeof(ip), "%" PRIu64, a);
		if (a == ud2)
			FAIL("the ud2 ran: %s", lines[i]);
		if (a != handler)
			continue;
		seen_handler++;
		EXPECT_STREQ(field(lines[i], "flags", buf, sizeof(buf)), "[\"signal\"]");
		ASSERT_GT(i, (size_t)0);
		EXPECT_EQ(num(lines[i - 1], "ip"), kill_sc);
		EXPECT_STREQ(field(lines[i - 1], "class", buf, sizeof(buf)), "syscall");
	}
	EXPECT_EQ(seen_handler, (size_t)1);
	free(lines);
	harness_cmd_free(&dump);
	raw_labels_free(&labels);
	traced_free(&t);
}

/* gdb's layouts: /ilc for calls, the address and <func+off> for insns. */
TEST(dump_views, text_layouts)
{
	const char *calls[] = { "dump", "--calls", "--indent", "--insn-range",
				"--from", NULL, "--to", NULL, NULL, NULL };
	const char *insns[] = { "dump", "--insns", "--raw-bytes", "--from", NULL,
				"--to", NULL, NULL, NULL };
	struct harness_cmd c, i;
	struct raw_labels labels;
	char a[32], b[32], want[512];
	uint64_t n0, first;
	int level;
	struct traced t;

	trace_calls(&t, "seq-calls", "calls_run");
	raw_labels_parse(t.rec.out, &labels);
	n0 = num(t.lines[t.at], "n");
	first = num(t.lines[t.at], "first");
	level = num(t.lines[t.at], "level");
	snprintf(a, sizeof(a), "%" PRIu64, n0);
	snprintf(b, sizeof(b), "%" PRIu64, n0 + 2);
	calls[5] = a;
	calls[7] = b;
	calls[8] = t.btr;
	btrace(calls, 0, &c);
	snprintf(want, sizeof(want),
		 "thread %d (process %d)\n"
		 "%" PRIu64 "\t%*scalls_run\tinst %" PRIu64 ",%" PRIu64 "\n"
		 "%" PRIu64 "\t%*scalls_f\tinst %" PRIu64 ",%" PRIu64 "\n"
		 "%" PRIu64 "\t%*scalls_g\tinst %" PRIu64 ",%" PRIu64 "\n",
		 (int)num(t.lines[0], "tid"), (int)num(t.lines[0], "tid"),
		 n0, 2 * level, "", first, first + 1,
		 n0 + 1, 2 * level + 2, "", first + 2, first + 2,
		 n0 + 2, 2 * level + 4, "", first + 3, first + 4);
	EXPECT_STREQ(c.out, want);

	snprintf(a, sizeof(a), "%" PRIu64, first);
	snprintf(b, sizeof(b), "%" PRIu64, first + 1);
	insns[4] = a;
	insns[6] = b;
	insns[7] = t.btr;
	btrace(insns, 0, &i);
	snprintf(want, sizeof(want),
		 "thread %d (process %d)\n"
		 "%" PRIu64 "\t   0x%016" PRIx64 " <calls_run+0>:\t53" "                 \tpush   %%rbx\n"
		 "%" PRIu64 "\t   0x%016" PRIx64 " <calls_run+1>:\te8 ",
		 (int)num(t.lines[0], "tid"), (int)num(t.lines[0], "tid"),
		 first, raw_label(&labels, "calls_run"),
		 first + 1, raw_label(&labels, "calls_run") + 1);
	EXPECT_TRUE(!strncmp(i.out, want, strlen(want)));
	if (strncmp(i.out, want, strlen(want)))
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", i.out, want);
	harness_cmd_free(&c);
	harness_cmd_free(&i);
	raw_labels_free(&labels);
	traced_free(&t);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

TEST(dump_views, ranges_and_threads)
{
	static const char *const views[] = { "--branches", "--insns", "--calls" };
	struct harness_cmd cmd, rec;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);

	for (size_t v = 0; v < 3; v++) {
		const char *last[] = { "dump", views[v], "--last", "3", btr, NULL };
		const char *json[] = { "dump", views[v], "--json", "--from", "2",
				       "--to", "5", btr, NULL };

		btrace(last, 0, &cmd);
		/* The thread line, three entries (and the branch view's notes). */
		EXPECT_EQ(count_lines(cmd.out), (size_t)(v ? 4 : 4 + 3 + 1));
		harness_cmd_free(&cmd);
		btrace(json, 0, &cmd);
		EXPECT_EQ(count_lines(cmd.out), (size_t)4);
		EXPECT_TRUE(strstr(cmd.out, "\"n\":2,") != NULL);
		EXPECT_TRUE(strstr(cmd.out, "\"n\":5,") != NULL);
		harness_cmd_free(&cmd);
	}
	{
		const char *bad_tid[] = { "dump", "--thread", "999999999", btr, NULL };

		btrace(bad_tid, 1, &cmd);
		EXPECT_STREQ(cmd.out, "");
		EXPECT_TRUE(strstr(cmd.err, "no thread 999999999") != NULL);
		harness_cmd_free(&cmd);
	}
	harness_cmd_free(&rec);
	free(btr);
}

TEST(dump_views, bad_options)
{
	static const char *const bad[][6] = {
		{ "dump", "--insns", "--calls", "x.btr" },
		{ "dump", "--raw", "--json", "x.btr" },
		{ "dump", "--raw", "--last", "2", "x.btr" },
		{ "dump", "--calls", "--raw-bytes", "x.btr" },
		{ "dump", "--insns", "--indent", "x.btr" },
		{ "dump", "--last", "2", "--from", "1", "x.btr" },
		{ "dump", "--from", "5", "--to", "4", "x.btr" },
		{ "dump", "--last", "0", "x.btr" },
		{ "dump", "--last", "-1", "x.btr" },
		{ "dump", "--thread", "abc", "x.btr" },
	};
	struct harness_cmd cmd;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		btrace(bad[i], 2, &cmd);
		EXPECT_STREQ(cmd.out, "");
		EXPECT_EQ(count_lines(cmd.err), (size_t)1);
		harness_cmd_free(&cmd);
	}
}

/* Like `git log | head`: no complaint, the shell's 141 (SIGPIPE). */
TEST(dump_views, closed_pipe_is_quiet)
{
	struct harness_cmd rec, cmd;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);
	char *bt = BTRACE_PATH();
	const char *argv[] = {
		"/bin/bash", "-c",
		"\"$0\" dump --insns \"$1\" 2>\"$1.err\" | head -n 1 >/dev/null; "
		"echo \"status ${PIPESTATUS[0]}\"; grep -c write \"$1.err\"",
		bt, btr, NULL,
	};

	ASSERT_EQ(harness_run((char *const *)argv, TIMEOUT, &cmd), 0);
	EXPECT_STREQ(cmd.out, "status 141\n0\n");
	harness_cmd_free(&cmd);
	harness_cmd_free(&rec);
	free(bt);
	free(btr);
}

TEST(dump_views, stats)
{
	struct harness_cmd rec, cmd, last, calls;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);
	const char *stats[] = { "stats", btr, NULL };
	const char *segs[] = { "dump", "--calls", "--json", "--last", "1", btr, NULL };
	const char *insns[] = { "dump", "--insns", "--json", "--last", "1", btr, NULL };
	struct raw_summary sum;
	char want[128];

	raw_summary_parse(rec.err, &sum);
	btrace(stats, 0, &cmd);
	btrace(insns, 0, &last);
	btrace(segs, 0, &calls);
	snprintf(want, sizeof(want), "    records       %" PRIu64 " (0 markers)\n",
		 sum.records);
	EXPECT_TRUE(strstr(cmd.out, want) != NULL);
	snprintf(want, sizeof(want), "    instructions  %" PRIu64 "\n",
		 num(last.out, "n"));
	EXPECT_TRUE(strstr(cmd.out, want) != NULL);
	EXPECT_TRUE(strstr(cmd.out, "    gaps          0\n") != NULL);
	snprintf(want, sizeof(want), "    segments      %" PRIu64 "\n",
		 num(calls.out, "n"));
	EXPECT_TRUE(strstr(cmd.out, want) != NULL);
	EXPECT_TRUE(strstr(cmd.out, "    most called:\n") != NULL);
	EXPECT_TRUE(strstr(cmd.out, "    hottest (instructions):\n") != NULL);
	harness_cmd_free(&cmd);
	harness_cmd_free(&calls);
	harness_cmd_free(&last);
	harness_cmd_free(&rec);
	free(btr);
}
