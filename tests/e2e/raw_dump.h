/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for end-to-end tests: run `btrace record`, parse `btrace dump
 * --raw`, the record summary, and the "label NAME 0xADDR" lines that the
 * programs of tests/progs/ print, and compare a thread's records with an
 * expected sequence written as pairs of label names.
 *
 * Every helper fails the running test (ASSERT-style) on bad input.
 */
#ifndef RAW_DUMP_H
#define RAW_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

struct raw_rec {
	uint64_t from;
	uint64_t to;
};

/* One "# thread TID" section of dump --raw. */
struct raw_thread {
	int tid;
	struct raw_rec *recs;	/* branch and asynchronous records, oldest first */
	size_t n;
	char **markers;		/* marker lines, without the leading "# " */
	size_t *marker_pos;	/* records before each marker */
	size_t nmarkers;
	uint64_t lost;		/* sum of the "# lost N" markers */
};

struct raw_dump {
	struct raw_thread *threads;
	size_t n;
};

void raw_dump_parse(const char *text, struct raw_dump *d);
void raw_dump_free(struct raw_dump *d);
/* The section of @tid, or NULL. */
const struct raw_thread *raw_dump_thread(const struct raw_dump *d, int tid);
/*
 * The one thread of @d with records or markers (a qemu-user trace: QEMU's
 * own thread has none), its index into *@index; fails the test when
 * there is not exactly one.
 */
const struct raw_thread *raw_only_thread(const struct raw_dump *d,
					 size_t *index);

/* "btrace: recorded T threads, R records, L lost (SOURCE) to FILE" */
struct raw_summary {
	uint64_t threads;
	uint64_t records;
	uint64_t lost;
};

void raw_summary_parse(const char *err, struct raw_summary *s);

/* The programs' "label NAME 0xADDR" lines; tests may add their own. */
struct raw_labels {
	char **names;
	uint64_t *addrs;
	size_t n;
};

void raw_labels_parse(const char *out, struct raw_labels *l);
/*
 * The named symbols of a non-PIE program's symbol table (its addresses are
 * the run-time ones; absolute symbols give constants).
 */
void raw_labels_from_elf(const char *path, struct raw_labels *l);
void raw_labels_add(struct raw_labels *l, const char *name, uint64_t addr);
/* The address of @name; fails the test when there is no such label. */
uint64_t raw_label(const struct raw_labels *l, const char *name);
/* "NAME" or "NAME+0xOFF" for the nearest label at or below @addr. */
const char *raw_labels_describe(const struct raw_labels *l, uint64_t addr,
				char *buf, size_t len);
void raw_labels_free(struct raw_labels *l);

/* @out split into lines, in place (the array is malloc'ed, empty lines skipped). */
char **raw_lines(char *out, size_t *n);

/*
 * Runs `btrace record -o DIR/NAME.btr OPTS... -- PROG ARGS...` (NULL-ended
 * lists; PROG is a tests/progs name) and asserts that it exits with
 * @want_exit.  Returns the trace path (malloc'ed); @cmd keeps the program's
 * stdout and btrace's stderr.
 */
char *raw_record(const char *prog, const char *const opts[], int want_exit,
		 struct harness_cmd *cmd);
/* Runs `btrace dump --raw FILE`, asserts success, parses the output. */
void raw_dump_load(const char *btr, struct raw_dump *d);
/* `btrace dump VIEW FILE`'s output (malloc'ed); asserts success. */
char *raw_dump_view(const char *btr, const char *view);

/* Expected records as label names; see raw_expect_seq(). */
struct raw_pair {
	const char *from;
	const char *to;
};

/*
 * Asserts that @got[0..n) equals @want[0..nwant) exactly, record for
 * record; the first mismatch is reported with the labels around both
 * ends.  @what names the sequence in messages.
 */
void raw_expect_seq(const char *what, const struct raw_labels *l,
		    const struct raw_rec *got, size_t n,
		    const struct raw_pair *want, size_t nwant);

/*
 * Asserts that no marker of @t lies between records @first and @last
 * (inclusive): a marker there would break the sequence.
 */
void raw_expect_no_marker(const struct raw_thread *t, size_t first, size_t last);
/*
 * Asserts that threads @a and @b hold the same records and the same
 * markers at the same places, one for one (@an and @bn name them in
 * messages, e.g. "single-step" and "branch stops").
 */
void raw_expect_same_thread(const struct raw_thread *a, const char *an,
			    const struct raw_thread *b, const char *bn);
/* How many markers of @t start with @prefix ("lost", "gap"). */
size_t raw_count_markers(const struct raw_thread *t, const char *prefix);

/* The index of the one record of @t equal to {from, to} (0 = any). */
size_t raw_find_one(const struct raw_thread *t, uint64_t from, uint64_t to);

#endif /* RAW_DUMP_H */
