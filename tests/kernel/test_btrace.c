// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace in the guest: the kmod-step source gives the same records as
 * ptrace-step for the same run, in every mode, for a static program and a
 * dynamic one; `auto` takes kmod-step; a static -m32 tracer of its own
 * records a 64-bit program through the compat ioctls.  Each comparison is
 * of `btrace dump --raw`, line for line.  Every test ends with no page
 * pinned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"

#define RUN_TIMEOUT 120

static char *tmp(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

/*
 * btrace record --source SOURCE [--mode MODE] [--buffer SIZE] -o OUT PROG:
 * the program's output (its stdout) and btrace's summary (stderr) in @c.
 */
static void record(const char *source, const char *mode, const char *buffer,
		   const char *out, const char *prog, struct harness_cmd *c)
{
	char *bt = BTRACE_PATH();
	char *argv[16];
	int n = 0;

	argv[n++] = bt;
	argv[n++] = "record";
	if (source) {
		argv[n++] = "--source";
		argv[n++] = (char *)source;
	}
	if (mode) {
		argv[n++] = "--mode";
		argv[n++] = (char *)mode;
	}
	if (buffer) {
		argv[n++] = "--buffer";
		argv[n++] = (char *)buffer;
	}
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	argv[n++] = (char *)prog;
	argv[n] = NULL;
	if (harness_run(argv, RUN_TIMEOUT, c))
		FAIL("cannot run %s", bt);
	free(bt);
}

/* `btrace dump --raw FILE`, malloc'ed. */
static char *dump_raw(const char *file)
{
	char *bt = BTRACE_PATH();
	char *argv[] = { bt, "dump", "--raw", (char *)file, NULL };
	struct harness_cmd c;
	char *out;

	if (harness_run(argv, RUN_TIMEOUT, &c))
		FAIL("cannot run %s", bt);
	if (harness_exit_code(&c) != 0)
		FAIL("btrace dump --raw %s: exit %d: %s", file,
		     harness_exit_code(&c), c.err);
	out = c.out;
	c.out = NULL;
	harness_cmd_free(&c);
	free(bt);
	return out;
}

/* Fails at the first line where @got and @want differ. */
static void same_lines(const char *what, const char *got, const char *want)
{
	size_t line = 1;

	while (*got || *want) {
		size_t a = strcspn(got, "\n"), b = strcspn(want, "\n");

		if (a != b || memcmp(got, want, a))
			FAIL("%s: line %zu: '%.*s' where ptrace-step has '%.*s'",
			     what, line, (int)a, got, (int)b, want);
		got += a + !!got[a];
		want += b + !!want[b];
		line++;
	}
}

static size_t count_lines(const char *s, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (; *s; s = strchrnul(s, '\n') + !!*strchrnul(s, '\n'))
		if (!strncmp(s, prefix, len))
			n++;
	return n;
}

/* The summary line names the source in parentheses. */
static void expect_source(const struct harness_cmd *c, const char *source)
{
	char want[64];

	snprintf(want, sizeof(want), "(%s)", source);
	if (!strstr(c->err, want))
		FAIL("btrace did not record with %s: %s", source, c->err);
}

/*
 * PROG recorded by SOURCE: its raw dump after the "# thread TID" line (the
 * tids differ from run to run), malloc'ed.  The program's stdout must be
 * @want_out, or when that is NULL, is returned in *@out.
 */
static char *recorded(const char *source, const char *mode, const char *buffer,
		      const char *prog, const char *want_out, char **out)
{
	char *p = PROG_PATH(prog), *file = tmp("rec.btr"), *raw, *body;
	struct harness_cmd c;

	record(source, mode, buffer, file, p, &c);
	if (harness_exit_code(&c))
		FAIL("btrace record --source %s %s: exit %d: %s", source, prog,
		     harness_exit_code(&c), c.err);
	expect_source(&c, source);
	if (want_out)
		EXPECT_STREQ(c.out, want_out);
	if (out) {
		*out = c.out;
		c.out = NULL;
	}
	raw = dump_raw(file);
	body = strdup(strchrnul(raw, '\n'));
	ASSERT_TRUE(body != NULL);
	free(raw);
	unlink(file);
	harness_cmd_free(&c);
	free(p);
	free(file);
	return body;
}

#define ORACLE_OUT "static-oracle ok\n"

/* static-oracle by ptrace-step with the defaults, recorded once. */
static const char *oracle_ptrace(void)
{
	static char *raw;

	if (!raw)
		raw = recorded("ptrace-step", NULL, NULL, "static-oracle",
			       ORACLE_OUT, NULL);
	return raw;
}

/*
 * PROG recorded by kmod-step must give @want (ptrace-step's records, by
 * default NULL: recorded now with the same options), and the same output.
 * Returns the number of record lines.
 */
static size_t compare_sources(const char *prog, const char *mode,
			      const char *buffer, const char *want)
{
	char *ra = NULL, *rb, *oa = NULL, *ob = NULL;
	size_t n;

	if (!want)
		want = ra = recorded("ptrace-step", mode, buffer, prog, NULL, &oa);
	rb = recorded("kmod-step", mode, buffer, prog, NULL, &ob);
	EXPECT_EQ(kt_pinned(), 0);
	if (oa)
		EXPECT_STREQ(ob, oa);
	else
		EXPECT_STREQ(ob, ORACLE_OUT);
	n = count_lines(want, "0x");
	same_lines(prog, rb, want);
	free(ra);
	free(rb);
	free(oa);
	free(ob);
	return n;
}

TEST(btrace, static_program_same_records)
{
	/* tests/oracle counts more than 3000 branches in it */
	EXPECT_GT(compare_sources("static-oracle", NULL, NULL, oracle_ptrace()),
		  (size_t)3000);
}

/* BLOCK with a one-page buffer: a wakeup every 85 records, nothing lost. */
TEST(btrace, block_one_page_loses_nothing)
{
	EXPECT_GT(compare_sources("static-oracle", "block", "4K", oracle_ptrace()),
		  (size_t)3000);
}

/* RING with one page: the newest 170 records after the same LOST count. */
TEST(btrace, ring_one_page_keeps_the_same_newest)
{
	EXPECT_EQ(compare_sources("static-oracle", "ring", "4K", NULL),
		  (size_t)170);
}

/*
 * A dynamic program: ld.so, libc, the maps that appear as it runs.  Both
 * runs must load everything at the same addresses.
 */
TEST(btrace, dynamic_program_same_records)
{
	int old = personality(0xffffffff);

	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	EXPECT_GT(compare_sources("seq-flow", NULL, NULL, NULL), (size_t)1000);
	personality((unsigned long)old);
}

TEST(btrace, auto_takes_kmod_step)
{
	char *p = PROG_PATH("static-oracle"), *a = tmp("auto.btr");
	struct harness_cmd c;

	record(NULL, NULL, NULL, a, p, &c);
	EXPECT_EQ(harness_exit_code(&c), 0);
	expect_source(&c, "kmod-step");
	EXPECT_EQ(kt_pinned(), 0);
	harness_cmd_free(&c);
	free(p);
	free(a);
}

/*
 * tracer32 (tests/kernel/m32/) records static-oracle through the compat
 * ioctls and prints the records as `dump --raw` does: the same lines as
 * ptrace-step's, after the thread line.
 */
TEST(btrace, m32_tracer_records_a_64bit_program)
{
	const char *want = oracle_ptrace();
	char *p = PROG_PATH("static-oracle");
	char *argv[] = { "/tracer32", p, NULL };
	struct harness_cmd t;

	ASSERT_EQ(harness_run(argv, RUN_TIMEOUT, &t), 0);
	if (harness_exit_code(&t))
		FAIL("tracer32: exit %d: %s", harness_exit_code(&t), t.err);
	EXPECT_GT(count_lines(t.out, "0x"), (size_t)3000);
	same_lines("tracer32", t.out, want + (*want == '\n'));
	EXPECT_EQ(kt_pinned(), 0);
	harness_cmd_free(&t);
	free(p);
}
