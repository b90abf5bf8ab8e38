// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * One record region (the tracer's BTS or PEBS pages) and the window of it
 * the hardware may write.
 *
 * The region is a ring of nslots records.  @count (records since attach)
 * is the producer position: the next record lands in slot count % nslots,
 * and count / nslots is the wrap counter, which the hardware does not
 * have.  The consumer's position (tail) lives elsewhere and is passed in.
 *
 * The hardware is only ever given a window it cannot overrun: with BTINT
 * set, what it does at the absolute maximum is not defined, and the PMI
 * arrives some records after the threshold.  So every window keeps @margin
 * records between its threshold and its end:
 *
 *  - a window in the region runs from the current slot to the nearer of
 *    the region's end and, in STOP and BLOCK, the oldest unacknowledged
 *    record; its threshold is @margin records before that end, or earlier
 *    where the consumer's wakeup falls;
 *  - when fewer than @margin + 1 records remain before that end (the end of
 *    a lap, a nearly full STOP or BLOCK buffer), the window is the scratch
 *    area instead ("bounce"): the PMI copies its records into the region
 *    as they fit (wrapping to slot 0 at the end of a lap, so that laps stay
 *    exact), counts those STOP has no room for as lost, and keeps those
 *    BLOCK has no room for until the consumer acknowledges.
 *
 * Copies happen only for the few records at the end of a lap or of the
 * room; everything else is the hardware's own store into the tracer's
 * pages.  A LOST marker (BTS only) goes before the first record that fits
 * after a loss, as the software sources write it.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#endif

#include "ds.h"

static u64 ds_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u64 ds_win_slot(const struct ds_win *w)
{
	return w->count % w->cfg.nslots;
}

static u8 *ds_win_at(const struct ds_win *w, u64 slot)
{
	return w->cfg.buf + slot * w->cfg.rec_size;
}

static u64 ds_scratch_recs(const struct ds_win *w)
{
	return DS_SCRATCH_RECS(w->cfg.margin);
}

/**
 * ds_win_init() - an empty region
 * @w:   the region
 * @cfg: its configuration
 *
 * Return: 0, or -EINVAL when the region is too small for its margin.
 */
int ds_win_init(struct ds_win *w, const struct ds_win_cfg *cfg)
{
	if (!cfg->rec_size || cfg->nslots < 2 * cfg->margin + 2 ||
	    !cfg->margin)
		return -EINVAL;
	*w = (struct ds_win){ .cfg = *cfg };
	if (!w->cfg.wakeup)
		w->cfg.wakeup = 1;
	if (w->cfg.wakeup > w->cfg.nslots)
		w->cfg.wakeup = w->cfg.nslots;
	return 0;
}

/**
 * ds_win_unread() - records written and not acknowledged
 * @w:    the region
 * @tail: records the consumer acknowledged
 *
 * Return: the count (in RING mode it may exceed the slots).
 */
u64 ds_win_unread(const struct ds_win *w, u64 tail)
{
	return w->count - tail;
}

/*
 * Records that may be stored from the current slot on, contiguously,
 * without overwriting an unacknowledged one (RING overwrites by design).
 */
static u64 ds_win_avail(const struct ds_win *w, u64 tail)
{
	u64 to_end = w->cfg.nslots - ds_win_slot(w);

	if (w->cfg.mode == PTBTS_MODE_RING)
		return to_end;
	return ds_min(to_end, w->cfg.nslots - ds_win_unread(w, tail));
}

/**
 * ds_win_room() - whether a blocked BLOCK-mode producer may go on
 * @w:    the region
 * @tail: records the consumer acknowledged
 *
 * Return: true when the records held back fit, and one more.
 */
bool ds_win_room(const struct ds_win *w, u64 tail)
{
	return w->cfg.nslots - ds_win_unread(w, tail) > w->pending;
}

/* A LOST marker is owed: write it where a record can follow it. */
static void ds_win_mark_lost(struct ds_win *w, u64 tail)
{
	struct ptbts_record *rec;

	if (!w->lost_run)
		return;
	if (w->cfg.mode != PTBTS_MODE_RING &&
	    w->cfg.nslots - ds_win_unread(w, tail) < 2)
		return;
	rec = (struct ptbts_record *)ds_win_at(w, ds_win_slot(w));
	rec->from = 0;
	rec->to = w->lost_run;
	rec->flags = PTBTS_MKKIND(PTBTS_KIND_LOST);
	w->count++;
	w->lost_run = 0;
}

static void ds_win_lose(struct ds_win *w, u64 n)
{
	w->lost += n;
	if (w->cfg.markers)
		w->lost_run += n;
}

/* Copies up to @n records from @src into the region: how many fit. */
static u64 ds_win_put(struct ds_win *w, u64 tail, const u8 *src, u64 n)
{
	u32 rs = w->cfg.rec_size;
	u64 done = 0, a, k;

	while (done < n) {
		ds_win_mark_lost(w, tail);
		if (w->lost_run)
			break;
		a = ds_win_avail(w, tail);
		if (!a)
			break;
		k = ds_min(a, n - done);
		memcpy(ds_win_at(w, ds_win_slot(w)), src + done * rs, k * rs);
		w->count += k;
		done += k;
	}
	return done;
}

/**
 * ds_win_collect() - take in what the hardware stored since ds_win_arm()
 * @w:     the region
 * @index: the index field as the hardware left it (the hardware is off,
 *         or in its PMI)
 * @tail:  records the consumer acknowledged
 *
 * An index outside the window (which only a bug could produce) counts
 * what lies inside it.
 */
void ds_win_collect(struct ds_win *w, u64 index, u64 tail)
{
	u32 rs = w->cfg.rec_size;
	u64 base = w->bounce ? (u64)(unsigned long)w->cfg.scratch : w->start;
	u64 n, put;

	if (!w->armed)
		return;
	w->armed = false;
	if (index < w->start)
		index = w->start;
	if (index > w->end)
		index = w->end;
	n = (index - base) / rs;
	if (!w->bounce) {
		w->count += n;
		return;
	}
	/* The scratch area holds the records kept back, then the new ones. */
	put = ds_win_put(w, tail, w->cfg.scratch, n);
	n -= put;
	if (n && w->cfg.mode == PTBTS_MODE_BLOCK) {
		memmove(w->cfg.scratch, w->cfg.scratch + put * rs, n * rs);
		w->pending = n;
		return;
	}
	w->pending = 0;
	if (n)
		ds_win_lose(w, n);
}

/*
 * BLOCK with records held back: the hardware goes on into scratch.  The
 * thread gets here on its way back to user mode without room: its wait
 * ended at a signal or a stop, or a switch took in records its PMI had
 * not yet moved on.  Its first record brings the PMI that makes it wait
 * again, so the scratch area only has to hold what that PMI may be late
 * by.  Only a thread that keeps coming back without waiting (signal after
 * signal) fills it; it then loses its newest records rather than overrun
 * the area.  What is kept fits the region with one record to spare, so
 * that ds_win_room() can come true.
 */
static void ds_win_arm_blocked(struct ds_win *w, struct ds_fields *f)
{
	u64 keep = ds_min(ds_scratch_recs(w) - w->cfg.margin - 1,
			  w->cfg.nslots - 1);
	u32 rs = w->cfg.rec_size;
	u64 scratch = (u64)(unsigned long)w->cfg.scratch;

	if (w->pending > keep) {
		ds_win_lose(w, w->pending - keep);
		w->pending = keep;
	}
	f->base = scratch;
	f->index = scratch + w->pending * rs;
	f->abs_max = scratch + ds_scratch_recs(w) * rs;
	f->threshold = f->index + rs;
}

/**
 * ds_win_arm() - the window the hardware may write next
 * @w:    the region, collected since the last arm
 * @tail: records the consumer acknowledged
 * @f:    the DS fields to program
 *
 * Records held back (BLOCK) and a LOST marker owed (STOP) go into the
 * region first, as far as there is room.  @w->blocked tells whether the
 * thread must wait for room (ds_win_room()) before it runs user code.
 */
void ds_win_arm(struct ds_win *w, u64 tail, struct ds_fields *f)
{
	u32 rs = w->cfg.rec_size;
	u64 m = w->cfg.margin;
	u64 scratch = (u64)(unsigned long)w->cfg.scratch;
	u64 a, wake, lim, put, unread;

	if (w->pending) {
		put = ds_win_put(w, tail, w->cfg.scratch, w->pending);
		w->pending -= put;
		memmove(w->cfg.scratch, w->cfg.scratch + put * rs,
			w->pending * rs);
	}
	ds_win_mark_lost(w, tail);
	a = w->lost_run ? 0 : ds_win_avail(w, tail);
	w->blocked = w->cfg.mode == PTBTS_MODE_BLOCK && (w->pending || !a);
	/*
	 * The next PMI comes where the consumer's threshold falls.  If it is
	 * reached already, the consumer's ACK is still to come, and this code
	 * only sees it at a PMI or a switch: one every @wakeup records keeps
	 * the next wakeup from being late by more than that.
	 */
	unread = ds_win_unread(w, tail);
	wake = unread < w->cfg.wakeup ? w->cfg.wakeup - unread : w->cfg.wakeup;
	if (w->blocked) {
		w->bounce = true;
		ds_win_arm_blocked(w, f);
	} else if (a > m) {
		w->bounce = false;
		f->base = (u64)(unsigned long)w->cfg.buf;
		f->index = (u64)(unsigned long)ds_win_at(w, ds_win_slot(w));
		f->abs_max = f->index + a * rs;
		f->threshold = f->abs_max - m * rs;
		if (wake < a - m)
			f->threshold = f->index + wake * rs;
	} else {
		/* STOP with no room: everything is lost, a PMI now and then. */
		lim = a ? a : 2 * m + 2;
		if (wake < lim)
			lim = wake;
		w->bounce = true;
		f->base = scratch;
		f->index = scratch;
		f->abs_max = scratch + ds_scratch_recs(w) * rs;
		f->threshold = scratch + lim * rs;
	}
	w->start = f->index;
	w->end = f->abs_max;
	w->armed = true;
}

/**
 * ds_win_end() - the end of the stream: the records held back
 * @w:    the region, not armed
 * @tail: records the consumer acknowledged
 *
 * BLOCK's records held in the scratch area go into the region as far as
 * the consumer made room for them; the others are counted as lost, so
 * that the stream's count of lost records covers what its end took.
 */
void ds_win_end(struct ds_win *w, u64 tail)
{
	u64 put;

	if (w->armed || !w->pending)
		return;
	put = ds_win_put(w, tail, w->cfg.scratch, w->pending);
	ds_win_lose(w, w->pending - put);
	w->pending = 0;
}

/**
 * ds_win_marker() - a software marker record into the region
 * @w:    the region (BTS records), not armed
 * @tail: records the consumer acknowledged
 * @kind: an &enum ptbts_kind marker
 * @to:   its payload
 *
 * Return: true when written; false when the region has no room (the
 * marker is then counted as a lost record).
 */
bool ds_win_marker(struct ds_win *w, u64 tail, u32 kind, u64 to)
{
	struct ptbts_record rec = {
		.from = 0, .to = to, .flags = PTBTS_MKKIND(kind),
	};

	if (w->armed || w->pending || ds_win_put(w, tail, (u8 *)&rec, 1) != 1) {
		ds_win_lose(w, 1);
		return false;
	}
	return true;
}
