/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The decoder of RECORDS_TNT chunks, as the reader sees it.  Their
 * records come from the program's code, which decode/ reads (decode/tnt.h)
 * and which itself reads traces: so the reader holds the decoder as a
 * table of operations that decode/tnt_code.c hands over when libbts is
 * loaded, and never calls up into decode/.
 */
#ifndef BTS_TRACE_TNT_OPS_H
#define BTS_TRACE_TNT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace_format.h"

struct bts_tnt;

struct bts_tnt_ops {
	/* The decoder's state for @t (its code, read on demand), or NULL. */
	struct bts_tnt *(*create)(const struct bts_trace *t);
	void (*destroy)(struct bts_tnt *x);
	/*
	 * The records of the payload @p (@plen bytes) of the chunk at file
	 * offset @off into @recs (room for BTS_RECORDS_PER_CHUNK) and its
	 * header into @h: 0, -BTS_E_FORMAT (damage), -BTS_E_DECODE (other
	 * code than it was encoded against), -BTS_E_NOMEM.
	 */
	int (*decode)(struct bts_tnt *x, const uint8_t *p, size_t plen,
		      size_t off, struct ptbts_record *recs,
		      struct bts_chunk_records_tnt *h);
};

/*
 * NULL until decode/ sets it: a program linked without it (a static
 * libbts, none of its tnt code used) refuses tnt files clearly.
 */
extern const struct bts_tnt_ops *bts_tnt_decoder;

/*
 * The payload's fixed part, checked against its bounds (nothing decoded):
 * NULL, or what is wrong (reader_compact.c).
 */
const char *bts_tnt_header(const uint8_t *p, size_t plen,
			   struct bts_chunk_records_tnt *h);

#endif /* BTS_TRACE_TNT_OPS_H */
