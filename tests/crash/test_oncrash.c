// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --on-crash: the flight recorder writes one crash trace per
 * process that a signal is about to kill, and nothing otherwise.  The
 * traces are read back through bts.h's crash API: signal, siginfo,
 * registers, unwound frames, records.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../e2e/raw_dump.h"
#include "test_oncrash.h"

struct crash_run {
	struct harness_cmd cmd;
	char *file;
	pid_t pid;		/* from the file name */
	struct bts_trace *t;
	struct bts_symbolizer *sym;
	const struct bts_crash_info *ci;
};

/* btrace record --on-crash -o DIR/%e.%p.btr PROG ARGS: the one crash file, opened. */
static void run_crash(const char *prog, const char *const args[],
		      struct crash_run *r)
{
	char pattern[4096], prefix[256];
	const char *bt_args[] = { "--on-crash", "-o", pattern, NULL };
	const char *dot;

	memset(r, 0, sizeof(*r));
	snprintf(pattern, sizeof(pattern), "%s/%%e.%%p.btr", harness_tmpdir());
	crash_btrace(bt_args, prog, args, &r->cmd);
	snprintf(prefix, sizeof(prefix), "%s.", prog);
	r->file = crash_find_file(harness_tmpdir(), prefix);
	if (!r->file)
		FAIL("no crash file %s* in %s; stderr: %s", prefix, harness_tmpdir(),
		     r->cmd.err);
	dot = strrchr(r->file, '/') + 1 + strlen(prefix);
	r->pid = (pid_t)atoi(dot);
	ASSERT_EQ(bts_trace_new(r->file, &r->t), 0);
	ASSERT_EQ(bts_trace_crashed(r->t), r->pid);
	r->ci = bts_trace_crash(r->t, r->pid);
	ASSERT_TRUE(r->ci != NULL);
	ASSERT_EQ(bts_symbolizer_new(r->t, r->pid, &r->sym), 0);
}

static void run_free(struct crash_run *r)
{
	bts_symbolizer_free(r->sym);
	bts_trace_free(r->t);
	free(r->file);
	harness_cmd_free(&r->cmd);
}

/* The line btrace prints for a crash, exactly. */
static void expect_crash_line(const struct crash_run *r, const char *prog,
			      const char *sig)
{
	char want[4608];

	snprintf(want, sizeof(want),
		 "btrace: process %d (%s) crashed with %s: crash trace in %s\n",
		 (int)r->pid, prog, sig, r->file);
	EXPECT_STREQ(r->cmd.err, want);
}

/* Whether frame @i of @th is in @fn (a return address names its call). */
static const char *frame_fn(const struct crash_run *r,
			    const struct bts_crash_thread *th, size_t i)
{
	uint64_t pc = th->frames[i].pc;

	if (i && !(th->frames[i].flags & BTS_FRAME_SIGNAL))
		pc--;
	return crash_sym(r->sym, pc);
}

static bool frames_have(const struct crash_run *r,
			const struct bts_crash_thread *th, const char *fn)
{
	for (size_t i = 0; i < th->nframes; i++)
		if (!strcmp(frame_fn(r, th, i), fn))
			return true;
	return false;
}

TEST(oncrash, three_calls_deep)
{
	static const char *const calls[] = {
		"main", "level1", "level1", "level2", "level2", "level3",
	};
	const struct bts_crash_thread *th;
	const struct bts_process_info *pi;
	struct ptbts_record rec, last = { 0 };
	struct bts_rec_iter *it = NULL;
	struct crash_run r;
	long idx;

	run_crash("crash-deep", NULL, &r);
	EXPECT_EQ(harness_exit_code(&r.cmd), 128 + SIGSEGV);
	expect_crash_line(&r, "crash-deep", "SIGSEGV");
	EXPECT_EQ(bts_trace_info(r.t)->mode, PTBTS_MODE_RING);
	EXPECT_EQ(r.ci->pid, r.pid);
	EXPECT_EQ(r.ci->tid, r.pid);
	EXPECT_EQ(r.ci->signo, SIGSEGV);
	EXPECT_EQ(r.ci->code, SEGV_MAPERR);
	EXPECT_EQ(r.ci->addr, 0x10u);
	ASSERT_EQ(r.ci->nthreads, 1u);
	th = bts_trace_crash_thread(r.t, r.pid, 0);
	ASSERT_TRUE(th != NULL);
	EXPECT_TRUE(th->crashed);
	ASSERT_TRUE(th->has_regs);
	ASSERT_GE(th->nframes, 4u);
	EXPECT_EQ(th->frames[0].pc, th->regs.rip);
	EXPECT_EQ(th->frames[0].sp, th->regs.rsp);
	EXPECT_STREQ(frame_fn(&r, th, 0), "level3");
	EXPECT_STREQ(frame_fn(&r, th, 1), "level2");
	EXPECT_STREQ(frame_fn(&r, th, 2), "level1");
	EXPECT_STREQ(frame_fn(&r, th, 3), "main");
	EXPECT_TRUE(bts_trace_crash_thread(r.t, r.pid, 1) == NULL);
	/* The process ends as the signal makes it. */
	pi = bts_trace_process(r.t, 0);
	EXPECT_TRUE(pi->exited);
	EXPECT_TRUE(WIFSIGNALED(pi->status) && WTERMSIG(pi->status) == SIGSEGV);
	/* The records lead to the crash: the last three calls, in order. */
	idx = bts_trace_thread_index(r.t, r.pid);
	ASSERT_GE(idx, 0);
	EXPECT_TRUE(crash_has_calls(r.t, idx, r.sym, calls, 3));
	ASSERT_EQ(bts_rec_iter_new(r.t, idx, &it), 0);
	while (bts_rec_iter_next(it, &rec) == 1)
		last = rec;
	EXPECT_STREQ(crash_sym(r.sym, last.from), "level2");
	EXPECT_STREQ(crash_sym(r.sym, last.to), "level3");
	EXPECT_EQ(bts_trace_nimages(r.t, r.pid), 1u);
	run_free(&r);
	bts_rec_iter_free(it);
}

TEST(oncrash, default_name_in_cwd)
{
	char cmd[8192], *bt = BTRACE_PATH(), *prog = PROG_PATH("crash-deep");
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };
	struct harness_cmd c;
	char *file;

	snprintf(cmd, sizeof(cmd), "cd '%s' && exec '%s' record --on-crash '%s'",
		 harness_tmpdir(), bt, prog);
	ASSERT_EQ(harness_run(argv, CRASH_LIMIT_S, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 128 + SIGSEGV);
	file = crash_find_file(harness_tmpdir(), "btrace-crash.crash-deep.");
	EXPECT_TRUE(file != NULL);
	/* Only the renamed file: no temporary one is left behind. */
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 1);
	free(file);
	free(bt);
	free(prog);
	harness_cmd_free(&c);
}

TEST(oncrash, forked_child_crashes_parent_goes_on)
{
	const struct bts_crash_thread *th;
	const struct bts_process_info *pi;
	struct crash_run r;
	char want[64];

	run_crash("crash-fork", NULL, &r);
	EXPECT_EQ(harness_exit_code(&r.cmd), 7);
	snprintf(want, sizeof(want), "child %d signal %d\n", (int)r.pid, SIGSEGV);
	EXPECT_STREQ(r.cmd.out, want);
	expect_crash_line(&r, "crash-fork", "SIGSEGV");
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 1);
	ASSERT_EQ(bts_trace_nprocesses(r.t), 1u);
	pi = bts_trace_process(r.t, 0);
	EXPECT_EQ(pi->pid, r.pid);
	EXPECT_GT(pi->ppid, 0);
	EXPECT_NE(pi->ppid, r.pid);
	EXPECT_EQ(r.ci->signo, SIGSEGV);
	EXPECT_EQ(r.ci->addr, 0x20u);
	th = bts_trace_crash_thread(r.t, r.pid, 0);
	ASSERT_TRUE(th != NULL);
	ASSERT_GE(th->nframes, 2u);
	EXPECT_STREQ(frame_fn(&r, th, 0), "child_crash");
	EXPECT_STREQ(frame_fn(&r, th, 1), "main");
	run_free(&r);
}

TEST(oncrash, execed_child_aborts)
{
	static const char *const calls[] = { "main", "do_abort" };
	const struct bts_crash_thread *th;
	const struct bts_process_info *pi;
	struct crash_run r;
	const char *exe;

	run_crash("crash-exec", NULL, &r);
	EXPECT_EQ(harness_exit_code(&r.cmd), 0);
	EXPECT_STREQ(r.cmd.out, "child signal 6\n");
	expect_crash_line(&r, "crash-exec", "SIGABRT");
	EXPECT_EQ(r.ci->signo, SIGABRT);
	EXPECT_EQ(r.ci->code, SI_TKILL);
	EXPECT_EQ(r.ci->sender_pid, r.pid);
	EXPECT_EQ(r.ci->addr, 0u);
	pi = bts_trace_process(r.t, 0);
	exe = strrchr(pi->exe, '/');
	EXPECT_STREQ(exe, "/crash-exec");
	th = bts_trace_crash_thread(r.t, r.pid, 0);
	ASSERT_TRUE(th != NULL);
	EXPECT_TRUE(frames_have(&r, th, "abort"));
	EXPECT_TRUE(frames_have(&r, th, "do_abort"));
	EXPECT_TRUE(frames_have(&r, th, "main"));
	EXPECT_TRUE(crash_has_calls(r.t, bts_trace_thread_index(r.t, r.pid), r.sym,
				    calls, 1));
	run_free(&r);
}

TEST(oncrash, threads_crasher_named_others_present)
{
	const struct bts_crash_thread *th;
	struct crash_run r;

	run_crash("crash-threads", NULL, &r);
	EXPECT_EQ(harness_exit_code(&r.cmd), 128 + SIGSEGV);
	expect_crash_line(&r, "crash-threads", "SIGSEGV");
	EXPECT_EQ(r.ci->addr, 0x30u);
	EXPECT_NE(r.ci->tid, r.pid);
	ASSERT_EQ(r.ci->nthreads, 4u);
	for (size_t i = 0; i < 4; i++) {
		th = bts_trace_crash_thread(r.t, r.pid, i);
		ASSERT_TRUE(th != NULL);
		EXPECT_EQ(th->crashed, i == 0);
		EXPECT_TRUE(th->has_regs);
		EXPECT_GE(th->nframes, 1u);
		EXPECT_GE(bts_trace_thread_index(r.t, th->tid), 0);
		for (size_t j = 0; j < i; j++)
			EXPECT_NE(bts_trace_crash_thread(r.t, r.pid, j)->tid, th->tid);
	}
	th = bts_trace_crash_thread(r.t, r.pid, 0);
	EXPECT_EQ(th->tid, r.ci->tid);
	EXPECT_STREQ(frame_fn(&r, th, 0), "crasher");
	/* The main thread waits in pthread_join, the sleepers in pause. */
	for (size_t i = 1; i < 4; i++) {
		th = bts_trace_crash_thread(r.t, r.pid, i);
		const char *want = th->tid == r.pid ? "main" : "sleeper";
		char seen[512] = "";

		for (size_t k = 0; k < th->nframes && strlen(seen) < 400; k++)
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
				 " %s", frame_fn(&r, th, k));
		if (!frames_have(&r, th, want))
			harness_fail(__FILE__, __LINE__, "thread %d: no %s in%s (%s)",
				     (int)th->tid, want, seen,
				     th->unwind_error ? th->unwind_error : "");
	}
	run_free(&r);
}

/*
 * Threads stopped for the crash stand where an instruction starts: one
 * that had trapped on a branch site's int3 just before the int3s came out
 * (for a core without them) is taken back onto the branch and its branch
 * recorded, not left one byte into it.
 */
TEST(oncrash, spinning_threads_stand_on_an_instruction)
{
	const struct bts_crash_thread *th;
	struct raw_labels l;
	struct crash_run r;
	char where[160];

	run_crash("crash-spin", NULL, &r);
	EXPECT_EQ(harness_exit_code(&r.cmd), 128 + SIGSEGV);
	EXPECT_EQ(r.ci->addr, 0x40u);
	ASSERT_EQ(r.ci->nthreads, 5u);
	raw_labels_parse(r.cmd.out, &l);
	ASSERT_EQ(l.n, 6u);
	for (size_t i = 1; i < 5; i++) {
		uint64_t pc;
		bool on_label = false;

		th = bts_trace_crash_thread(r.t, r.pid, i);
		ASSERT_TRUE(th != NULL && th->has_regs);
		pc = th->regs.rip;
		for (size_t k = 0; k < l.n; k++)
			on_label |= l.addrs[k] == pc;
		if (!on_label)
			harness_fail(__FILE__, __LINE__, "thread %d stopped at %s",
				     (int)th->tid,
				     raw_labels_describe(&l, pc, where, sizeof(where)));
		ASSERT_GE(th->nframes, 1u);
		EXPECT_EQ(th->frames[0].pc, pc);
	}
	raw_labels_free(&l);
	run_free(&r);
}

TEST(oncrash, handled_or_ignored_signal_is_no_crash)
{
	const char *const args[] = { "--on-crash", NULL };
	char cmd[8192], *bt = BTRACE_PATH(), *prog = PROG_PATH("crash-handled");
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };
	struct harness_cmd c;

	(void)args;
	snprintf(cmd, sizeof(cmd), "cd '%s' && exec '%s' record --on-crash '%s'",
		 harness_tmpdir(), bt, prog);
	ASSERT_EQ(harness_run(argv, CRASH_LIMIT_S, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 3);
	EXPECT_STREQ(c.out, "usr1 ignored\nterm caught\n");
	EXPECT_STREQ(c.err, "btrace: no crash: 1 process, 1 thread, newest 65536 "
		     "records per thread kept (ptrace-step); nothing written\n");
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 0);
	free(bt);
	free(prog);
	harness_cmd_free(&c);
}

/* Peak resident memory of btrace, as the traced program read it. */
static long loop_hwm_kb(const char *iterations)
{
	const char *const bt_args[] = { "--on-crash", "--keep", "100", NULL };
	const char *const args[] = { iterations, NULL };
	struct harness_cmd c;
	long kb = -1;

	crash_btrace(bt_args, "crash-loop", args, &c);
	EXPECT_EQ(harness_exit_code(&c), 0);
	if (sscanf(c.out, "VmHWM: %ld kB", &kb) != 1)
		FAIL("no VmHWM line: %s", c.out);
	harness_cmd_free(&c);
	return kb;
}

/*
 * 80000 iterations make 80000 records (1.9 MB): a tracer that kept them
 * would grow by that much over one that ran 5000; the ring keeps 100.
 */
TEST(oncrash, memory_stays_bounded)
{
	long small = loop_hwm_kb("5000"), large = loop_hwm_kb("80000");

	ASSERT_GT(small, 0);
	EXPECT_LT(large, small + 768);
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 0);
}

TEST(oncrash, bad_keep_is_refused)
{
	const char *const args[] = { "--on-crash", "--keep", "0", NULL };
	struct harness_cmd c;

	crash_btrace(args, "crash-deep", NULL, &c);
	EXPECT_EQ(harness_exit_code(&c), 125);
	EXPECT_TRUE(strstr(c.err, "--keep") != NULL);
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 0);
	harness_cmd_free(&c);
}

/*
 * Code with no file (branch stops plant int3s in it, at +7 and +20): the
 * crash trace carries a copy of its page as the program wrote it, read
 * through bts_read_code(), and the records of the loop in it.
 */
TEST(oncrash, code_without_file_is_copied_clean)
{
	static const unsigned char want[] = {
		0xb8, 0x05, 0x00, 0x00, 0x00, 0xff, 0xc8, 0x75, 0xfc,
		0xc7, 0x04, 0x25, 0x50, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		0xc3,
	};
	const struct bts_code *code;
	const struct bts_crash_thread *th;
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	struct crash_run r;
	unsigned long long jit = 0;
	const uint8_t *bytes = NULL;
	size_t n, loops = 0;

	run_crash("crash-jit", NULL, &r);
	EXPECT_EQ(harness_exit_code(&r.cmd), 128 + SIGSEGV);
	ASSERT_EQ(sscanf(r.cmd.out, "jit %llx", &jit), 1);
	EXPECT_EQ(r.ci->addr, 0x50u);
	th = bts_trace_crash_thread(r.t, r.pid, 0);
	ASSERT_TRUE(th && th->has_regs);
	EXPECT_EQ(th->regs.rip, jit + 9);
	n = bts_trace_code(r.t, r.pid, &code);
	for (size_t i = 0; i < n; i++)
		if (code[i].addr <= jit && jit + sizeof(want) <= code[i].addr + code[i].len)
			bytes = code[i].bytes + (jit - code[i].addr);
	ASSERT_TRUE(bytes != NULL);
	EXPECT_EQ(memcmp(bytes, want, sizeof(want)), 0);
	/* The loop ran: its jnz back, four times. */
	ASSERT_EQ(bts_rec_iter_new(r.t, bts_trace_thread_index(r.t, r.pid), &it), 0);
	while (bts_rec_iter_next(it, &rec) == 1)
		loops += rec.from == jit + 7 && rec.to == jit + 5;
	EXPECT_EQ(loops, 4u);
	run_free(&r);
	bts_rec_iter_free(it);
}
