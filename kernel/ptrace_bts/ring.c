// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the positions in a record buffer, and how the producer and
 * the consumer share them.
 *
 * The producer is the traced thread itself (in its trap notifier, its
 * tracepoint probes and its task_work), so there is exactly one, and it
 * needs no lock.  The consumer is the tracer, through STATUS, WAIT and ACK.
 * Both positions are counts of records since attach, kept in kernel memory;
 * nothing is read back from the buffer, which the tracer can write.
 *
 *	producer			consumer
 *	tail = load_acquire(tail)  A	count = load_acquire(count)  C
 *	write slot count % nslots	read slots [tail, count) (user space)
 *	store_release(count, count+1) B	store_release(tail, new tail)  D (ACK)
 *
 * A pairs with D, B with C; the barriers below name their letter.  C and
 * D run in the tracer's own ioctls (STATUS and WAIT, ACK), so the user-space
 * consumer needs no barrier of its own: it reads the slots after the call
 * that did C returns, and ACKs them after it read them.
 * The release of @count orders the record's bytes before it: a consumer
 * that saw @count sees the records below it.  The release of @tail orders
 * the consumer's reads before the producer may reuse those slots (BLOCK and
 * STOP never write into an unacknowledged slot; RING does, by definition).
 * This is the pairing of perf's ring buffer (kernel/events/ring_buffer.c),
 * with the kernel as the only keeper of both positions.
 *
 * Wakeups: the thread is ready when its unread records (count - tail)
 * reach the threshold.  The producer queues an irq_work exactly when that
 * difference becomes equal to the threshold: @tail only grows, so every
 * crossing is an equality, and a run of records costs one wakeup, not one
 * per record.  The irq_work (not a direct wake_up()) keeps the producer
 * free of locks in any context it runs in.
 */
#include <linux/kernel.h>
#include <linux/wait.h>

#include "ptbts.h"

static void ptbts_ring_wake(struct irq_work *work)
{
	struct ptbts_ring *r = container_of(work, struct ptbts_ring, wake_work);
	struct ptbts_thread *t = container_of(r, struct ptbts_thread, ring);

	wake_up_all(&r->wq);
	wake_up_all(&t->session->poll_wq);
}

/**
 * ptbts_ring_init() - empty positions for a checked configuration
 * @r:   the ring
 * @cfg: the configuration
 */
void ptbts_ring_init(struct ptbts_ring *r, const struct ptbts_config *cfg)
{
	u64 bytes = cfg->wakeup ? cfg->wakeup : cfg->buffer_size / 2;

	r->nslots = cfg->buffer_size / sizeof(struct ptbts_record);
	r->mode = cfg->mode;
	r->limit = cfg->limit;
	/*
	 * In records, at least one and at most a full buffer: BLOCK and STOP
	 * never hold more unread records than that, and a larger threshold
	 * would never be reached.
	 */
	r->wakeup = clamp_t(u64, DIV_ROUND_UP(bytes, sizeof(struct ptbts_record)),
			    1, r->nslots);
	init_waitqueue_head(&r->wq);
	init_waitqueue_head(&r->room_wq);
	init_irq_work(&r->wake_work, ptbts_ring_wake);
}

/**
 * ptbts_ring_start() - give the ring its buffer
 * @r:   the ring
 * @buf: the pinned, mapped buffer
 */
void ptbts_ring_start(struct ptbts_ring *r, struct ptbts_buf *buf)
{
	r->recs = buf->vaddr;
}

/**
 * ptbts_ring_stop() - no producer writes any more: wake everyone
 * @r: the ring; its source has stopped, so no new wakeup can be queued
 *
 * A wakeup queued before the stop is waited for: it must not run after the
 * thread object or its session are gone.
 */
void ptbts_ring_stop(struct ptbts_ring *r)
{
	struct ptbts_thread *t = container_of(r, struct ptbts_thread, ring);

	irq_work_sync(&r->wake_work);
	wake_up_all(&r->room_wq);
	wake_up_all(&r->wq);
	wake_up_all(&t->session->poll_wq);
}

static void ptbts_ring_write(struct ptbts_ring *r, u64 from, u64 to, u32 kind)
{
	struct ptbts_record *rec = &r->recs[r->slot];
	u64 count = r->count + 1;

	rec->from = from;
	rec->to = to;
	rec->flags = PTBTS_MKKIND(kind);
	if (++r->slot == r->nslots)
		r->slot = 0;
	/* B, matches C: the record is written before it is counted. */
	smp_store_release(&r->count, count);
	/* @tail from D in ptbts_ring_ack(); only the wakeup depends on it. */
	if (count - READ_ONCE(r->tail) == r->wakeup)
		irq_work_queue(&r->wake_work);
}

/**
 * ptbts_ring_put() - write one record, as the mode says
 * @r:    the ring, started
 * @from: the record's @from
 * @to:   its @to
 * @kind: its &enum ptbts_kind
 *
 * The producer only.  Never sleeps, takes no lock.  In STOP mode a record
 * that does not fit is counted as lost, and the first record that fits
 * again is preceded by a LOST marker with that count.
 *
 * Return: 0 when written (or counted lost); -ENOSPC in BLOCK mode when the
 * buffer is full: the caller keeps the record and waits for an ACK.
 */
int ptbts_ring_put(struct ptbts_ring *r, u64 from, u64 to, u32 kind)
{
	u64 used;

	if (r->mode != PTBTS_MODE_RING) {
		/* A, matches D: acknowledged slots are read out already. */
		used = r->count - smp_load_acquire(&r->tail);
		/* A pending LOST marker needs its slot too. */
		if (used + !!r->lost_run >= r->nslots ||
		    ptbts_ring_at_limit(r)) {
			if (r->mode == PTBTS_MODE_BLOCK)
				return -ENOSPC;
			r->lost_run++;
			/* Pairs with READ_ONCE(@lost) in ptbts_status_fill(). */
			WRITE_ONCE(r->lost, r->lost + 1);
			return 0;
		}
		if (r->lost_run) {
			ptbts_ring_write(r, 0, r->lost_run, PTBTS_KIND_LOST);
			r->lost_run = 0;
		}
	}
	ptbts_ring_write(r, from, to, kind);
	return 0;
}

/**
 * ptbts_ring_at_limit() - whether the producer wrote all its config allows
 * @r: the ring
 *
 * Return: true when @r has a limit and as many records as it says.
 */
bool ptbts_ring_at_limit(const struct ptbts_ring *r)
{
	return r->limit && READ_ONCE(r->count) >= r->limit;
}

/**
 * ptbts_ring_has_room() - whether a BLOCK-mode producer may write again
 * @r: the ring
 *
 * Return: true when an acknowledged slot is free and the limit not reached.
 */
bool ptbts_ring_has_room(const struct ptbts_ring *r)
{
	/* A, matches D (the producer's own count needs none). */
	return READ_ONCE(r->count) - smp_load_acquire(&r->tail) < r->nslots &&
	       !ptbts_ring_at_limit(r);
}

/**
 * ptbts_ring_hold() - the producer starts or ends its wait at the limit
 * @r:  the ring
 * @on: whether it waits now
 *
 * A held thread is ready (STATUS: %PTBTS_STATE_HELD): its waiters are
 * woken, through the irq_work as for the threshold.
 */
void ptbts_ring_hold(struct ptbts_ring *r, bool on)
{
	/* Pairs with READ_ONCE(@held) in ptbts_thread_state(). */
	WRITE_ONCE(r->held, on);
	if (on)
		irq_work_queue(&r->wake_work);
}

/**
 * ptbts_ring_unread() - records written and not acknowledged
 * @r: the ring
 *
 * Return: the count; in RING mode it may exceed the slots.
 */
u64 ptbts_ring_unread(const struct ptbts_ring *r)
{
	/* C, matches B; @tail is the consumer's own (D in ptbts_ring_ack()). */
	return smp_load_acquire(&r->count) - READ_ONCE(r->tail);
}

/**
 * ptbts_ring_ack() - the consumer has read the records below @tail
 * @r:    the ring
 * @tail: records consumed since attach
 *
 * Callers serialise (the session lock).
 *
 * Return: 0, or -EINVAL when @tail goes back or passes the records written.
 */
int ptbts_ring_ack(struct ptbts_ring *r, u64 tail)
{
	/* C, matches B: no ACK of records not yet written. */
	if (tail < r->tail || tail > smp_load_acquire(&r->count))
		return -EINVAL;
	/* D, matches A: the tracer read the slots before they are reused. */
	smp_store_release(&r->tail, tail);
	wake_up_all(&r->room_wq);
	return 0;
}
