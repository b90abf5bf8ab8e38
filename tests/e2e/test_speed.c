// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptrace-step's branch stops (libbts/sources/ptrace-step/step_fast.c) against its single-step
 * reference (BTS_STEP_MODE=single): speed-forms holds one of each branch
 * form the tracer carries out itself; its records are written out by hand
 * below, and both modes must give exactly the same records for the whole
 * run (the program's loader and libc included) with address-space
 * randomisation off.  Its children must meet no breakpoint of ours.
 */
#include <stdlib.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"
#include "trace_kinds.h"

/* From the call in main that enters speed_run to the return into main. */
static const struct raw_pair speed_records[] = {
	{ "main_call", "speed_run" },
	{ "speed_jz_taken", "speed_after_jz" },
	/* speed_jz_not falls through */
	{ "speed_loop", "speed_loop_top" },
	{ "speed_loop", "speed_loop_top" },
	{ "speed_loope", "speed_loope_top" },
	{ "speed_loopne", "speed_loopne_top" },
	{ "speed_jrcxz_taken", "speed_after_jrcxz" },
	/* speed_jrcxz_not falls through */
	{ "speed_jecxz_taken", "speed_after_jecxz" },
	{ "speed_call_rel", "speed_leaf" },
	{ "speed_leaf_ret", "speed_after_call_rel" },
	{ "speed_call_mem", "speed_leaf" },
	{ "speed_leaf_ret", "speed_after_call_mem" },
	{ "speed_call_rsp", "speed_leaf" },
	{ "speed_leaf_ret", "speed_after_call_rsp" },
	{ "speed_call_reg", "speed_leaf" },
	{ "speed_leaf_ret", "speed_after_call_reg" },
	{ "speed_call_fs", "speed_leaf" },
	{ "speed_leaf_ret", "speed_after_call_fs" },
	{ "speed_jmp_table", "speed_case1" },
	{ "speed_jmp_reg", "speed_after_jmp_reg" },
	{ "speed_call_ret16", "speed_ret16" },
	{ "speed_ret16_ret", "speed_after_ret16" },
	/* a call into a jmp: two branches, no instruction between */
	{ "speed_call_stub", "speed_stub" },
	{ "speed_stub", "speed_leaf" },
	{ "speed_leaf_ret", "speed_after_stub" },
	/* rep stos, rep movs, getpid: nothing; kill: SIGUSR1 at its return */
	{ "speed_after_kill", "speed_usr1_handler" },
	{ "speed_usr1_ret", "speed_restorer" },
	{ "speed_restorer_syscall", "speed_after_kill" },
	/* the program's own int3: its SIGTRAP, the pc already past it */
	{ "speed_after_int3", "speed_trap_handler" },
	{ "speed_trap_ret", "speed_restorer" },
	{ "speed_restorer_syscall", "speed_after_int3" },
};
#define NFIRST (sizeof(speed_records) / sizeof(speed_records[0]))
#define NCOUNT 99	/* speed_count_jnz -> speed_count_top */
#define NSPEED (NFIRST + NCOUNT + 1)

/* Records of speed_records that are asynchronous, by index. */
static int expected_kind(size_t i)
{
	switch (i) {
	case 25: case 28:
		return PTBTS_KIND_SIGNAL;
	case 27: case 30:
		return PTBTS_KIND_SIGRETURN;
	default:
		return PTBTS_KIND_BRANCH;
	}
}

struct run {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_dump dump;
};

/* Records speed-forms in @mode ("single" or "branch", the same length). */
static void record_mode(const char *mode, bool no_aslr, struct run *r)
{
	unsigned long persona = 0;

	ASSERT_EQ(setenv("BTS_STEP_MODE", mode, 1), 0);
	if (no_aslr)
		persona = harness_aslr_off();
	r->btr = raw_record("speed-forms", NULL, 0, &r->cmd);
	if (no_aslr)
		harness_aslr_restore(persona);
	unsetenv("BTS_STEP_MODE");
	raw_labels_parse(r->cmd.out, &r->labels);
	raw_dump_load(r->btr, &r->dump);
	ASSERT_EQ(r->dump.n, (size_t)1);
}

static void free_run(struct run *r)
{
	raw_dump_free(&r->dump);
	raw_labels_free(&r->labels);
	harness_cmd_free(&r->cmd);
	free(r->btr);
}

/* Every form, record for record, as the program's labels say. */
static void expect_forms(struct run *r, const char *mode)
{
	const struct raw_thread *t = &r->dump.threads[0];
	struct raw_pair want[NSPEED];
	size_t start, i;
	uint64_t call;

	EXPECT_EQ(raw_count_markers(t, "gap"), (size_t)0);
	EXPECT_EQ(raw_count_markers(t, "lost"), (size_t)0);
	start = raw_find_one(t, 0, raw_label(&r->labels, "speed_run"));
	call = t->recs[start].from;
	raw_labels_add(&r->labels, "main_call", call);
	raw_labels_add(&r->labels, "main_resume", call + 5);
	memcpy(want, speed_records, sizeof(speed_records));
	for (i = NFIRST; i < NFIRST + NCOUNT; i++)
		want[i] = (struct raw_pair){ "speed_count_jnz", "speed_count_top" };
	want[i] = (struct raw_pair){ "speed_run_ret", "main_resume" };
	raw_expect_seq(mode, &r->labels, t->recs + start,
		       t->n - start < NSPEED ? t->n - start : NSPEED,
		       want, NSPEED);
	raw_expect_no_marker(t, start, start + NSPEED - 1);
	expect_trace_kinds(r->btr, &(struct trace_kinds){
		.what = "speed_run", .start = start, .n = NFIRST,
		.kind = expected_kind });
	/* Nothing recorded inside rep stos / rep movs / the syscalls. */
	for (i = 0; i < t->n; i++) {
		uint64_t lo = raw_label(&r->labels, "speed_rep_stos");
		uint64_t hi = raw_label(&r->labels, "speed_after_kill");

		if (t->recs[i].from >= lo && t->recs[i].from < hi)
			FAIL("record %zu starts at 0x%llx, between rep stos and the kill",
			     i, (unsigned long long)t->recs[i].from);
	}
}

TEST(speed, every_form_exact_with_branch_stops)
{
	struct run r;

	record_mode("branch", false, &r);
	expect_forms(&r, "branch stops");
	free_run(&r);
}

/*
 * The whole run, loader and libc included, children made and reaped:
 * branch stops and single steps give the same records, one for one.
 */
TEST(speed, branch_stops_equal_single_steps)
{
	struct run single, branch;

	record_mode("single", true, &single);
	expect_forms(&single, "single steps");
	record_mode("branch", true, &branch);
	EXPECT_GT(single.dump.threads[0].n, (size_t)10000);
	raw_expect_same_thread(&single.dump.threads[0], "single-step",
			       &branch.dump.threads[0], "branch stops");
	free_run(&single);
	free_run(&branch);
}

static bool in_page(uint64_t page, uint64_t a)
{
	return a >= page && a < page + 4096;
}

/*
 * Code rewritten between runs: every record is one the program made, in
 * order; where the tracer cannot vouch for a block it writes a gap marker
 * instead, never a wrong record.
 */
TEST(speed, rewritten_code_never_gives_a_wrong_record)
{
	static const struct raw_pair want[] = {
		{ "jit_site", "jit" },
		{ "jit_ret_a", "jit_back" },
		{ "jit_site", "jit" },
		{ "jit_jz", "jit_mov" },
		{ "jit_ret_b", "jit_back" },
		{ "jit_site", "jit" },
		{ "jit_jz", "jit_mov" },
		{ "jit_ret_b", "jit_back" },
	};
	const struct raw_thread *t;
	struct raw_rec got[8];
	struct harness_cmd cmd;
	struct raw_labels l;
	struct raw_dump d;
	size_t i, n = 0;
	uint64_t jit;
	char *btr;

	btr = raw_record("speed-jit", NULL, 0, &cmd);
	raw_labels_parse(cmd.out, &l);
	jit = raw_label(&l, "jit");
	raw_labels_add(&l, "jit_ret_a", jit + 5);
	raw_labels_add(&l, "jit_jz", jit + 2);
	raw_labels_add(&l, "jit_mov", jit + 5);
	raw_labels_add(&l, "jit_ret_b", jit + 10);
	raw_dump_load(btr, &d);
	ASSERT_EQ(d.n, (size_t)1);
	t = &d.threads[0];
	/* The records that enter or leave the page, in order. */
	for (i = 0; i < t->n && n < 8; i++)
		if (in_page(jit, t->recs[i].from) || in_page(jit, t->recs[i].to))
			got[n++] = t->recs[i];
	raw_expect_seq("jit", &l, got, n, want, 8);
	/* Markers there may be, but only gaps. */
	for (i = 0; i < t->nmarkers; i++)
		if (strncmp(t->markers[i], "gap", 3))
			FAIL("marker '%s' in the trace", t->markers[i]);
	raw_dump_free(&d);
	raw_labels_free(&l);
	harness_cmd_free(&cmd);
	free(btr);
}
