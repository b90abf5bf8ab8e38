// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * One thread's ring in the memfd (qemu_abi.h).  At the thread's first stop
 * the memfd grows by the ring, which is mapped, locked (charged to
 * RLIMIT_MEMLOCK) and then published in the directory; the plugin maps it
 * when the thread first runs guest code.
 *
 * What is read when follows the kmod sources (sources/kmod/), so that
 * every source gives the same trace:
 *   BLOCK  records are taken whenever the plugin says they are ready, and
 *          acknowledged: the thread waits for room, nothing is lost;
 *   RING   nothing is taken until the thread stops for good: the newest
 *          ring-full survives, after a LOST marker for what was overwritten;
 *   STOP   the same, but the plugin kept the oldest and counted the rest.
 * Positions come from the shared header, which the traced program could
 * reach: every one is checked against what the tracer knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session/session.h"
#include "sources/qemu-user/qemu_user.h"
#include "sources/producer/records_out.h"
#include "trace/writer.h"

#define REC sizeof(struct ptbts_record)

static int give_err(pid_t tid, int e, uint64_t size)
{
	if (e == ENOMEM || e == EPERM || e == EAGAIN)
		return bts_fail(BTS_E_NOMEM, "thread %d: a buffer of %llu bytes cannot "
				"be locked in memory (RLIMIT_MEMLOCK: raise ulimit -l, or "
				"use a smaller --buffer)", (int)tid,
				(unsigned long long)size);
	return bts_fail(BTS_E_INTERNAL, "thread %d: its ring in the memfd: %s",
			(int)tid, strerror(e));
}

/* Maps and locks @size bytes at the memfd's end: 0 or an errno. */
static int map_ring(struct bts_qemu *q, struct bts_qemu_thread *qt, size_t size)
{
	void *p;

	if (ftruncate(q->memfd, (off_t)(q->end + size)))
		return errno;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, q->memfd,
		 (off_t)q->end);
	if (p == MAP_FAILED)
		return errno;
	if (mlock(p, size)) {
		int e = errno;

		munmap(p, size);
		return e;
	}
	qt->ring = p;
	qt->size = size;
	return 0;
}

/*
 * Past RLIMIT_MEMLOCK, a BLOCK-mode thread takes a smaller ring (as the
 * kmod sources do): it loses nothing, it only wakes its tracer more
 * often.  In the other modes the size is what the trace keeps.
 */
static int map_fitting(struct bts_session *s, struct bts_qemu_thread *qt,
		       size_t *size)
{
	struct bts_qemu *q = bts_qemu_of(s);
	int e;

	for (;;) {
		e = map_ring(q, qt, *size);
		if ((e != ENOMEM && e != EAGAIN) || s->mode != PTBTS_MODE_BLOCK ||
		    *size <= 2 * q->page)
			return e;
		*size = (*size / 2 + q->page - 1) / q->page * q->page;
	}
}

static void publish(struct bts_qemu *q, struct bts_qemu_thread *qt, pid_t tid)
{
	struct ptbts_qu_entry *e = &q->dir->entries[qt->entry];

	qt->recs = (struct ptbts_record *)((char *)qt->ring + PTBTS_QU_RING_HDR);
	qt->nslots = (qt->size - PTBTS_QU_RING_HDR) / REC;
	qt->ring->nslots = qt->nslots;
	qt->ring->wakeup = qt->nslots / 2 ? qt->nslots / 2 : 1;
	e->tid = (uint32_t)tid;
	qt->offset = q->end;
	e->offset = q->end;
	e->size = qt->size;
	e->live = 1;
	q->end += qt->size;
	__atomic_store_n(&q->dir->nentries, qt->entry + 1, __ATOMIC_RELEASE);
}

void bts_qemu_give(struct bts_session *s, struct bts_thread *t)
{
	struct bts_qemu *q = bts_qemu_of(s);
	struct bts_qemu_thread *qt;
	size_t size, want;
	int e;

	if (q->dir->nentries >= PTBTS_QU_MAX_ENTRIES) {
		bts_note_err(s, bts_fail(BTS_E_NOMEM, "thread %d: more threads than "
					 "the qemu-user source records (%zu)",
					 (int)t->tid, (size_t)PTBTS_QU_MAX_ENTRIES));
		return;
	}
	qt = calloc(1, sizeof(*qt));
	if (!qt) {
		bts_note_err(s, bts_fail(BTS_E_NOMEM, "thread %d", (int)t->tid));
		return;
	}
	want = PTBTS_QU_RING_HDR +
	       (s->buffer_size + q->page - 1) / q->page * q->page;
	size = want;
	if (s->mode == PTBTS_MODE_BLOCK && q->share && size > q->share)
		size = q->share > 2 * q->page ? q->share : 2 * q->page;
	e = map_fitting(s, qt, &size);
	if (e) {
		free(qt);
		bts_note_err(s, give_err(t->tid, e, want));
		return;
	}
	qt->entry = q->dir->nentries;
	publish(q, qt, t->tid);
	t->src = qt;
}

/* ------------------------------------------------------------ reading */

static void code_drop(struct bts_qemu_thread *qt)
{
	free(qt->code);
	qt->code = NULL;
}

/* A CODE record of the ring: a copy of code no file holds starts. */
static void code_start(struct bts_qemu_thread *qt, const struct ptbts_record *r)
{
	code_drop(qt);
	if (!r->to || r->to > PTBTS_QU_CODE_MAX || r->from + r->to < r->from)
		return;
	qt->code = malloc(r->to);
	qt->code_addr = r->from;
	qt->code_len = (uint32_t)r->to;
	qt->code_next = 0;
}

/* A BYTES record: the copy's next 16 bytes; the whole copy to the trace. */
static void code_bytes(struct bts_session *s, struct bts_thread *t,
		       const struct ptbts_record *r)
{
	struct bts_qemu_thread *qt = bts_qemu_thr(t);
	uint64_t half[2] = { r->from, r->to };
	uint32_t at, n;

	if (!qt->code || (uint32_t)r->flags != qt->code_next) {
		code_drop(qt);	/* a part went missing: no copy */
		return;
	}
	at = qt->code_next++ * 16;
	n = qt->code_len - at < 16 ? qt->code_len - at : 16;
	memcpy(qt->code + at, half, n);
	if (at + n < qt->code_len)
		return;
	if (s->w)
		bts_note_err(s, bts_writer_code(s->w, bts_thread_pid(s, t),
						qt->code_addr, qt->code, qt->code_len));
	code_drop(qt);
}

/* @n records of the ring to the writer, the copies of code apart. */
static void put_run(struct bts_session *s, struct bts_thread *t,
		    const struct ptbts_record *r, size_t n)
{
	struct bts_qemu_thread *qt = bts_qemu_thr(t);
	size_t i, from = 0;
	uint32_t kind;

	for (i = 0; i < n; i++) {
		kind = PTBTS_KIND(r[i].flags);
		if (kind != PTBTS_QU_KIND_CODE && kind != PTBTS_QU_KIND_BYTES) {
			if (qt->code)
				code_drop(qt);	/* cut short */
			continue;
		}
		if (i > from)
			bts_src_write(s, t, r + from, i - from);
		from = i + 1;
		if (kind == PTBTS_QU_KIND_CODE)
			code_start(qt, &r[i]);
		else
			code_bytes(s, t, &r[i]);
	}
	if (n > from)
		bts_src_write(s, t, r + from, n - from);
}

static void ack(struct bts_qemu_thread *qt)
{
	struct ptbts_qu_ring *r = qt->ring;

	__atomic_store_n(&r->tail, qt->tail, __ATOMIC_RELEASE);
	__atomic_add_fetch(&r->ack_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->waiting, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &r->ack_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The main thread's history starts where the plugin saw it start. */
static void write_start(struct bts_session *s, struct bts_thread *t)
{
	struct bts_qemu *q = bts_qemu_of(s);
	uint64_t pc;

	if (q->started || !s->w || t->tid != s->pid)
		return;
	pc = __atomic_load_n(&bts_qemu_thr(t)->ring->start_pc, __ATOMIC_ACQUIRE);
	if (!pc)
		return;
	q->started = true;
	bts_note_err(s, bts_writer_start(s->w, s->pid, s->pid, pc));
}

/*
 * Where QEMU put the guest (an i386 one lies above its host's first page):
 * the plugin says before the guest's first record, so before the maps
 * that record needs are read.
 */
static void note_guest_base(struct bts_session *s)
{
	if (!s->guest_base)
		s->guest_base = __atomic_load_n(&bts_qemu_of(s)->dir->guest_base,
						__ATOMIC_ACQUIRE);
}

/*
 * The plugin made the record past the size bound and waits: every ring
 * is read whole now, whatever the mode, so that the cut is seen.
 */
static bool past_budget(struct bts_session *s)
{
	struct bts_qemu *q = bts_qemu_of(s);

	return q->budget &&
	       __atomic_load_n(&q->dir->taken, __ATOMIC_ACQUIRE) >= q->budget;
}

int bts_qemu_drain(struct bts_session *s, struct bts_thread *t, bool final)
{
	struct bts_qemu_thread *qt = bts_qemu_thr(t);
	bool past = past_budget(s);
	uint64_t count, before, lost;

	if (!qt || qt->off || (!final && s->mode != PTBTS_MODE_BLOCK && !past))
		return 0;
	bts_proc_enter(s, t->proc);	/* a followed child's maps, if its */
	write_start(s, t);
	note_guest_base(s);
	count = __atomic_load_n(&qt->ring->count, __ATOMIC_ACQUIRE);
	before = qt->tail;
	if (count < qt->tail ||
	    (s->mode != PTBTS_MODE_RING && count - qt->tail > qt->nslots)) {
		/* A position we could not have given: a hole from here. */
		qt->off = true;
		bts_src_write_gap(s, t);
		return 0;
	}
	bts_src_take(s, t, qt->recs, qt->nslots, &qt->tail, count, put_run);
	if (s->mode == PTBTS_MODE_BLOCK && qt->tail != before)
		ack(qt);
	lost = __atomic_load_n(&qt->ring->lost, __ATOMIC_RELAXED);
	if (s->mode == PTBTS_MODE_STOP && (final || past) && lost > qt->lost_told) {
		bts_src_write_lost(s, t, lost - qt->lost_told);
		qt->lost_told = lost;
	}
	/* STOP may have dropped the record past the bound: no waiting for it. */
	if (past && s->mode == PTBTS_MODE_STOP)
		bts_limits_passed(s);
	return qt->tail != before;
}

void bts_qemu_forget(struct bts_session *s, struct bts_thread *t)
{
	struct bts_qemu_thread *qt = bts_qemu_thr(t);
	struct bts_qemu *q = bts_qemu_of(s);

	if (!qt)
		return;
	if (q) {
		__atomic_store_n(&q->dir->entries[qt->entry].live, 0, __ATOMIC_RELEASE);
		/* Its pages back to the system; the memfd keeps its size. */
		fallocate(q->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)qt->offset, (off_t)qt->size);
	}
	munmap(qt->ring, qt->size);
	free(qt->code);
	free(qt);
	t->src = NULL;
}
