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
#include "seq_flow.h"

TEST(seq, exact_sequence)
{
	struct flow f;

	record_flow(&f);
	expect_seq_run(&f);
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
