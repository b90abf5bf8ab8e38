/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic traces of any length made from a recorded one, for the
 * decoder's benchmark (tests/bench/lib-decode.c) and the tests that
 * compare two scales (tests/e2e/test_dump_stream.c): the longest stretch
 * of thread 0's records that starts and ends with the same record is a
 * cycle the program could run again and again, so repeating it gives a
 * trace whose every block decodes, over the recording's own code.
 */
#ifndef SYNTH_TRACE_H
#define SYNTH_TRACE_H

#include <stdint.h>

#include <bts.h>

/*
 * Writes to @path a trace of @want records repeating that cycle of @src,
 * with the process, maps and code copies of its first thread: the
 * cycle's length, or -1 said on stderr.
 */
long synth_trace_write(const struct bts_trace *src, const char *path,
		       uint64_t want);

#endif /* SYNTH_TRACE_H */
