/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seq-flow's expected records (seq_flow.c), shared by the tests that
 * record it with different sources.
 */
#ifndef SEQ_FLOW_H
#define SEQ_FLOW_H

#include "raw_dump.h"

/* From the call in main that enters seq_run to the return into main. */
extern const struct raw_pair seq_run_records[];
extern const size_t seq_run_nrecords;
/* The &enum ptbts_kind of seq_run_records[@i]. */
int seq_run_kind(size_t i);

struct flow {
	char *btr;
	struct harness_cmd cmd;
	struct raw_labels labels;
	struct raw_dump dump;
	const struct raw_thread *t;
	size_t ti;		/* the thread that ran it, in the dump and file */
	size_t start;		/* index of {main_call -> seq_run} */
};

/*
 * Records seq-flow (btrace record @opts..., NULL: the defaults) and finds
 * the call into seq_run.  The call in main is C code: its address comes
 * from the trace, checked to lie in main, and the return lands right
 * after it (a direct call is 5 bytes).
 */
void record_flow_with(struct flow *f, const char *const opts[]);
void record_flow(struct flow *f);
void free_flow(struct flow *f);
/*
 * seq_run's records are seq_run_records exactly, with no marker among
 * them, and of their kinds (read from the file: --raw does not print
 * them).
 */
void expect_seq_run(const struct flow *f);

#endif /* SEQ_FLOW_H */
