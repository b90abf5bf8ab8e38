/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the tests of btrace replay and btrace report share: running
 * btrace, scripts, and reading positions, frames and segments out of the
 * output.  Every helper fails the running test on bad input.
 */
#ifndef TEST_REPLAY_H
#define TEST_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

/* Runs btrace with @args (NULL-ended) and asserts exit code @want. */
void rp_btrace(const char *const args[], int want, struct harness_cmd *cmd);
/* Records tests/progs/@prog (--on-crash when @crash) into the test's tmpdir. */
char *rp_record(const char *prog, int crash, struct harness_cmd *cmd);
/* `btrace replay -x SCRIPT FILE` with @script's text; asserts exit @want. */
void rp_replay(const char *btr, const char *script, int want,
	       struct harness_cmd *cmd);

/* The instruction numbers of the "N\t=> " lines, in order; returns how many. */
size_t rp_positions(const char *out, uint64_t *v, size_t max);
/* The lines of @out starting with @prefix, joined by '\n' (malloc'ed). */
char *rp_grep(const char *out, const char *prefix);
/* The @i-th line of @out starting with @prefix, or fails. */
const char *rp_line(const char *out, const char *prefix, size_t i, char *buf,
		    size_t len);
/* The "first" of the first segment of @func entered by @entry. */
uint64_t rp_segment_first(const char *btr, const char *func, const char *entry);
/* The line number of the first line of tests/progs/@file holding @text. */
int rp_source_line(const char *file, const char *text);
/* The function name of a frame line "#N  0x... in NAME () ...", or "". */
const char *rp_frame_func(const char *line, char *buf, size_t len);

#endif /* TEST_REPLAY_H */
