// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Independent producers of branch records agree, record for record, in
 * the same guest on the virtual CPU with BTS: the CPU itself (kmod-bts),
 * the module single-stepping the thread (kmod-step) and a user-space
 * single-stepper (ptrace-step), each through `btrace record --source`,
 * on a static program without libc (static-oracle), a dynamic libc
 * program with a signal, threads, a forked child and an exec
 * (agree-libc), and a static i386 program (i386-sys).  Every thread's
 * records are compared from `btrace dump --branches --json` (kind, from,
 * to; the threads numbered in the order they appear: tids differ).
 *
 * The differences the sources are documented to have, and nothing else,
 * are set aside:
 *  - signal and sigreturn records are the software sources' only
 *    (DESIGN.md, "What a record means"): the CPU records the kernel entry
 *    that led to the delivery and to sigreturn, which libbts drops with
 *    every record that touches a kernel address, so that kmod-bts's trace
 *    is kmod-step's without them;
 *  - the exec marker is the module's for kmod-step, libbts's for kmod-bts
 *    and ptrace-step: the same record.
 */
#include <ctype.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "kt.h"
#include "kt_guard.h"

#define RUN_TIMEOUT	240
#define ASYNC		true
#define ANY		((size_t)-1)

/*
 * The value of "@key" in the JSON line at @line (not past its end), up to
 * the next ',' or '}'.
 */
static bool json_field(const char *line, const char *key, char *val,
		       size_t size)
{
	char pat[32];
	const char *at;
	size_t n;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = memmem(line, strcspn(line, "\n"), pat, strlen(pat));
	if (!at)
		return false;
	at += strlen(pat);
	if (*at == '"')
		at++;
	n = strcspn(at, "\",}\n");
	if (n >= size)
		return false;
	memcpy(val, at, n);
	val[n] = 0;
	return true;
}

/*
 * `btrace dump --branches --json` of @file as "kind from to" or "kind
 * value" lines, with "thread K" before each thread's (K: the order of
 * appearance); signal and sigreturn records left out unless @async.
 * Counts those left out into *@nasync.  malloc'ed.
 */
static char *normalized(const char *file, bool async, size_t *nasync)
{
	struct harness_cmd c;
	char tids[16][16], tid[16], kind[16], a[32], b[32], *out, *o;
	const char *line;
	int ntids = 0, cur = -1, k;

	*nasync = 0;
	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "dump", "--branches", "--json",
				 file, NULL), 0);
	out = o = malloc(c.out_len * 2 + 1);
	ASSERT_TRUE(out != NULL);
	*o = 0;
	for (line = c.out; *line; line = strchrnul(line, '\n') + !!*strchrnul(line, '\n')) {
		if (!json_field(line, "tid", tid, sizeof(tid)) ||
		    !json_field(line, "kind", kind, sizeof(kind)))
			continue;
		for (k = 0; k < ntids && strcmp(tids[k], tid); k++)
			;
		if (k == ntids && ntids < 16)
			strcpy(tids[ntids++], tid);
		if (k != cur)
			o += sprintf(o, "thread %d\n", k);
		cur = k;
		if (!strcmp(kind, "signal") || !strcmp(kind, "sigreturn")) {
			(*nasync)++;
			if (!async)
				continue;
		}
		if (json_field(line, "from", a, sizeof(a)) &&
		    json_field(line, "to", b, sizeof(b)))
			o += sprintf(o, "%s %s %s\n", kind, a, b);
		else if (json_field(line, "value", a, sizeof(a)))
			o += sprintf(o, "%s %s\n", kind, a);
	}
	harness_cmd_free(&c);
	return out;
}

/*
 * PROG (with @arg) recorded by @source into @file, children followed, in
 * RING mode with buffers that hold the whole run, nothing lost.  The
 * program's stdout must be @want_out (unless NULL) and its exit 0.
 */
static void record(const char *source, const char *prog, const char *arg,
		   const char *want_out, const char *file)
{
	char *p = PROG_PATH(prog), summary[64];
	struct harness_cmd c;
	int code;

	code = harness_btrace(&c, RUN_TIMEOUT, "record", "--source", source,
			      "--mode", "ring", "--buffer", "8M", "-o", file,
			      "--", p, arg, NULL);
	if (code)
		FAIL("btrace record --source %s %s: exit %d: %s", source, prog,
		     code, c.err);
	snprintf(summary, sizeof(summary), " 0 lost (%s)", source);
	if (!strstr(c.err, summary))
		FAIL("btrace record --source %s %s: %s", source, prog, c.err);
	if (want_out)
		EXPECT_STREQ(c.out, want_out);
	harness_cmd_free(&c);
	free(p);
}

/* Fails at the first line where @got (by @source) and @want (by @ref) differ. */
static void same_lines(const char *source, const char *got, const char *ref,
		       const char *want)
{
	if (kt_first_other_line(source, got, ref, want))
		FAIL("%s: not %s's records (the line above)", source, ref);
}

/*
 * The three sources on PROG: kmod-step and ptrace-step the same records,
 * kmod-bts the same but the asynchronous ones (none of its own).  At
 * least @min branch records, @threads threads, @signals signal and
 * sigreturn records in the software sources' traces.
 */
static void agree(const char *prog, const char *arg, const char *want_out,
		  size_t min, size_t threads, size_t signals)
{
	char *fp = harness_path(harness_tmpdir(), "ptrace-step.btr");
	char *fs = harness_path(harness_tmpdir(), "kmod-step.btr");
	char *fb = harness_path(harness_tmpdir(), "kmod-bts.btr");
	int old = personality(0xffffffff);
	char *ptrace_all, *step_all, *step, *bts;
	long vmpin = kt_vmpin_kb();
	size_t na, ns, nb;

	/* Every run loads everything at the same addresses. */
	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	record("ptrace-step", prog, arg, want_out, fp);
	record("kmod-step", prog, arg, want_out, fs);
	record("kmod-bts", prog, arg, want_out, fb);
	personality((unsigned long)old);
	ptrace_all = normalized(fp, ASYNC, &na);
	step_all = normalized(fs, ASYNC, &ns);
	step = normalized(fs, !ASYNC, &ns);
	bts = normalized(fb, !ASYNC, &nb);
	fprintf(stderr, "%s: %zu branch records, %zu threads, %zu asynchronous\n",
		prog, kt_count_lines(ptrace_all, "branch "),
		kt_count_lines(ptrace_all, "thread "), na);
	EXPECT_GE(kt_count_lines(ptrace_all, "branch "), min);
	EXPECT_EQ(kt_count_lines(ptrace_all, "thread "), threads);
	if (signals != ANY)
		EXPECT_EQ(na, signals);
	same_lines("kmod-step", step_all, "ptrace-step", ptrace_all);
	EXPECT_EQ(ns, na);
	/* The CPU has no asynchronous record. */
	EXPECT_EQ(nb, 0u);
	same_lines("kmod-bts", bts, "kmod-step", step);
	free(ptrace_all);
	free(step_all);
	free(step);
	free(bts);
	unlink(fp);
	unlink(fs);
	unlink(fb);
	free(fp);
	free(fs);
	free(fb);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_vmpin_kb(), vmpin);
	EXPECT_EQ(kt_klog_bad(), 0);
}

KT_GUARDED_TEST(vcpu, agree_static_no_libc)
{
	agree("static-oracle", NULL, "static-oracle ok\n", 3000, 1, 0);
}

/* Two threads, a forked child, the exec'd image: four threads in all. */
KT_GUARDED_TEST(vcpu, agree_dynamic_libc_signal_threads_fork_exec)
{
	agree("agree-libc", NULL, "agree-libc ok\nagree-libc again\n", 10000,
	      4, 2);
}

KT_GUARDED_TEST(vcpu, agree_i386)
{
	agree("i386-sys", NULL, NULL, 20, 1, ANY);
}

/* @s with every whole-word @word (not within a number) as "PID", in place. */
static void unpid(char *s, const char *word)
{
	size_t n = strlen(word);
	char *at = s;

	while ((at = strstr(at, word))) {
		bool inside = (at > s && isalnum((unsigned char)at[-1])) ||
			      isalnum((unsigned char)at[n]);

		if (inside) {
			at += n;
			continue;
		}
		memmove(at + 3, at + n, strlen(at + n) + 1);
		memcpy(at, "PID", 3);
		at += 3;
	}
}

/*
 * btrace record --on-crash --source SOURCE crash-deep, then btrace report
 * of its crash trace, with the crashed pid as "PID".  malloc'ed.
 */
static char *crash_report(const char *source)
{
	char *file = harness_path(harness_tmpdir(), "crash.btr");
	char *p = PROG_PATH("crash-deep"), pid[16], *out;
	struct harness_cmd c;
	const char *at;

	unlink(file);
	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "record", "--on-crash",
				 "--source", source, "-o", file, "--", p, NULL),
		  128 + SIGSEGV);
	at = strstr(c.err, "btrace: process ");
	ASSERT_TRUE(at != NULL);
	at += strlen("btrace: process ");
	snprintf(pid, sizeof(pid), "%.*s", (int)strspn(at, "0123456789"), at);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "report", file, NULL), 0);
	out = c.out;
	c.out = NULL;
	harness_cmd_free(&c);
	unpid(out, pid);
	unlink(file);
	free(file);
	free(p);
	return out;
}

/* The crash report of kmod-bts is kmod-step's, line for line. */
KT_GUARDED_TEST(vcpu, on_crash_kmod_bts_report_as_kmod_step)
{
	int old = personality(0xffffffff);
	char *step, *bts;

	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	step = crash_report("kmod-step");
	bts = crash_report("kmod-bts");
	personality((unsigned long)old);
	EXPECT_TRUE(strstr(step, "Thread PID crashed here:") != NULL);
	EXPECT_TRUE(strstr(step, "in level3 ()") != NULL);
	same_lines("kmod-bts", bts, "kmod-step", step);
	free(step);
	free(bts);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_klog_bad(), 0);
}
