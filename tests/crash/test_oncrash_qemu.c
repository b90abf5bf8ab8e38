// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --on-crash --source qemu-user: crash-deep dies inside
 * QEMU, which writes the guest's core (when RLIMIT_CORE allows) and kills
 * itself.  The crash trace has the guest's fault (not QEMU's kill), the
 * guest's registers from that core, the stack unwound from them, the
 * records that lead to the crash, and no core file is left behind.
 * i386-crash-deep, the same program built -m32, dies inside qemu-i386:
 * its stack is unwound from the i386 guest core.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_oncrash.h"

struct qcrash {
	struct harness_cmd cmd;
	char *file;
	pid_t pid;
	struct bts_trace *t;
	struct bts_symbolizer *sym;
	const struct bts_crash_info *ci;
	const struct bts_crash_thread *th;	/* the crashed thread's */
	char *prog;
	const char *name;	/* the program's file name */
};

/*
 * In the test's directory (where QEMU writes its core):
 * btrace record --on-crash --source qemu-user -o DIR/%e.%p.btr PROG [ARG].
 */
static void run_qemu_crash(const char *prog, const char *arg, struct qcrash *r)
{
	char pattern[4096], cwd[4096], prefix[64];
	const char *bt_args[] = { "--on-crash", "--source", "qemu-user", "-o",
				  pattern, NULL };
	const char *args[] = { arg, NULL };

	memset(r, 0, sizeof(*r));
	r->name = prog;
	r->prog = PROG_PATH(prog);
	snprintf(pattern, sizeof(pattern), "%s/%%e.%%p.btr", harness_tmpdir());
	snprintf(prefix, sizeof(prefix), "%s.", prog);
	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	ASSERT_EQ(chdir(harness_tmpdir()), 0);
	crash_btrace(bt_args, prog, args, &r->cmd);
	ASSERT_EQ(chdir(cwd), 0);
	EXPECT_EQ(harness_exit_code(&r->cmd), 128 + SIGSEGV);
	r->file = crash_find_file(harness_tmpdir(), prefix);
	if (!r->file)
		FAIL("no crash file in %s; stderr: %s", harness_tmpdir(), r->cmd.err);
	/* The crash trace, and no core file of QEMU's beside it. */
	EXPECT_EQ(crash_count_files(harness_tmpdir()), 1);
	r->pid = (pid_t)atoi(strrchr(r->file, '/') + 1 + strlen(prefix));
	ASSERT_EQ(bts_trace_new(r->file, &r->t), 0);
	ASSERT_EQ(bts_trace_crashed(r->t), r->pid);
	r->ci = bts_trace_crash(r->t, r->pid);
	ASSERT_TRUE(r->ci != NULL);
	ASSERT_EQ(bts_symbolizer_new(r->t, r->pid, &r->sym), 0);
	r->th = bts_trace_crash_thread(r->t, r->pid, 0);
	ASSERT_TRUE(r->th != NULL);
}

static void free_qemu_crash(struct qcrash *r)
{
	bts_symbolizer_free(r->sym);
	bts_trace_free(r->t);
	free(r->file);
	free(r->prog);
	harness_cmd_free(&r->cmd);
}

/*
 * What every run shares: btrace's line naming @qemu, the guest's fault
 * (@code: qemu-i386 reserves the guest's 4 GiB, so that an unmapped
 * address is one of QEMU's pages without access), the records.
 */
static void expect_guest_fault(const struct qcrash *r, const char *qemu,
			       int code)
{
	static const char *const calls[] = {
		"main", "level1", "level1", "level2", "level2", "level3",
	};
	struct ptbts_record rec, last = { 0 };
	struct bts_rec_iter *it = NULL;
	char want[4608];
	long idx;

	/*
	 * QEMU's own line comes first: btrace's is the last, naming the
	 * process's executable, QEMU (the trace's name is the program's).
	 */
	snprintf(want, sizeof(want), "btrace: process %d (%s) crashed "
		 "with SIGSEGV: crash trace in %s\n", (int)r->pid, qemu, r->file);
	EXPECT_TRUE(strlen(r->cmd.err) >= strlen(want) &&
		    !strcmp(r->cmd.err + strlen(r->cmd.err) - strlen(want), want));
	EXPECT_EQ(bts_trace_info(r->t)->mode, PTBTS_MODE_RING);
	EXPECT_STREQ(bts_trace_process(r->t, 0)->exe, r->prog);
	EXPECT_EQ(r->ci->signo, SIGSEGV);
	EXPECT_EQ(r->ci->code, code);
	EXPECT_EQ(r->ci->addr, 0x10u);
	/* The guest's thread, whichever of QEMU's threads took QEMU's kill. */
	EXPECT_EQ(r->ci->tid, r->pid);
	EXPECT_EQ(r->th->tid, r->pid);
	EXPECT_TRUE(r->th->crashed);
	idx = bts_trace_thread_index(r->t, r->pid);
	ASSERT_GE(idx, 0);
	EXPECT_TRUE(crash_has_calls(r->t, idx, r->sym, calls, 3));
	ASSERT_EQ(bts_rec_iter_new(r->t, idx, &it), 0);
	while (bts_rec_iter_next(it, &rec) == 1)
		last = rec;
	EXPECT_STREQ(crash_sym(r->sym, last.from), "level2");
	EXPECT_STREQ(crash_sym(r->sym, last.to), "level3");
	bts_rec_iter_free(it);
}

/* Frame @i's function (a return address names its call). */
static const char *frame_fn(const struct qcrash *r, size_t i)
{
	return crash_sym(r->sym, r->th->frames[i].pc - (i ? 1 : 0));
}

/* btrace report's backtrace: #0 to #3, level3 up to main. */
static void expect_report_frames(const char *file, const char *code)
{
	static const char *const funcs[] = { "level3", "level2", "level1", "main" };
	char *bt = BTRACE_PATH(), *argv[] = { bt, "report", (char *)file, NULL };
	struct harness_cmd cmd;
	const char *p;
	char want[64];

	ASSERT_EQ(harness_run(argv, CRASH_LIMIT_S, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	snprintf(want, sizeof(want), "fault), %s, fault address 0x10.", code);
	EXPECT_TRUE(strstr(cmd.out, "killed by signal SIGSEGV (Segmentation ") &&
		    strstr(cmd.out, want) != NULL);
	p = strstr(cmd.out, "\nBacktrace:\n");
	ASSERT_TRUE(p != NULL);
	for (size_t i = 0; i < 4; i++) {
		char line[256];

		snprintf(want, sizeof(want), "\n#%zu  0x", i);
		p = strstr(p, want);
		ASSERT_TRUE(p != NULL);
		p++;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		snprintf(want, sizeof(want), " in %s () at ", funcs[i]);
		if (!strstr(line, want))
			FAIL("frame #%zu is not %s: %s", i, funcs[i], line);
	}
	harness_cmd_free(&cmd);
	free(bt);
}

/* The guest's registers, and its stack unwound from them: main to level3. */
static void expect_frames(const struct qcrash *r)
{
	ASSERT_TRUE(r->th->has_regs);
	ASSERT_GE(r->th->nframes, 4u);
	EXPECT_EQ(r->th->frames[0].pc, r->th->regs.rip);
	EXPECT_EQ(r->th->frames[0].sp, r->th->regs.rsp);
	EXPECT_EQ(r->th->frames[0].flags, 0u);
	EXPECT_STREQ(frame_fn(r, 0), "level3");
	EXPECT_STREQ(frame_fn(r, 1), "level2");
	EXPECT_STREQ(frame_fn(r, 2), "level1");
	EXPECT_STREQ(frame_fn(r, 3), "main");
	EXPECT_TRUE(r->th->unwind_error == NULL);
}

TEST(oncrash_qemu, registers_and_frames_from_the_guest_core)
{
	struct qcrash r;

	run_qemu_crash("crash-deep", "keep-core", &r);
	expect_guest_fault(&r, "qemu-x86_64", SEGV_MAPERR);
	expect_frames(&r);
	expect_report_frames(r.file, "SEGV_MAPERR");
	free_qemu_crash(&r);
}

/* crash-deep forbids core files: the fault and the records, no registers. */
TEST(oncrash_qemu, no_guest_core_no_registers_said_so)
{
	struct qcrash r;

	run_qemu_crash("crash-deep", NULL, &r);
	expect_guest_fault(&r, "qemu-x86_64", SEGV_MAPERR);
	EXPECT_FALSE(r.th->has_regs);
	EXPECT_EQ(r.th->nframes, 0u);
	EXPECT_STREQ(r.th->unwind_error,
		     "the emulator gave no registers of this thread");
	free_qemu_crash(&r);
}

/*
 * An i386 guest: its registers (i386's, in the x86-64 layout, as ptrace
 * shows a 32-bit process's) and its stack from the i386 core.
 */
TEST(oncrash_qemu, i386_registers_and_frames_from_the_guest_core)
{
	struct qcrash r;

	run_qemu_crash("i386-crash-deep", "keep-core", &r);
	expect_guest_fault(&r, "qemu-i386", SEGV_ACCERR);
	expect_frames(&r);
	/* level3's store: movl $42, (%eax), %eax its argument */
	EXPECT_EQ(r.th->regs.rax, 0x10u);
	EXPECT_LT(r.th->regs.rsp, 1ull << 32);
	/* i386 code: the crash trace says so, as the session's file does. */
	EXPECT_EQ(bts_trace_process_bits(r.t, r.pid), 32);
	for (size_t i = 1; i < 4; i++)
		EXPECT_EQ(r.th->frames[i - 1].cfa, r.th->frames[i].sp);
	expect_report_frames(r.file, "SEGV_ACCERR");
	free_qemu_crash(&r);
}
