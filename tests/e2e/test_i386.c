// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * 32-bit (i386) programs on the 64-bit kernel: btrace
 * records i386-sys (tests/progs/i386-sys.S) with ptrace-step, and its
 * records must be exactly those written out below, with their kinds: int
 * $0x80, a call of the vDSO's __kernel_vsyscall (sysenter or syscall,
 * which returns past the int $0x80 after it: no record), and three
 * signals whose handlers return through rt_sigreturn and sigreturn of the
 * program's own restorers and through the vDSO's __kernel_rt_sigreturn.
 * dump --calls and --insns name and decode the code as 32-bit code.
 */
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"

static const struct raw_pair sys_records[] = {
	{ "main_call", "main" },
	/* int $0x80 (getpid): nothing */
	{ "call_vsys", "kernel_vsyscall" },
	{ "vsys_ret", "after_vsys" },
	/* rt frame, our restorer: rt_sigreturn */
	{ "after_kill1", "usr_handler" },
	{ "usr_ret", "rt_restorer" },
	{ "rt_restorer_int", "after_kill1" },
	/* old frame, our restorer: sigreturn */
	{ "after_kill2", "usr_handler" },
	{ "usr_ret", "old_restorer" },
	{ "old_restorer_int", "after_kill2" },
	/* rt frame, the vDSO's restorer */
	{ "after_kill3", "usr_handler" },
	{ "usr_ret", "vdso_rt_sigreturn" },
	{ "vdso_rt_sigreturn_int", "after_kill3" },
	{ "main_ret", "main_resume" },
};
#define NSYS (sizeof(sys_records) / sizeof(sys_records[0]))

static int sys_kind(size_t i)
{
	switch (i) {
	case 3: case 6: case 9:
		return PTBTS_KIND_SIGNAL;
	case 5: case 8: case 11:
		return PTBTS_KIND_SIGRETURN;
	default:
		return PTBTS_KIND_BRANCH;
	}
}

struct sys_run {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_dump dump;
	const struct raw_thread *t;
	size_t start;
};

/*
 * Records i386-sys.  Its labels are its symbols (not PIE); the vDSO's come
 * from the records themselves, each checked to lie where it must.
 */
static void record_sys(struct sys_run *r)
{
	char *prog = PROG_PATH("i386-sys");
	struct raw_labels printed;
	uint64_t vsys, ret_from, rt;

	r->btr = raw_record("i386-sys", NULL, 0, &r->cmd);
	raw_labels_from_elf(prog, &r->labels);
	raw_labels_parse(r->cmd.out, &printed);
	raw_labels_add(&r->labels, "kernel_vsyscall",
		       raw_label(&printed, "kernel_vsyscall"));
	raw_labels_free(&printed);
	raw_dump_load(r->btr, &r->dump);
	ASSERT_EQ(r->dump.n, (size_t)1);
	r->t = &r->dump.threads[0];
	EXPECT_EQ(r->t->nmarkers, (size_t)0);
	r->start = raw_find_one(r->t, raw_label(&r->labels, "main_call"),
				raw_label(&r->labels, "main"));
	/* Nothing after the return into _start: it exits by int $0x80. */
	ASSERT_EQ(r->t->n, r->start + NSYS);
	vsys = raw_label(&r->labels, "kernel_vsyscall");
	/* 32-bit code on the 64-bit kernel: the vDSO lies below 4 GiB. */
	ASSERT_LT(vsys, (uint64_t)1 << 32);
	ret_from = r->t->recs[r->start + 2].from;
	ASSERT_GT(ret_from, vsys);
	ASSERT_LT(ret_from, vsys + 32);		/* its ret */
	raw_labels_add(&r->labels, "vsys_ret", ret_from);
	rt = r->t->recs[r->start + 10].to;
	ASSERT_LT(rt, (uint64_t)1 << 32);
	raw_labels_add(&r->labels, "vdso_rt_sigreturn", rt);
	/* mov $173, %eax (5 bytes), then int $0x80 */
	raw_labels_add(&r->labels, "vdso_rt_sigreturn_int", rt + 5);
	free(prog);
}

static void free_sys(struct sys_run *r)
{
	raw_dump_free(&r->dump);
	raw_labels_free(&r->labels);
	harness_cmd_free(&r->cmd);
	free(r->btr);
}

static void expect_sys_kinds(const char *btr, size_t start)
{
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	size_t b = 0;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)1);
	EXPECT_EQ(bts_trace_process_bits(t, bts_trace_process(t, 0)->pid), 32);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	while (bts_rec_iter_next(it, &rec) > 0) {
		int kind = bts_record_kind(&rec);

		if (!rec.from || b++ < start)
			continue;
		if (kind != sys_kind(b - 1 - start))
			harness_fail(__FILE__, __LINE__, "record %zu: kind %s, "
				     "expected %s", b - 1 - start,
				     bts_kind_name(kind),
				     bts_kind_name(sys_kind(b - 1 - start)));
	}
	EXPECT_EQ(b, start + NSYS);
	bts_trace_free(t);
	bts_rec_iter_free(it);
}

TEST(i386, sys_exact_sequence)
{
	struct sys_run r;

	REQUIRE_I386();

	record_sys(&r);
	EXPECT_STREQ(strchr(r.cmd.out, '\n'), "\n");
	raw_expect_seq("i386-sys main", &r.labels, r.t->recs + r.start, NSYS,
		       sys_records, NSYS);
	expect_sys_kinds(r.btr, r.start);
	free_sys(&r);
}

/* i386-sys's functions as dump --calls shows them, in order. */
#define SYS_CALLS "_start print_vsys _start main __kernel_vsyscall main " \
		  "usr_handler rt_restorer main usr_handler old_restorer " \
		  "main usr_handler __kernel_rt_sigreturn main _start "

/* The function column of dump --calls, one name a line. */
static void calls_names(const char *out, char *buf, size_t len)
{
	const char *p = strchr(out, '\n');	/* past "thread ..." */
	size_t n = 0;

	buf[0] = '\0';
	while (p && *++p) {
		const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');

		if (!tab || !nl || tab > nl)
			break;
		n += snprintf(buf + n, len - n, "%.*s ", (int)(nl - tab - 1), tab + 1);
		if (n >= len)
			FAIL("dump --calls: too long");
		p = nl;
	}
}

TEST(i386, calls_name_the_vdso_and_decode_32bit)
{
	struct sys_run r;
	char names[1024];
	char *calls;

	REQUIRE_I386();

	record_sys(&r);
	calls = raw_dump_view(r.btr, "--calls");
	calls_names(calls, names, sizeof(names));
	/* No decode error: every record's path decodes as 32-bit code. */
	EXPECT_STREQ(names, SYS_CALLS);
	free(calls);
	free_sys(&r);
}

TEST(i386, insns_in_32bit_mode)
{
	struct sys_run r;
	char want[128];
	char *insns;

	REQUIRE_I386();

	record_sys(&r);
	insns = raw_dump_view(r.btr, "--insns");
	/* 0x58 is pop %eax, not a REX prefix; 0x4? are inc/dec. */
	snprintf(want, sizeof(want), "0x%016llx <old_restorer+0>:\tpop    %%eax\n",
		 (unsigned long long)raw_label(&r.labels, "old_restorer"));
	EXPECT_TRUE(strstr(insns, want) != NULL);
	snprintf(want, sizeof(want), "0x%016llx <print_vsys+24>:\tdec    %%edi\n",
		 (unsigned long long)raw_label(&r.labels, "print_vsys") + 24);
	EXPECT_TRUE(strstr(insns, want) != NULL);
	snprintf(want, sizeof(want), "0x%016llx <__kernel_rt_sigreturn+5>:\tint    $0x80\n",
		 (unsigned long long)raw_label(&r.labels, "vdso_rt_sigreturn_int"));
	EXPECT_TRUE(strstr(insns, want) != NULL);
	EXPECT_TRUE(strstr(insns, "error") == NULL);
	EXPECT_TRUE(strstr(insns, "gap") == NULL);
	free(insns);
	free_sys(&r);
}

/* Records @argv (NULL-ended) into DIR/@name; asserts exit @want_exit. */
static char *record_argv(const char *name, char *const argv[], int want_exit)
{
	char *btrace = BTRACE_PATH(), *btr = harness_path(harness_tmpdir(), name);
	char *rargv[16] = { btrace, "record", "-o", btr, "--no-follow", "--" };
	struct harness_cmd cmd;
	size_t n = 6;

	for (size_t i = 0; argv[i] && n < 15; i++)
		rargv[n++] = argv[i];
	rargv[n] = NULL;
	ASSERT_EQ(harness_run(rargv, 60, &cmd), 0);
	if (harness_exit_code(&cmd) != want_exit)
		FAIL("btrace record exited with %d, expected %d: %s",
		     harness_exit_code(&cmd), want_exit, cmd.err);
	harness_cmd_free(&cmd);
	free(btrace);
	return btr;
}

static int main_bits(const char *btr)
{
	struct bts_trace *t;
	int bits;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nprocesses(t), (size_t)1);
	bits = bts_trace_process_bits(t, bts_trace_process(t, 0)->pid);
	bts_trace_free(t);
	return bits;
}

/* A 64-bit shell execs i386-sys: from the exec on, 32-bit code. */
TEST(i386, exec_from_64bit)
{
	char *prog, *cmdline, *btr, *calls, *after;
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	char names[1024];

	REQUIRE_I386();
	prog = PROG_PATH("i386-sys");
	ASSERT_TRUE(asprintf(&cmdline, "exec %s", prog) > 0);
	argv[2] = cmdline;
	btr = record_argv("exec64.btr", argv, 0);
	EXPECT_EQ(main_bits(btr), 32);
	calls = raw_dump_view(btr, "--calls");
	after = strstr(calls, "exec, entry ");
	ASSERT_TRUE(after != NULL);
	/* After the exec marker's line: i386-sys, as in the test above. */
	calls_names(after, names, sizeof(names));
	EXPECT_STREQ(names, SYS_CALLS);
	free(calls);
	free(btr);
	free(cmdline);
	free(prog);
}

/* i386-exec execs the 64-bit cli-exit: the process is 64-bit again. */
TEST(i386, exec_to_64bit)
{
	char *self, *prog, *btr;
	struct raw_dump d;

	REQUIRE_I386();
	self = PROG_PATH("i386-exec");
	prog = PROG_PATH("cli-exit");
	char *argv[] = { self, prog, "7", NULL };

	btr = record_argv("exec32.btr", argv, 7);

	EXPECT_EQ(main_bits(btr), 64);
	raw_dump_load(btr, &d);
	ASSERT_EQ(d.n, (size_t)1);
	EXPECT_EQ(raw_count_markers(&d.threads[0], "exec"), (size_t)1);
	EXPECT_EQ(raw_count_markers(&d.threads[0], "gap"), (size_t)0);
	raw_dump_free(&d);
	free(btr);
	free(prog);
	free(self);
}
