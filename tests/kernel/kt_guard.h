/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A test that leaves the machine as it found it: no new kernel warning,
 * BUG or oops in the log while it ran, and the module's pinned pages and
 * this process's locked and pinned memory back where they started.  The
 * vcpu tests are written with KT_GUARDED_TEST instead of TEST, so that each
 * one checks this itself, and a failure names the test that caused it.
 */
#ifndef KT_GUARD_H
#define KT_GUARD_H

#include "harness.h"

struct kt_guard {
	int kmsg;	/* /dev/kmsg, positioned at the test's start */
	long pinned;	/* the module's pinned_pages */
	long vmlck;	/* VmLck of this process, kB */
	long vmpin;	/* VmPin of this process, kB */
};

void kt_guard_begin(struct kt_guard *g);
/* Reports, as failures of the running test, whatever did not come back. */
void kt_guard_end(struct kt_guard *g);

#define KT_GUARDED_TEST(suite, name)					\
	static void suite##__##name##__body(void);			\
	TEST(suite, name)						\
	{								\
		struct kt_guard __g;					\
									\
		kt_guard_begin(&__g);					\
		suite##__##name##__body();				\
		kt_guard_end(&__g);					\
	}								\
	static void suite##__##name##__body(void)

#endif /* KT_GUARD_H */
