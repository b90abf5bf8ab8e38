/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrace selftest: the machine's branch sources on a fixed workload,
 * compared record for record.
 *
 *   machine.c   what a bug report needs to know of the machine
 *   workload.c  the workloads, in a child of btrace, whose branches do not
 *               depend on timing
 *   run.c       one workload recorded by one source, into memory
 */
#ifndef BTRACE_SELFTEST_H
#define BTRACE_SELFTEST_H

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
};
/*
 * @w run in a child of this process, recorded by @source from a point
 * before its entry to its exit; its records from the one entering it on,
 * but the asynchronous ones, into @out.  0, or -1 with @out->err set.
 */
int selftest_record(const struct selftest_workload *w, int source,
		    struct selftest_trace *out);
void selftest_trace_free(struct selftest_trace *t);

#endif /* BTRACE_SELFTEST_H */
