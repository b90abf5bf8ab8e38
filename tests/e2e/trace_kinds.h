/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Record kinds read from a trace file itself: `dump --raw` does not print
 * them, and the exact-sequence tests check them record for record.
 */
#ifndef TRACE_KINDS_H
#define TRACE_KINDS_H

#include <stdbool.h>
#include <stddef.h>

struct trace_kinds {
	const char *what;	/* names the sequence in messages */
	size_t thread;		/* as in bts_trace_thread() */
	size_t start;		/* records (markers not counted) before it */
	size_t n;		/* its records */
	int (*kind)(size_t i);	/* the kind record @i of it must have */
	bool exact;		/* the thread has no record after it */
	unsigned int bits;	/* the process's bitness, 0: not checked */
};

/* Asserts each of the @k->n records from @k->start has @k->kind's kind. */
void expect_trace_kinds(const char *btr, const struct trace_kinds *k);

#endif /* TRACE_KINDS_H */
