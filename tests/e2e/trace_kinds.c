// SPDX-License-Identifier: GPL-2.0-or-later
#include <bts.h>

#include "trace_kinds.h"
#include "harness.h"

static void check_kind(const struct trace_kinds *k, size_t i, int kind)
{
	int want = k->kind(i);

	if (kind != want)
		harness_fail(__FILE__, __LINE__, "record %zu of %s: kind %s, expected %s",
			     i, k->what, bts_kind_name(kind), bts_kind_name(want));
}

void expect_trace_kinds(const char *btr, const struct trace_kinds *k)
{
	size_t b = 0, end = k->start + k->n;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record rec;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	if (k->bits)
		EXPECT_EQ(bts_trace_process_bits(t, bts_trace_process(t, 0)->pid),
			  (int)k->bits);
	ASSERT_LT(k->thread, bts_trace_nthreads(t));
	ASSERT_EQ(bts_rec_iter_new(t, k->thread, &it), 0);
	while ((k->exact || b < end) && bts_rec_iter_next(it, &rec) > 0) {
		if (!rec.from)	/* a marker: not counted, as in --raw */
			continue;
		if (b >= k->start && b < end)
			check_kind(k, b - k->start, bts_record_kind(&rec));
		b++;
	}
	EXPECT_EQ(b, end);
	bts_rec_iter_free(it);
	bts_trace_free(t);
}
