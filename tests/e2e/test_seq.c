// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exact sequences: btrace records seq-flow (tests/progs/seq-flow*.c/S), and
 * the records of seq_run must be exactly the ones written out below from
 * the program's labels, in order, with the right kinds: a loop over a jump
 * table, conditional branches, indirect calls through a register and
 * through memory, a tail call, rep string instructions, and two signals
 * whose handlers return through libc's restorer.
 */
#include <stdlib.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"

/* From the call in main that enters seq_run to the return into main. */
static const struct raw_pair seq_run_records[] = {
	{ "main_call", "seq_run" },
	/* round 0 of the loop: case 0 jumps to the shared return */
	{ "seq_call_switch", "seq_switch" },
	{ "seq_switch_jmp", "seq_case0" },
	{ "seq_case0_jmp", "seq_switch_out" },
	{ "seq_switch_out", "seq_after_switch" },
	{ "seq_loop_jb", "seq_loop" },
	/* round 1: case 1 */
	{ "seq_call_switch", "seq_switch" },
	{ "seq_switch_jmp", "seq_case1" },
	{ "seq_case1_jmp", "seq_switch_out" },
	{ "seq_switch_out", "seq_after_switch" },
	{ "seq_loop_jb", "seq_loop" },
	/* round 2: case 2 falls through; the loop's jb is not taken */
	{ "seq_call_switch", "seq_switch" },
	{ "seq_switch_jmp", "seq_case2" },
	{ "seq_switch_out", "seq_after_switch" },
	/* seq_jz_not_taken falls through: no record; the je is taken */
	{ "seq_je_taken", "seq_skip" },
	/* call *%rax */
	{ "seq_call_reg", "seq_leaf" },
	{ "seq_leaf_ret", "seq_after_call_reg" },
	/* call *seq_fptr(%rip), which tail-calls with a jmp */
	{ "seq_call_mem", "seq_tail_caller" },
	{ "seq_tail_jmp", "seq_tail_callee" },
	{ "seq_tail_callee_ret", "seq_after_call_mem" },
	/* rep stosb, rep movsb, two syscalls: nothing; then SIGUSR1 */
	{ "seq_after_kill", "seq_usr1_handler" },
	{ "seq_usr1_ret", "seq_restorer" },
	{ "seq_restorer_syscall", "seq_after_kill" },
	/* ud2 raises SIGILL; the handler skips it */
	{ "seq_ud2", "seq_ill_handler" },
	{ "seq_ill_ret", "seq_restorer" },
	{ "seq_restorer_syscall", "seq_after_ud2" },
	{ "seq_run_ret", "main_resume" },
};
#define NSEQ (sizeof(seq_run_records) / sizeof(seq_run_records[0]))

/* Records of seq_run_records that are asynchronous, by index. */
static int expected_kind(size_t i)
{
	switch (i) {
	case 20: case 23:
		return PTBTS_KIND_SIGNAL;
	case 22: case 25:
		return PTBTS_KIND_SIGRETURN;
	default:
		return PTBTS_KIND_BRANCH;
	}
}

struct flow {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_dump dump;
	const struct raw_thread *t;
	size_t start;		/* index of {main_call -> seq_run} */
};

/*
 * Records seq-flow and finds the call into seq_run.  The call in main is
 * C code: its address comes from the trace, checked to lie in main, and
 * the return lands right after it (a direct call is 5 bytes).
 */
static void record_flow(struct flow *f)
{
	uint64_t main_addr, call;

	f->btr = raw_record("seq-flow", NULL, 0, &f->cmd);
	raw_labels_parse(f->cmd.out, &f->labels);
	raw_dump_load(f->btr, &f->dump);
	ASSERT_EQ(f->dump.n, (size_t)1);
	f->t = &f->dump.threads[0];
	EXPECT_EQ(raw_count_markers(f->t, "lost"), (size_t)0);
	EXPECT_EQ(raw_count_markers(f->t, "gap"), (size_t)0);
	f->start = raw_find_one(f->t, 0, raw_label(&f->labels, "seq_run"));
	call = f->t->recs[f->start].from;
	main_addr = raw_label(&f->labels, "main");
	/* seq-flow.c's code is linked before seq-flow-asm.S's. */
	ASSERT_GT(call, main_addr);
	ASSERT_LT(call, raw_label(&f->labels, "seq_run"));
	raw_labels_add(&f->labels, "main_call", call);
	raw_labels_add(&f->labels, "main_resume", call + 5);
}

static void free_flow(struct flow *f)
{
	raw_dump_free(&f->dump);
	raw_labels_free(&f->labels);
	harness_cmd_free(&f->cmd);
	free(f->btr);
}

/* Kinds come from the trace file itself: --raw does not print them. */
static void expect_kinds(const char *btr, size_t start)
{
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	size_t b = 0;		/* index among non-marker records, as in --raw */

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)1);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	while (b < start + NSEQ && bts_rec_iter_next(it, &rec) > 0) {
		int kind = bts_record_kind(&rec), want;

		if (!rec.from)
			continue;
		if (b++ < start)
			continue;
		want = expected_kind(b - 1 - start);
		if (kind != want)
			harness_fail(__FILE__, __LINE__,
				     "record %zu of seq_run: kind %s, expected %s",
				     b - 1 - start, bts_kind_name(kind),
				     bts_kind_name(want));
	}
	EXPECT_EQ(b, start + NSEQ);
	bts_trace_free(t);
	bts_rec_iter_free(it);
}

TEST(seq, exact_sequence)
{
	struct flow f;

	record_flow(&f);
	raw_expect_seq("seq_run", &f.labels, f.t->recs + f.start,
		       f.t->n - f.start < NSEQ ? f.t->n - f.start : NSEQ,
		       seq_run_records, NSEQ);
	raw_expect_no_marker(f.t, f.start, f.start + NSEQ - 1);
	expect_kinds(f.btr, f.start);
	free_flow(&f);
}

/*
 * 4096 iterations each of rep stosb and rep movsb, and nothing recorded
 * for them: no record starts or ends anywhere from the first rep to the
 * instruction after the second, in any thread.
 */
TEST(seq, rep_string_no_records)
{
	struct flow f;
	uint64_t lo, hi;

	record_flow(&f);
	lo = raw_label(&f.labels, "seq_rep_stosb");
	hi = raw_label(&f.labels, "seq_after_rep");
	ASSERT_TRUE(lo < hi);
	for (size_t i = 0; i < f.t->n; i++) {
		const struct raw_rec *r = &f.t->recs[i];

		if ((r->from >= lo && r->from <= hi) || (r->to >= lo && r->to <= hi))
			FAIL("record %zu 0x%llx -> 0x%llx touches the rep region",
			     i, (unsigned long long)r->from,
			     (unsigned long long)r->to);
	}
	/* The branch before the reps and the signal after them are adjacent. */
	raw_expect_seq("around the reps", &f.labels, f.t->recs + f.start + 19,
		       2, seq_run_records + 19, 2);
	free_flow(&f);
}
