// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace in the guest: the kmod-step source gives the same records as
 * ptrace-step for the same run (compared as `btrace dump --raw`, line for
 * line) for a static program in each mode and for a dynamic one with
 * signals; every thread of a threaded program is recorded; `auto` takes
 * kmod-step; RLIMIT_MEMLOCK shrinks BLOCK-mode buffers but fails RING
 * with one clear line; -p attaches, and a detach leaves the program
 * running; a static -m32 tracer of its own records a 64-bit program
 * through the compat ioctls.  Every test ends with no page pinned.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"

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
	/* The sources are compared: only ptrace-step would follow children. */
	argv[n++] = "--no-follow";
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

/* Fails at the first line where @got and @want (ptrace-step's) differ. */
static void same_lines(const char *what, const char *got, const char *want)
{
	if (kt_first_other_line(what, got, "ptrace-step", want))
		FAIL("%s: not ptrace-step's records (the line above)", what);
}

/* The summary line names the source in parentheses. */
static void expect_source(const struct harness_cmd *c, const char *source)
{
	char want[64];

	snprintf(want, sizeof(want), "(%s)", source);
	if (!strstr(c->err, want))
		FAIL("btrace did not record with %s: %s", source, c->err);
}

/* The exit code the programs recorded next must end with. */
static int want_exit;

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
	if (harness_exit_code(&c) != want_exit)
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
	n = kt_count_lines(want, "0x");
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

/* What `btrace info` says of the module's sources, line for line. */
/*
 * session-stop: a group-stop (SIGSTOP, continued by a forked helper), an
 * exec of itself, exit 7: the exec marker and the new image's records.
 */
TEST(btrace, group_stop_and_exec_same_records)
{
	int old = personality(0xffffffff);

	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	want_exit = 7;
	EXPECT_GT(compare_sources("session-stop", NULL, NULL, NULL), (size_t)1000);
	want_exit = 0;
	personality((unsigned long)old);
}

/* speed-forms: fork, vfork and posix_spawn children run untraced. */
TEST(btrace, fork_children_same_records)
{
	int old = personality(0xffffffff);

	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	EXPECT_GT(compare_sources("speed-forms", NULL, NULL, NULL), (size_t)1000);
	personality((unsigned long)old);
}

TEST(btrace, info_names_the_module_sources)
{
	char *bt = BTRACE_PATH();
	char *argv[] = { bt, "info", NULL };
	const char *want[] = {
		"kmod-bts     unavailable: the CPU is not Intel's\n",
		"kmod-pebs    unavailable: the CPU is not Intel's\n",
		"kmod-step    available\n",
		"ptrace-step  available\n",
		"auto         -> kmod-step\n",
	};
	struct harness_cmd c;
	size_t i;

	ASSERT_EQ(harness_run(argv, RUN_TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(c.out, want[i]))
			FAIL("btrace info has no line '%.*s': %s",
			     (int)strlen(want[i]) - 1, want[i], c.out);
	harness_cmd_free(&c);
	free(bt);
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

/* "label NAME 0xADDR" in a program's output: ADDR, or 0. */
static unsigned long long label(const char *out, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "label %s 0x", name);
	p = strstr(out, key);
	return p ? strtoull(p + strlen(key), NULL, 16) : 0;
}

/* Records from @from in the part of thread @tid of a raw dump, or -1. */
static long count_from(const char *raw, int tid, unsigned long long from)
{
	char head[32], rec[32];
	const char *p;
	long n = 0;

	snprintf(head, sizeof(head), "# thread %d\n", tid);
	snprintf(rec, sizeof(rec), "0x%llx ", from);
	p = strstr(raw, head);
	if (!p)
		return -1;
	for (p += strlen(head); *p && strncmp(p, "# thread ", 9);
	     p = strchrnul(p, '\n') + !!*strchrnul(p, '\n'))
		if (!strncmp(p, rec, strlen(rec)))
			n++;
	return n;
}

/*
 * threads-count: worker k calls thr_leaf 300 * (k + 1) times; each thread
 * is attached at its first stop, and every call is in its own records.
 */
TEST(btrace, threads_each_recorded)
{
	char *p = PROG_PATH("threads-count"), *file = tmp("threads.btr");
	unsigned long long call;
	struct harness_cmd c;
	const char *w;
	int k, tid, iters, main_tid = 0;
	char *raw;

	record("kmod-step", NULL, NULL, file, p, &c);
	ASSERT_EQ(harness_exit_code(&c), 0);
	expect_source(&c, "kmod-step");
	EXPECT_EQ(kt_pinned(), 0);
	raw = dump_raw(file);
	call = label(c.out, "thr_call");
	ASSERT_NE(call, 0ull);
	EXPECT_EQ(kt_count_lines(raw, "# thread "), (size_t)5);
	EXPECT_EQ(kt_count_lines(raw, "# lost"), (size_t)0);
	EXPECT_EQ(kt_count_lines(raw, "# gap"), (size_t)0);
	for (k = 0, w = c.out; (w = strstr(w, "worker ")); w++, k++) {
		ASSERT_EQ(sscanf(w, "worker %*d tid %d iters %d", &tid, &iters), 2);
		EXPECT_EQ(count_from(raw, tid, call), (long)iters);
	}
	EXPECT_EQ(k, 4);
	w = strstr(c.out, "main tid ");
	ASSERT_TRUE(w && sscanf(w, "main tid %d", &main_tid) == 1);
	EXPECT_EQ(count_from(raw, main_tid, call), 0l);
	free(raw);
	harness_cmd_free(&c);
	free(p);
	free(file);
}

/* btrace as uid 1000 with RLIMIT_MEMLOCK of 64 KiB (root would ignore it). */
struct user_rec {
	const char *mode;	/* --mode */
	const char *out;	/* -o */
	int exit;		/* btrace's exit code expected */
	const char *says;	/* a part of its stderr */
	size_t lines;		/* of stderr */
};

static int user_record(void *arg)
{
	const struct user_rec *u = arg;
	struct rlimit rl = { 64 << 10, 64 << 10 };
	char *argv[] = { "/btrace", "record", "--source", "kmod-step", "--mode",
			 (char *)u->mode, "-o", (char *)u->out, "--",
			 "/progs/threads-count", NULL };
	struct harness_cmd c;

	KT_CHECK(kt_become_user() == 0);
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(harness_run(argv, RUN_TIMEOUT, &c) == 0);
	if (harness_exit_code(&c) != u->exit || !strstr(c.err, u->says) ||
	    kt_count_lines(c.err, "") != u->lines) {
		fprintf(stderr, "btrace exit %d: %s", harness_exit_code(&c), c.err);
		return __LINE__;
	}
	return 0;
}

/* BLOCK mode takes smaller buffers: nothing is lost either way. */
TEST(btrace, block_fits_a_small_memlock_limit)
{
	struct user_rec u = {
		.mode = "block", .out = "/tmp/user-block.btr", .exit = 0,
		.says = "recorded 5 threads", .lines = 1,
	};

	EXPECT_EQ(kt_in_child(user_record, &u), 0);
	EXPECT_EQ(access(u.out, F_OK), 0);
	unlink(u.out);
	EXPECT_EQ(kt_pinned(), 0);
}

/* RING keeps what its buffer holds: a smaller one is an error, no file. */
TEST(btrace, ring_past_the_memlock_limit_fails_clearly)
{
	struct user_rec u = {
		.mode = "ring", .out = "/tmp/user-ring.btr", .exit = 125,
		.says = "RLIMIT_MEMLOCK", .lines = 1,
	};

	EXPECT_EQ(kt_in_child(user_record, &u), 0);
	EXPECT_EQ(access(u.out, F_OK), -1);
	EXPECT_EQ(kt_pinned(), 0);
}

/* fork + exec with stdout and stderr to @log (or kept); the pid. */
static pid_t start_prog(char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Polls @cond(@arg) every 10 ms, 20 s at most. */
static bool wait_for(bool (*cond)(long), long arg)
{
	struct timespec tick = { 0, 10000000 };
	int i;

	for (i = 0; i < 2000; i++) {
		if (cond(arg))
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

static bool file_there(long unused)
{
	(void)unused;
	return access("/tmp/loop.pid", F_OK) == 0;
}

/* The module holds a buffer: btrace attached a thread to it. */
static bool pages_pinned(long unused)
{
	(void)unused;
	return kt_pinned() > 0;
}

/*
 * btrace -p with kmod-step, then SIGINT to btrace: it detaches, writes a
 * whole trace and exits 0; the program runs on untraced (no stray trap
 * flag, no SIGTRAP) and ends its own way on its SIGINT.
 */
TEST(btrace, attach_then_detach_leaves_it_running)
{
	char *loop[] = { "/progs/cli-loop", "/tmp/loop.pid", NULL };
	char *bt[] = { "/btrace", "record", "--source", "kmod-step", "-p", NULL,
		       "-o", "/tmp/attach.btr", NULL };
	char pidstr[16], line[64], *raw;
	pid_t prog, tracer;
	int status;
	FILE *f;

	unlink("/tmp/loop.pid");
	prog = start_prog(loop, NULL);
	ASSERT_GT(prog, 0);
	ASSERT_TRUE(wait_for(file_there, 0));
	snprintf(pidstr, sizeof(pidstr), "%d", (int)prog);
	bt[5] = pidstr;
	tracer = start_prog(bt, "/tmp/attach.err");
	ASSERT_GT(tracer, 0);
	EXPECT_TRUE(wait_for(pages_pinned, 0));
	usleep(100000);		/* some records; their number is not checked */
	kill(tracer, SIGINT);
	ASSERT_EQ(waitpid(tracer, &status, 0), tracer);
	f = fopen("/tmp/attach.err", "r");
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = 0;
	if (f)
		fclose(f);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		FAIL("btrace -p: %s", line);
	EXPECT_EQ(kt_pinned(), 0);

	raw = dump_raw("/tmp/attach.btr");
	EXPECT_GT(kt_count_lines(raw, "0x"), (size_t)0);
	free(raw);

	/* still running, and ends as it would without btrace */
	EXPECT_EQ(kill(prog, 0), 0);
	kill(prog, SIGINT);
	ASSERT_EQ(waitpid(prog, &status, 0), prog);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 42);
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
	EXPECT_GT(kt_count_lines(t.out, "0x"), (size_t)3000);
	same_lines("tracer32", t.out, want + (*want == '\n'));
	EXPECT_EQ(kt_pinned(), 0);
	harness_cmd_free(&t);
	free(p);
}

/*
 * --max-size under kmod-step: the module's records are taken up to the
 * bound, exactly SIZE/24 of them, and the program is killed (137) before
 * it can finish (a one-page BLOCK buffer holds it until they are taken).
 */
TEST(btrace, max_size_cuts_kmod_step_exactly)
{
	char *bt = BTRACE_PATH(), *p = PROG_PATH("static-oracle");
	char *file = tmp("cut.btr"), *raw;
	char *argv[] = { bt, "record", "--no-follow", "--source", "kmod-step",
			 "--mode", "block", "--buffer", "4K", "--max-size", "1K",
			 "-o", file, "--", p, NULL };
	struct harness_cmd c;

	ASSERT_EQ(harness_run(argv, RUN_TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 137);
	if (!strstr(c.err, "; cut at --max-size"))
		FAIL("not cut at --max-size: %s", c.err);
	EXPECT_STREQ(c.out, "");
	raw = dump_raw(file);
	EXPECT_EQ(kt_count_lines(raw, "0x"), (size_t)(1024 / 24));
	EXPECT_EQ(kt_pinned(), 0);
	free(raw);
	unlink(file);
	harness_cmd_free(&c);
	free(bt);
	free(p);
	free(file);
}

/*
 * Ten recordings of limits-write by kmod-step (the default BLOCK buffer,
 * large), counting to @loops first, cut by @opt @val: each is killed at the
 * cut (137, the cut named) before it creates its file; @check looks at
 * each trace's records.
 */
static void kmod_step_cuts(const char *opt, const char *val, const char *loops,
			   void (*check)(const char *raw))
{
	char *bt = BTRACE_PATH(), *p = PROG_PATH("limits-write");
	char *file = tmp("cut.btr"), *out = tmp("limits-write.out"), *raw;
	char *argv[] = { bt, "record", "--no-follow", "--source", "kmod-step",
			 (char *)opt, (char *)val, "-o", file, "--", p, NULL };
	struct harness_cmd c;
	char want[32];
	int i;

	snprintf(want, sizeof(want), "; cut at %s", opt);
	ASSERT_EQ(setenv("LIMITS_FILE", out, 1), 0);
	ASSERT_EQ(setenv("LIMITS_LOOPS", loops, 1), 0);
	for (i = 0; i < 10; i++) {
		unlink(out);
		ASSERT_EQ(harness_run(argv, RUN_TIMEOUT, &c), 0);
		EXPECT_EQ(harness_exit_code(&c), 137);
		if (!strstr(c.err, want))
			FAIL("run %d: not cut at %s: %s", i, opt, c.err);
		EXPECT_NE(access(out, F_OK), 0);
		raw = dump_raw(file);
		check(raw);
		free(raw);
		harness_cmd_free(&c);
		unlink(file);
	}
	unsetenv("LIMITS_FILE");
	unsetenv("LIMITS_LOOPS");
	EXPECT_EQ(kt_pinned(), 0);
	free(bt);
	free(p);
	free(file);
	free(out);
}

static void size_over_24_records(const char *raw)
{
	EXPECT_EQ(kt_count_lines(raw, "0x"), (size_t)(1024 / 24));
}

static void no_lost_record(const char *raw)
{
	EXPECT_EQ(kt_count_lines(raw, "# lost"), (size_t)0);
}

/*
 * --max-size under kmod-step: the module holds the thread at its record
 * past the bound, whatever room the buffer has, and the cut kills it
 * there: exactly SIZE/24 records.
 */
TEST(btrace, max_size_holds_kmod_step_at_the_bound)
{
	kmod_step_cuts("--max-size", "1K", "0", size_over_24_records);
}

/*
 * --duration under kmod-step: at the time bound the threads are stopped
 * (PTRACE_INTERRUPT) before the kill, and every record they made up to
 * there is taken: no trace holds a lost record (a cut may come before
 * the first record: then the trace holds none).
 */
TEST(btrace, duration_stops_kmod_step_before_the_kill)
{
	kmod_step_cuts("--duration", "0.05", "200000", no_lost_record);
}

/*
 * On the virtual CPU with BTS (make test-vcpu only): libbts's perf-bts
 * source (perf_event_open branch sampling, which Linux serves from its own
 * BTS code) records static-oracle as ptrace-step does.  perf-bts keeps the
 * newest records only (ring mode); the buffer holds the whole run.
 */
KT_GUARDED_TEST(vcpu, btrace_perf_bts_same_records)
{
	char *ra = recorded("ptrace-step", "ring", "16M", "static-oracle",
			    ORACLE_OUT, NULL);
	char *rb = recorded("perf-bts", "ring", "16M", "static-oracle",
			    ORACLE_OUT, NULL);

	EXPECT_GT(kt_count_lines(ra, "0x"), (size_t)1000);
	same_lines("perf-bts", rb, ra);
	free(ra);
	free(rb);
}
