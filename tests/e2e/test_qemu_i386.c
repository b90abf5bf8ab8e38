// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The qemu-user source on i386 programs: they run under qemu-i386, which
 * needs no IA32 emulation of the kernel, so these tests run on every
 * machine.  i386-ksig (tests/progs/i386-ksig.S) is recorded, and its
 * records must be exactly those written out below, with their kinds: a
 * counted loop of calls, a jcc taken or not, and handlers of SIGUSR1 (rt
 * frame, rt_sigreturn) and SIGUSR2 (old frame, sigreturn).  The trace
 * marks the process as 32-bit, so dump decodes its code as i386 code.
 * tests/oracle/test_oracle32.c compares larger programs with qemu's log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"
#include "trace_kinds.h"

static const char *const QEMU[] = { "--source", "qemu-user", NULL };

/*
 * Places inside i386-ksig's functions, from its listing: NAME is SYMBOL
 * plus OFFSET.
 */
static const struct {
	const char *name, *sym;
	uint64_t off;
} places[] = {
	{ "call_work", "_start", 5 },		/* 1: call work */
	{ "loop", "_start", 10 },		/* loop 1b */
	{ "after_kill1", "_start", 70 },	/* past kill(SIGUSR1)'s int */
	{ "after_kill2", "_start", 111 },	/* past kill(SIGUSR2)'s int */
	{ "jmp_exit", "_start", 144 },
	{ "work_jz", "work", 6 },
	{ "work_ret", "work", 14 },
	{ "handler_call", "handler", 6 },
	{ "handler_ret", "handler", 11 },
	{ "rt_int", "rt_restorer", 5 },
	{ "old_int", "old_restorer", 6 },
};

/* %ecx counts 5 down to 1: work's jz is taken when it is even. */
static const struct raw_pair ksig_records[] = {
	{ "call_work", "work" }, { "work_ret", "loop" }, { "loop", "call_work" },
	{ "call_work", "work" }, { "work_jz", "work_ret" }, { "work_ret", "loop" },
	{ "loop", "call_work" },
	{ "call_work", "work" }, { "work_ret", "loop" }, { "loop", "call_work" },
	{ "call_work", "work" }, { "work_jz", "work_ret" }, { "work_ret", "loop" },
	{ "loop", "call_work" },
	{ "call_work", "work" }, { "work_ret", "loop" },
	/* the loop ends; getpid, rt_sigaction, kill: then SIGUSR1 */
	{ "after_kill1", "handler" },
	{ "handler_call", "work" }, { "work_jz", "work_ret" },
	{ "work_ret", "handler_ret" }, { "handler_ret", "rt_restorer" },
	{ "rt_int", "after_kill1" },
	/* sigaction, kill: SIGUSR2 (%ecx is 12 in work) */
	{ "after_kill2", "handler" },
	{ "handler_call", "work" }, { "work_jz", "work_ret" },
	{ "work_ret", "handler_ret" }, { "handler_ret", "old_restorer" },
	{ "old_int", "after_kill2" },
	/* write, then to exit's int $0x80 */
	{ "jmp_exit", "exit" },
};
#define NKSIG (sizeof(ksig_records) / sizeof(ksig_records[0]))

static int ksig_kind(size_t i)
{
	switch (i) {
	case 16: case 22:
		return PTBTS_KIND_SIGNAL;
	case 21: case 27:
		return PTBTS_KIND_SIGRETURN;
	default:
		return PTBTS_KIND_BRANCH;
	}
}

TEST(qemu_i386, ksig_exact_sequence)
{
	char *prog = PROG_PATH("i386-ksig"), *btr, *insns;
	struct harness_cmd cmd;
	struct raw_labels l;
	struct raw_dump d;
	const struct raw_thread *t;
	size_t ti = 0;

	btr = raw_record("i386-ksig", QEMU, 0, &cmd);
	EXPECT_STREQ(cmd.out, "i386-ksig ok\n");
	raw_labels_from_elf(prog, &l);
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		raw_labels_add(&l, places[i].name,
			       raw_label(&l, places[i].sym) + places[i].off);
	raw_dump_load(btr, &d);
	t = raw_only_thread(&d, &ti);
	EXPECT_EQ(t->nmarkers, (size_t)0);
	/* From the program's first branch to its last: nothing else. */
	raw_expect_seq("i386-ksig", &l, t->recs, t->n, ksig_records, NKSIG);
	expect_trace_kinds(btr, &(struct trace_kinds){
		.what = "i386-ksig", .thread = ti, .n = NKSIG,
		.kind = ksig_kind, .exact = true, .bits = 32 });
	/* i386 code: incl of an absolute address, not %rip-relative. */
	insns = raw_dump_view(btr, "--insns");
	EXPECT_TRUE(strstr(insns, "<handler+0>:\tincl   0x804a038\n") != NULL);
	EXPECT_TRUE(strstr(insns, "(%rip)") == NULL);
	EXPECT_TRUE(strstr(insns, "decode error") == NULL);
	free(insns);
	raw_dump_free(&d);
	raw_labels_free(&l);
	harness_cmd_free(&cmd);
	free(btr);
	free(prog);
}

/*
 * The maps are the guest's, at its addresses (QEMU puts an i386 guest a
 * page above the host's 0): one, the program's, with its build-id.
 */
TEST(qemu_i386, maps_are_the_guests)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("i386-ksig"), *btr;
	char want[1024], *line, *end;
	struct harness_cmd cmd, info;
	char *argv[] = { btrace, "info", NULL, NULL };
	size_t maps = 0;

	btr = raw_record("i386-ksig", QEMU, 0, &cmd);
	argv[2] = btr;
	ASSERT_EQ(harness_run(argv, 40, &info), 0);
	EXPECT_EQ(harness_exit_code(&info), 0);
	snprintf(want, sizeof(want), "    0x0000000008048000-0x000000000804a000 "
		 "r-x 00000000 %s build-id ", prog);
	line = strstr(info.out, want);
	if (!line)
		FAIL("btrace info has no \"%s\":\n%s", want, info.out);
	end = strchr(line, '\n');
	EXPECT_EQ(end - line, (long)(strlen(want) + 40));
	for (line = info.out; (line = strstr(line, "\n    0x")); line++)
		maps++;
	EXPECT_EQ(maps, (size_t)1);
	harness_cmd_free(&info);
	harness_cmd_free(&cmd);
	free(btr);
	free(prog);
	free(btrace);
}

/* BTS_QEMU_I386 names the i386 emulator; one that is not there: 125. */
TEST(qemu_i386, missing_qemu_i386_is_one_line_and_125)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("i386-ksig");
	char *btr = harness_path(harness_tmpdir(), "refused.btr");
	char *argv[] = { btrace, "record", "-o", btr, "--source", "qemu-user",
			 "--", prog, NULL };
	struct harness_cmd c;

	setenv("BTS_QEMU_I386", "/nonexistent/qemu-i386", 1);
	ASSERT_EQ(harness_run(argv, 40, &c), 0);
	unsetenv("BTS_QEMU_I386");
	EXPECT_EQ(harness_exit_code(&c), 125);
	EXPECT_STREQ(c.err, "btrace: record: branch source not available "
		     "(qemu-user: /nonexistent/qemu-i386 (BTS_QEMU_I386): No such "
		     "file or directory)\n");
	EXPECT_EQ(c.out_len, 0u);
	EXPECT_NE(access(btr, F_OK), 0);
	harness_cmd_free(&c);
	free(btr);
	free(prog);
	free(btrace);
}
