/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A whole trace file written again (rewrite.c): its chunks copied
 * through a writer, each first offered to the caller, which may write it
 * otherwise or leave it out (index_file.c, tnt_file.c).
 */
#ifndef BTS_DECODE_REWRITE_H
#define BTS_DECODE_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/reader.h"
#include "trace/writer.h"

/*
 * Chunk @type (its payload @p, @len bytes) of @t: 1 when the callee
 * wrote it (or left it out), 0 to copy it as it is, or an error.
 */
typedef int (*bts_rewrite_fn)(void *arg, struct bts_writer *w, uint32_t type,
			      const uint8_t *p, size_t len);

/* Every chunk of @t before END into @w: 0 or an error. */
int bts_rewrite_chunks(const struct bts_trace *t, struct bts_writer *w,
		       bts_rewrite_fn fn, void *arg);
/* The records a RECORDS or RECORDS_COMPACT chunk holds, for END's count. */
uint64_t bts_rewrite_records(uint32_t type, const uint8_t *p, size_t len);
/* -BTS_E_VERSION unless @t's header is the one this libbts writes. */
int bts_rewrite_header(const struct bts_trace *t);

#endif /* BTS_DECODE_REWRITE_H */
