/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tests of following and of the flight recorder share. */
#ifndef TEST_ONCRASH_H
#define TEST_ONCRASH_H

#include <bts.h>

#include "harness.h"

#define CRASH_LIMIT_S 120	/* a bound against hangs, never a timing assertion */

/*
 * Runs btrace record with @args (NULL-terminated, after "record") and
 * program @prog (a name in the progs directory) with its @prog_args.
 */
void crash_btrace(const char *const args[], const char *prog,
		  const char *const prog_args[], struct harness_cmd *out);
/* The one file in @dir whose name starts with @prefix (malloc'ed), or NULL. */
char *crash_find_file(const char *dir, const char *prefix);
/* How many entries @dir holds besides . and .. */
int crash_count_files(const char *dir);
/* The function name of @addr in process @pid of @t ("?" when unknown). */
const char *crash_sym(struct bts_symbolizer *sym, uint64_t addr);
/*
 * Whether the records of thread index @th hold, consecutively, branches
 * whose from and to lie in the functions @pairs[2i] -> @pairs[2i+1].
 */
bool crash_has_calls(const struct bts_trace *t, size_t th,
		     struct bts_symbolizer *sym, const char *const pairs[],
		     size_t npairs);

/*
 * A symbolizer of image @img of @pid alone (*tt: the trace it reads,
 * close it after the symbolizer).  0 or an error.
 */
int crash_image_sym(const struct bts_trace *t, pid_t pid, size_t img,
		    struct bts_trace **tt, struct bts_symbolizer **sym);

#endif /* TEST_ONCRASH_H */
