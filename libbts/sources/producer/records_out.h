/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Records a source found in its producer's pages (the module's, the
 * qemu-user plugin's), to the session's writer: the maps they need first,
 * within --max-size, counted.  And how much of those pages a thread may
 * lock.
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
/* How a source hands a run of its ring's records on (bts_src_write). */
typedef void bts_src_out_fn(struct bts_session *s, struct bts_thread *t,
			    const struct ptbts_record *r, size_t n);
/*
 * Records [*@tail, @end) of a ring of @nslots records at @ring (positions
 * count every record ever written) to @out, in at most two runs: the part
 * before the ring's end and the part after it wrapped.  In RING mode the
 * producer may have overwritten the oldest: those are told as lost.
 * *@tail ends at @end.
 */
void bts_src_take(struct bts_session *s, struct bts_thread *t,
		  const struct ptbts_record *ring, uint64_t nslots,
		  uint64_t *tail, uint64_t end, bts_src_out_fn *out);
/* A LOST marker for @n records (none for 0), counted as lost. */
void bts_src_write_lost(struct bts_session *s, struct bts_thread *t,
			uint64_t n);
/* A GAP marker: the producer lost track of the thread from here on. */
void bts_src_write_gap(struct bts_session *s, struct bts_thread *t);

/*
 * The buffers are locked memory of ours: without CAP_IPC_LOCK,
 * RLIMIT_MEMLOCK bounds them all together.  A BLOCK-mode thread takes at
 * most a sixteenth of it, so that the threads that come later find room
 * too; 0 when there is no bound.  (@page: the page size.)
 */
size_t bts_memlock_share(size_t page);

#endif /* BTS_RECORDS_OUT_H */
