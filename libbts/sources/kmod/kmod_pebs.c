// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * kmod-pebs: kmod-bts (kmod_source.c) with the CPU's PEBS on as well.
 * The module records the thread's branches into its first region, as for
 * kmod-bts, and a PEBS record every period events into a second region,
 * in the CPU's own format.  The second region is a ring the module never
 * waits for (the ABI has no ACK for it): it is read whenever the first
 * is, and is made large enough that it cannot come round between two
 * reads for the default event, retired branches: twice the samples that
 * a full first region's branches make.  What came round unread all the
 * same (an event more frequent than the branches, RING mode) is counted
 * as lost in the trace's PEBS chunk, never passed off as read.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "session/session.h"
#include "sources/kmod/kmod.h"

int bts_kmod_pebs_open(struct bts_session *s)
{
	struct bts_kmod *k = bts_kmod_of(s);
	struct ptbts_caps c;
	char why[256];

	if (!bts_kmod_caps(&c, why, sizeof(why)))
		return bts_fail(BTS_E_NOSOURCE, "kmod-pebs: %s", why);
	k->pebs_format = c.pebs_format;
	k->pebs_size = bts_pebs_record_size(c.pebs_format);
	if (!k->pebs_size || k->pebs_size != c.pebs_record_size)
		return bts_fail(BTS_E_NOSOURCE, "kmod-pebs: PEBS format %u of "
				"%u-byte records is unknown to libbts",
				c.pebs_format, c.pebs_record_size);
	return 0;
}

/* Twice the samples of a full first region, in whole pages. */
static size_t region_size(const struct bts_session *s, size_t size)
{
	const struct bts_kmod *k = bts_kmod_of(s);
	uint64_t samples = size / sizeof(struct ptbts_record) / s->pebs_period + 1;
	uint64_t bytes = 2 * samples * k->pebs_size;

	return (size_t)((bytes + k->page - 1) / k->page * k->page);
}

long bts_kmod_pebs_map(struct bts_session *s, struct bts_kmod_thread *kt,
		       struct ptbts_config *c)
{
	kt->size2 = region_size(s, kt->size);
	kt->nslots2 = kt->size2 / bts_kmod_of(s)->pebs_size;
	kt->buf2 = mmap(NULL, kt->size2, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (kt->buf2 == MAP_FAILED) {
		kt->buf2 = NULL;
		return -ENOMEM;
	}
	c->buffer2 = (uintptr_t)kt->buf2;
	c->buffer2_size = kt->size2;
	c->flags = PTBTS_CONFIG_PEBS_EVENT;
	c->pebs_event = s->pebs_event;
	c->pebs_period = s->pebs_period;
	return 0;
}

void bts_kmod_pebs_unmap(struct bts_kmod_thread *kt)
{
	if (kt->buf2)
		munmap(kt->buf2, kt->size2);
	kt->buf2 = NULL;
}

static uint64_t written(const struct bts_session *s,
			const struct bts_kmod_thread *kt,
			const struct ptbts_status *st)
{
	return st->wraps2 * kt->nslots2 + st->head2 / bts_kmod_of(s)->pebs_size;
}

/* Records [first, first + n) of the ring, in order, into @out. */
static void copy_out(const struct bts_session *s,
		     const struct bts_kmod_thread *kt, uint64_t first,
		     size_t n, uint8_t *out)
{
	size_t rec = bts_kmod_of(s)->pebs_size;

	while (n) {
		uint64_t slot = first % kt->nslots2;
		size_t k = n;

		if (k > kt->nslots2 - slot)
			k = (size_t)(kt->nslots2 - slot);
		memcpy(out, kt->buf2 + slot * rec, k * rec);
		out += k * rec;
		first += k;
		n -= k;
	}
}

static void write_batch(struct bts_session *s, struct bts_thread *t,
			const uint8_t *recs, size_t n, uint64_t lost)
{
	const struct bts_kmod *k = bts_kmod_of(s);
	struct bts_pebs_batch b = {
		.format = k->pebs_format,
		.record_size = k->pebs_size,
		.event = s->pebs_event,
		.period = s->pebs_period,
		.lost = lost,
		.records = recs,
		.count = n,
	};

	if (s->w && (n || lost))
		bts_note_err(s, bts_writer_pebs(s->w, bts_thread_pid(s, t),
						t->tid, &b));
}

void bts_kmod_pebs_drain(struct bts_session *s, struct bts_thread *t,
			 const struct ptbts_status *st)
{
	struct bts_kmod_thread *kt = bts_kmod_thr(t);
	size_t rec = bts_kmod_of(s)->pebs_size, n;
	uint64_t end, lost = 0, over;
	struct ptbts_status now;
	uint8_t *recs;

	if (!kt->buf2)
		return;		/* not kmod-pebs */
	end = written(s, kt, st);
	if (end == kt->tail2)
		return;
	if (end - kt->tail2 > kt->nslots2) {
		lost = end - kt->nslots2 - kt->tail2;
		kt->tail2 = end - kt->nslots2;
	}
	n = (size_t)(end - kt->tail2);
	recs = malloc(n * rec);
	if (!recs) {
		bts_note_err(s, bts_fail(BTS_E_NOMEM, "PEBS records"));
		return;
	}
	copy_out(s, kt, kt->tail2, n, recs);
	/* A thread that ran on meanwhile may have written over some. */
	if (!bts_kmod_status(s, kt, &now) &&
	    written(s, kt, &now) > kt->tail2 + kt->nslots2) {
		over = written(s, kt, &now) - kt->nslots2 - kt->tail2;
		if (over > n)
			over = n;
		lost += over;
		n -= (size_t)over;
		memmove(recs, recs + over * rec, n * rec);
	}
	write_batch(s, t, recs, n, lost);
	free(recs);
	kt->tail2 = end;
}

/* ------------------------------------------------------------- the source */

static int kmod_pebs_pick(int want, int mode)
{
	(void)mode;
	if (want != PTBTS_SOURCE_KMOD_PEBS)
		return 0;
	return bts_kmod_pick(want);
}

static int kmod_pebs_open(struct bts_session *s)
{
	int err = bts_kmod_open(s);

	if (!err)
		err = bts_kmod_pebs_open(s);
	if (err)
		bts_kmod_close(s);
	return err;
}

/*
 * Recorded only when asked for by name; no debugger, as for kmod-bts
 * (kmod_source.c).
 */
const struct bts_source_ops bts_kmod_pebs_ops =
	KMOD_HW_SOURCE(PTBTS_SOURCE_KMOD_PEBS, kmod_pebs_pick, kmod_pebs_open);
