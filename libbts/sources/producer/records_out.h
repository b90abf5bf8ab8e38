/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Records a source found in its producer's pages (the module's, the
 * qemu-user plugin's), to the session's writer: the maps they need first,
 * within --max-size, counted.
 */
#ifndef BTS_RECORDS_OUT_H
#define BTS_RECORDS_OUT_H

#include <stddef.h>
#include <stdint.h>

struct bts_session;
struct bts_thread;
struct ptbts_record;

void bts_src_write(struct bts_session *s, struct bts_thread *t,
		   const struct ptbts_record *r, size_t n);
/* A LOST marker for @n records (none for 0), counted as lost. */
void bts_src_write_lost(struct bts_session *s, struct bts_thread *t,
			uint64_t n);

#endif /* BTS_RECORDS_OUT_H */
