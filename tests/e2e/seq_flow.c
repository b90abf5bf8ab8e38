// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seq-flow's expected records (tests/progs/seq-flow*.c/S), for every test
 * that records it: test_seq.c (ptrace-step, the default source) and
 * test_qemu_user.c.
 */
#include <stdlib.h>

#include <bts.h>

#include "harness.h"
#include "seq_flow.h"
#include "trace_kinds.h"

/* From the call in main that enters seq_run to the return into main. */
const struct raw_pair seq_run_records[] = {
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
const size_t seq_run_nrecords = sizeof(seq_run_records) / sizeof(seq_run_records[0]);
#define NSEQ seq_run_nrecords

/* Records of seq_run_records that are asynchronous, by index. */
int seq_run_kind(size_t i)
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

/*
 * The thread that ran seq_run: the only one with records (under qemu-user,
 * QEMU's own thread shows none).
 */
static size_t flow_thread(const struct raw_dump *d)
{
	size_t i, found = d->n;

	for (i = 0; i < d->n; i++) {
		if (!d->threads[i].n)
			continue;
		if (found != d->n)
			FAIL("more than one thread with records");
		found = i;
	}
	if (found == d->n)
		FAIL("no thread with records");
	return found;
}

void record_flow_with(struct flow *f, const char *const opts[])
{
	uint64_t main_addr, call;

	f->btr = raw_record("seq-flow", opts, 0, &f->cmd);
	raw_labels_parse(f->cmd.out, &f->labels);
	raw_dump_load(f->btr, &f->dump);
	f->ti = flow_thread(&f->dump);
	f->t = &f->dump.threads[f->ti];
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

void record_flow(struct flow *f)
{
	record_flow_with(f, NULL);
	ASSERT_EQ(f->dump.n, (size_t)1);
}

void free_flow(struct flow *f)
{
	raw_dump_free(&f->dump);
	raw_labels_free(&f->labels);
	harness_cmd_free(&f->cmd);
	free(f->btr);
}

void expect_seq_run(const struct flow *f)
{
	size_t n = seq_run_nrecords;

	raw_expect_seq("seq_run", &f->labels, f->t->recs + f->start,
		       f->t->n - f->start < n ? f->t->n - f->start : n,
		       seq_run_records, n);
	raw_expect_no_marker(f->t, f->start, f->start + n - 1);
	expect_trace_kinds(f->btr, &(struct trace_kinds){
		.what = "seq_run", .thread = f->ti, .start = f->start,
		.n = NSEQ, .kind = seq_run_kind });
}
