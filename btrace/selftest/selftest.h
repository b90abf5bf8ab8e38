/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrace selftest: the machine's branch sources on a fixed workload,
 * compared record for record.
 *
 *   machine.c   what a bug report needs to know of the machine
 *   workload.c  the workloads, in a child of btrace, whose branches do not
 *               depend on timing
 *   run.c       one workload recorded by one source, into memory
 *   compare.c   the report's verdicts
 */
#ifndef BTRACE_SELFTEST_H
#define BTRACE_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <bts.h>

/* machine.c: "name  value" lines of the machine's facts, to @f. */
void selftest_machine(FILE *f);

/* workload.c */
struct selftest_workload {
	const char *name;
	void (*run)(void);	/* its first record is the call of it */
};
extern const struct selftest_workload selftest_workloads[];
extern const size_t selftest_nworkloads;

/* run.c */
struct selftest_trace {
	struct ptbts_record *rec;	/* the workload's branch records */
	size_t n;
	size_t async;			/* signal and sigreturn records left out */
	char err[320];			/* when the recording failed */
	/*
	 * kmod-pebs: its samples' IPs (@exact: the eventing instructions',
	 * else those after them), how many it lost, and every branch
	 * record of the thread (its workload's and what came before).
	 */
	uint64_t *samples;
	size_t nsamples;
	bool exact;
	uint64_t lost_samples;
	struct ptbts_record *all;
	size_t nall;
};

/*
 * What kmod-pebs samples in the selftest: BR_INST_RETIRED.NEAR_TAKEN,
 * whose events are the thread's branch records one for one, every
 * SELFTEST_PEBS_PERIOD of them.
 */
#define SELFTEST_PEBS_EVENT	0x20c4ULL
#define SELFTEST_PEBS_PERIOD	7
/*
 * @w run in a child of this process, recorded by @source from a point
 * before its entry to its exit; its records from the one entering it on,
 * but the asynchronous ones, into @out.  0, or -1 with @out->err set.
 */
int selftest_record(const struct selftest_workload *w, int source,
		    struct selftest_trace *out);
void selftest_trace_free(struct selftest_trace *t);

/* compare.c */
/*
 * @got (by source @name) against @ref (by @ref_name), record for record:
 * one line of the report to @f, "WORK NAME agrees (N records)" or "WORK
 * NAME differs at record I of N (M): {FROM, TO, FLAGS} where REF has
 * {...}" ({the end} past a trace's last record).  0 when they agree, 1
 * when not.
 */
int selftest_compare(FILE *f, const char *work, const char *name,
		     const char *ref_name, const struct selftest_trace *got,
		     const struct selftest_trace *ref);
/*
 * The report's last line for @failed of @total comparisons, to @f; the
 * exit status: 0 when nothing failed, EXIT_FAILED (1) otherwise.
 */
int selftest_result(FILE *f, int failed, int total);
/*
 * kmod-pebs's samples of @t against its branch records, as the period
 * rule wants them: sample k at branch record (k + 1) * @period - 1 (its
 * 'from', or for an IP that is not exact its 'to'), and branches /
 * @period samples, none lost.  One line to @f, "WORK kmod-pebs PEBS ...";
 * 0 when they keep the rule, 1 when not.
 */
int selftest_check_pebs(FILE *f, const char *work,
			const struct selftest_trace *t, uint64_t period);

#endif /* BTRACE_SELFTEST_H */
