// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptrace-step's branch stops for i386 programs: the tracer
 * carries out 32-bit branches itself (4-byte return addresses, %ecx
 * counts, a %gs segment of the program's own) and must give exactly the
 * records of its single-step reference (BTS_STEP_MODE=single).
 * i386-forms holds one of each form; its whole run is written out by hand
 * below, and it reports the byte its own read finds at one branch site:
 * 0xcc under branch stops (the int3 is there, so the run did not fall
 * back to single steps), the jnz's own 0x75 under single steps.  i386-dyn
 * (the loader, the i386 libc and the vDSO's sysenter included) gives the
 * same records in both modes, one for one, with randomisation off.  The
 * oracle (tests/oracle/test_oracle32.c) checks the branch stops against
 * qemu-i386.  Threads (each worker's records), code mapped anew where
 * int3s were, and a core dump after branch stops are checked as for
 * 64-bit programs.
 */
#include <stdlib.h>
#include <sys/personality.h>

#include <bts.h>

#include "core_dump.h"
#include "harness.h"
#include "raw_dump.h"
#include "trace_kinds.h"

static const struct raw_pair forms_records[] = {
	{ "call_sig1", "sigaction" },
	{ "sigaction_ret", "after_sig1" },
	{ "call_sig2", "sigaction" },
	{ "sigaction_ret", "after_sig2" },
	{ "main_call", "forms_run" },
	{ "jz_taken", "after_jz" },
	/* jz_not falls through */
	{ "loop_back", "loop_top" },
	{ "loop_back", "loop_top" },
	{ "loope_back", "loope_top" },
	{ "loopne_back", "loopne_top" },
	{ "jecxz_taken", "after_jecxz" },
	/* jecxz_not falls through; jcxz (0x67) is stepped for real */
	{ "jcxz_taken", "after_jcxz" },
	{ "call_rel", "leaf" },
	{ "leaf_ret", "after_call_rel" },
	{ "call_mem", "leaf" },
	{ "leaf_ret", "after_call_mem" },
	{ "call_esp", "leaf" },
	{ "leaf_ret", "after_call_esp" },
	{ "call_reg", "leaf" },
	{ "leaf_ret", "after_call_reg" },
	{ "call_gs", "leaf" },
	{ "leaf_ret", "after_call_gs" },
	{ "jmp_table", "case1" },
	{ "jmp_reg", "after_jmp_reg" },
	{ "call_ret4", "ret4" },
	{ "ret4_ret", "after_ret4" },
	/* a call into a jmp: two branches, no instruction between */
	{ "call_stub", "stub" },
	{ "stub", "leaf" },
	{ "leaf_ret", "after_stub" },
	/* rep stos, rep movs, int $0x80 (getpid): nothing; then the kill */
	{ "after_kill", "usr1_handler" },
	{ "usr1_ret", "restorer" },
	{ "restorer_int", "after_kill" },
	/* the program's own int3: its SIGTRAP, the pc already past it */
	{ "after_int3", "trap_handler" },
	{ "trap_ret", "restorer" },
	{ "restorer_int", "after_int3" },
};
#define NFIRST (sizeof(forms_records) / sizeof(forms_records[0]))
#define NCOUNT 99	/* count_jnz -> count_top */
#define NPRINT 7	/* print_site_loop -> print_site_top */
#define NFORMS (NFIRST + NCOUNT + 1 + 1 + NPRINT + 1)

/* The asynchronous records of forms_records, by index; the rest are branches. */
static int forms_kind(size_t i)
{
	static const uint8_t kinds[NFIRST] = {
		[29] = PTBTS_KIND_SIGNAL, [31] = PTBTS_KIND_SIGRETURN,
		[32] = PTBTS_KIND_SIGNAL, [34] = PTBTS_KIND_SIGRETURN,
	};

	return i < NFIRST ? kinds[i] : PTBTS_KIND_BRANCH;
}

struct run {
	char *btr;
	struct harness_cmd cmd;
	struct raw_dump dump;
};

/* Records @prog with BTS_STEP_MODE=@mode ("single" or "branch"). */
static void record_mode(const char *prog, const char *mode, bool no_aslr,
			struct run *r)
{
	int persona = personality(0xffffffff);

	ASSERT_GE(persona, 0);
	ASSERT_EQ(setenv("BTS_STEP_MODE", mode, 1), 0);
	if (no_aslr)
		personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
	r->btr = raw_record(prog, NULL, 0, &r->cmd);
	personality((unsigned long)persona);
	unsetenv("BTS_STEP_MODE");
	raw_dump_load(r->btr, &r->dump);
	ASSERT_GE(r->dump.n, (size_t)1);
}

static void free_run(struct run *r)
{
	raw_dump_free(&r->dump);
	harness_cmd_free(&r->cmd);
	free(r->btr);
}

/* i386-forms in @mode: every record of the run, and the site's byte. */
static void expect_forms(const char *mode, uint64_t site_byte)
{
	char *prog = PROG_PATH("i386-forms");
	struct raw_pair want[NFORMS];
	struct raw_labels l, printed;
	const struct raw_thread *t;
	struct run r;
	size_t i = NFIRST;

	record_mode("i386-forms", mode, false, &r);
	raw_labels_parse(r.cmd.out, &printed);
	EXPECT_EQ(raw_label(&printed, "site_byte"), site_byte);
	raw_labels_from_elf(prog, &l);
	ASSERT_EQ(r.dump.n, (size_t)1);
	t = &r.dump.threads[0];
	EXPECT_EQ(t->nmarkers, (size_t)0);
	memcpy(want, forms_records, sizeof(forms_records));
	for (size_t k = 0; k < NCOUNT; k++)
		want[i++] = (struct raw_pair){ "count_jnz", "count_top" };
	want[i++] = (struct raw_pair){ "run_ret", "main_resume" };
	want[i++] = (struct raw_pair){ "call_print", "print_site" };
	for (size_t k = 0; k < NPRINT; k++)
		want[i++] = (struct raw_pair){ "print_site_loop", "print_site_top" };
	want[i++] = (struct raw_pair){ "print_site_ret", "after_print" };
	ASSERT_EQ(i, NFORMS);
	raw_expect_seq(mode, &l, t->recs, t->n, want, NFORMS);
	expect_trace_kinds(r.btr, &(struct trace_kinds){
		.what = "i386-forms", .n = NFORMS, .kind = forms_kind,
		.exact = true, .bits = 32 });
	raw_labels_free(&printed);
	raw_labels_free(&l);
	free_run(&r);
	free(prog);
}

TEST(i386_fast, every_form_exact_with_branch_stops)
{
	REQUIRE_I386();
	expect_forms("branch", 0xcc);
}

TEST(i386_fast, every_form_exact_with_single_steps)
{
	REQUIRE_I386();
	expect_forms("single", 0x75);
}

/*
 * @prog in both modes with randomisation off: the same records and
 * markers, one for one, and the same output, @out when given.
 */
static void expect_modes_equal(const char *prog, const char *out,
			       struct run *single, struct run *branch)
{
	record_mode(prog, "single", true, single);
	record_mode(prog, "branch", true, branch);
	ASSERT_EQ(single->dump.n, (size_t)1);
	ASSERT_EQ(branch->dump.n, (size_t)1);
	EXPECT_STREQ(branch->cmd.out, single->cmd.out);
	if (out)
		EXPECT_STREQ(branch->cmd.out, out);
	raw_expect_same_thread(&single->dump.threads[0], "single-step",
			       &branch->dump.threads[0], "branch stops");
}

/*
 * A dynamic i386 program, whole: ld.so, the i386 libc, its calls of
 * __kernel_vsyscall through %gs:0x10.
 */
TEST(i386_fast, libc_program_branch_stops_equal_single_steps)
{
	struct run single, branch;

	REQUIRE_I386();

	expect_modes_equal("i386-dyn", "i386-dyn 123456\n", &single, &branch);
	EXPECT_GT(branch.dump.threads[0].n, (size_t)10000);
	free_run(&single);
	free_run(&branch);
}

/*
 * Code replaced where int3s of branch stops were (the old mmap, munmap and
 * mmap2 of i386): every record as single steps give it, and no gap.
 */
TEST(i386_fast, remapped_code_exact)
{
	struct run single, branch;

	REQUIRE_I386();

	expect_modes_equal("i386-remap", "", &single, &branch);
	/* 3 calls of the page: 4 + 3 + 5 records, and 11 in _start's code */
	EXPECT_EQ(branch.dump.threads[0].n, (size_t)23);
	EXPECT_EQ(branch.dump.threads[0].nmarkers, (size_t)0);
	free_run(&single);
	free_run(&branch);
}

/* The thread of @d whose record count is @n, or NULL. */
static const struct raw_thread *thread_of_count(const struct raw_dump *d, size_t n)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->threads[i].n == n)
			return &d->threads[i];
	return NULL;
}

/*
 * Threads of an i386 program (clone through the vDSO, a %gs TLS of each):
 * every worker's records as single steps give them.  The main thread's
 * own depend on when pthread_join finds each worker done: not compared.
 */
TEST(i386_fast, thread_records_equal_single_steps)
{
	const struct raw_thread *a, *b;
	struct run single, branch;
	size_t workers = 0;

	REQUIRE_I386();

	record_mode("i386-threads", "single", true, &single);
	record_mode("i386-threads", "branch", true, &branch);
	EXPECT_STREQ(branch.cmd.out, "i386-threads 18001\n");
	ASSERT_EQ(single.dump.n, (size_t)4);
	ASSERT_EQ(branch.dump.n, (size_t)4);
	/* A worker: 2000..2002 loop passes and its start and end; main: ld.so too. */
	for (size_t i = 0; i < 4; i++) {
		a = &single.dump.threads[i];
		if (a->n < 2000 || a->n > 5000)
			continue;
		workers++;
		b = thread_of_count(&branch.dump, a->n);
		if (!b)
			FAIL("no thread of %zu records under branch stops", a->n);
		raw_expect_same_thread(a, "single-step", b, "branch stops");
	}
	EXPECT_EQ(workers, (size_t)3);
	free_run(&single);
	free_run(&branch);
}

/* speed-core built -m32: the int3s were in its code, its core has none. */
TEST(i386_fast, core_dump_shows_no_int3_of_ours)
{
	REQUIRE_I386();
	core_record_expect_clean("i386-core");
}
