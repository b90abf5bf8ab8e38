/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* The trace's START chunk (trace_format.h): writing and reading it. */
#ifndef BTS_TRACE_START_H
#define BTS_TRACE_START_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bts_writer;
struct bts_trace;

/* Thread @tid of process @pid starts its history at @pc. */
int bts_writer_start(struct bts_writer *w, pid_t pid, pid_t tid, uint64_t pc);
int bts_rd_start(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off);

#endif /* BTS_TRACE_START_H */
