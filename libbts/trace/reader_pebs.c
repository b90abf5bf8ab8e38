// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * PEBS chunks (trace_format.h): kmod-pebs's samples.  Each record is
 * decoded when the file is opened, so that a record that does not decode
 * to its declared size makes the file damaged, and the samples are the
 * model's own copies (bts_trace_pebs()), safe from a file that changes.
 */

#include "trace/reader.h"

/* The fixed part's fields, host order, checked against the chunk's size. */
static int pebs_header(const uint8_t *p, size_t plen, size_t off,
		       struct bts_chunk_pebs *c)
{
	const char *why;

	if (plen < sizeof(*c))
		return bts_reader_bad(off, "pebs chunk is too short");
	bts_chunk_load(c, p, sizeof(*c), BTS_LAYOUT_PEBS);
	if (c->reserved || c->count > BTS_PEBS_PER_CHUNK ||
	    (!c->count && !c->lost) || !c->record_size ||
	    c->record_size > BTS_PEBS_RECORD_MAX || c->record_size % 8)
		return bts_reader_bad(off, "pebs chunk: bad count, record size or reserved field");
	if ((uint64_t)c->count * c->record_size != plen - sizeof(*c))
		return bts_reader_bad(off, "pebs chunk: the count does not match the chunk");
	why = bts_pebs_event_problem(c->event, c->period);
	if (why)
		return bts_fail(BTS_E_FORMAT, "offset %zu: pebs chunk: event 0x%llx, "
				"period %llu: %s", off,
				(unsigned long long)c->event,
				(unsigned long long)c->period, why);
	return 0;
}

int bts_read_pebs_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			size_t off)
{
	struct bts_chunk_pebs c;
	struct trace_thread *th;
	int err = pebs_header(p, plen, off, &c);

	if (err)
		return err;
	th = bts_reader_thread_of(t, c.pid, c.tid);
	if (!th)
		return bts_reader_bad(off, "pebs records of a thread that has not appeared");
	for (uint32_t i = 0; i < c.count; i++) {
		struct bts_pebs_sample *s;

		if (bts_reader_grow(&t->pebs, &t->cappebs, t->npebs, sizeof(*s)))
			return -BTS_E_NOMEM;
		s = &t->pebs[t->npebs];
		*s = (struct bts_pebs_sample){
			.pid = c.pid, .tid = c.tid, .format = c.format,
			.event = c.event, .period = c.period,
		};
		if (bts_pebs_decode(c.format,
				    p + sizeof(c) + (size_t)i * c.record_size,
				    c.record_size, &s->rec,
				    sizeof(s->rec)) != (int)c.record_size)
			return bts_fail(BTS_E_FORMAT, "offset %zu: pebs record %u of "
					"format %u is not %u bytes", off, i,
					c.format, c.record_size);
		t->npebs++;
	}
	t->pebs_lost += c.lost;
	return 0;
}

size_t bts_trace_npebs(const struct bts_trace *t)
{
	return t ? t->npebs : 0;
}

const struct bts_pebs_sample *bts_trace_pebs(const struct bts_trace *t, size_t i)
{
	return t && i < t->npebs ? &t->pebs[i] : NULL;
}

uint64_t bts_trace_pebs_lost(const struct bts_trace *t)
{
	return t ? t->pebs_lost : 0;
}
