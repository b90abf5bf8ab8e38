// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One record into the thread's ring, with the module's producer protocol
 * (../qemu_abi.h): the record first, then @count with a store-release.
 *   RING   overwrite the oldest: the tracer counts what it lost
 *   STOP   no room: count the record as lost (@lost), write nothing
 *   BLOCK  no room: wake the tracer and wait on the futex of @ack_seq
 *          until it acknowledged some; nothing is lost
 * The tracer is woken (the eventfd) once each time the unread records
 * reach the ring's @wakeup, not per record.
 *
 * Under a size bound (@budget of the directory) the record past the bound
 * is the last one made: its thread wakes the tracer and waits, as does
 * every thread after it, before the next block runs.  The tracer, seeing
 * the bound exceeded, kills the program: nothing runs past the cut.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

static void wake_tracer(void)
{
	uint64_t one = 1;

	/* A full eventfd counter means the tracer has been woken already. */
	if (write(pq_evfd, &one, sizeof(one)) < 0)
		return;
}

static uint64_t unread(const struct pq_thread *me)
{
	return me->count - __atomic_load_n(&me->ring->tail, __ATOMIC_ACQUIRE);
}

/*
 * Sleeps until the tracer acknowledged room.  The timeout only bounds a
 * wakeup that came between the check and the sleep.
 */
static void wait_room(struct pq_thread *me)
{
	struct ptbts_qu_ring *r = me->ring;
	struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };
	uint32_t seq;

	__atomic_store_n(&r->waiting, 1, __ATOMIC_SEQ_CST);
	wake_tracer();
	for (;;) {
		seq = __atomic_load_n(&r->ack_seq, __ATOMIC_SEQ_CST);
		if (unread(me) < me->nslots)
			break;
		syscall(SYS_futex, &r->ack_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
	}
	__atomic_store_n(&r->waiting, 0, __ATOMIC_RELAXED);
}

/* Past the size bound: wait for the tracer's SIGKILL. */
static void __attribute__((noreturn)) wait_cut(void)
{
	wake_tracer();
	for (;;)
		pause();
}

void pq_put_flags(struct pq_thread *me, uint64_t from, uint64_t to,
		  uint64_t flags)
{
	struct ptbts_record *rec;
	uint64_t n = 0, left = 0;

	/* Copies of code (qemu_abi.h) are no records: the bound counts none. */
	if (pq_budget && PTBTS_KIND(flags) < PTBTS_QU_KIND_CODE) {
		n = __atomic_add_fetch(&pq_dir->taken, 1, __ATOMIC_SEQ_CST);
		if (n > pq_budget)
			wait_cut();
	}
	if (pq_mode != PTBTS_MODE_RING) {
		left = unread(me);
		if (left >= me->nslots) {
			if (pq_mode == PTBTS_MODE_STOP) {
				__atomic_store_n(&me->ring->lost, me->ring->lost + 1,
						 __ATOMIC_RELAXED);
				return;
			}
			wait_room(me);
			left = unread(me);
		}
	}
	rec = &me->recs[me->slot];
	rec->from = from;
	rec->to = to;
	rec->flags = flags;
	me->count++;
	if (++me->slot == me->nslots)
		me->slot = 0;
	__atomic_store_n(&me->ring->count, me->count, __ATOMIC_RELEASE);
	if (pq_budget && n == pq_budget)
		wait_cut();
	/* The tail read before the record: the tracer only moves it on. */
	if (pq_mode == PTBTS_MODE_BLOCK && left + 1 == me->wakeup)
		wake_tracer();
}
