// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The independent oracle: the branches qemu-user's
 * instruction log shows must be exactly the records `btrace dump --raw`
 * prints, pair for pair.  static-oracle (no libc) is compared whole;
 * oracle-libc only inside its own functions, as offsets from its load
 * address, because libc picks CPU-specific routines and qemu-user has no
 * vDSO.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

#include "oracle.h"

TEST(oracle, static_program_every_record)
{
	oracle_expect_static_whole("static-oracle", NULL);
}

/*
 * The load bias of @prog as the trace's maps give it: its executable
 * mapping, whose file offset lies in one of @img's code segments.
 */
static uint64_t trace_bias(const char *prog, const struct oracle_image *img)
{
	char *trace = harness_path(harness_tmpdir(), "oracle.btr");
	char *real = realpath(prog, NULL);
	const struct bts_map *maps;
	struct bts_trace *t;
	uint64_t bias = 0;
	size_t n;

	ASSERT_TRUE(real);
	if (bts_trace_new(trace, &t))
		FAIL("%s: %s", trace, bts_errdetail());
	ASSERT_GE(bts_trace_nprocesses(t), (size_t)1);
	n = bts_trace_maps(t, bts_trace_process(t, 0)->pid, &maps);
	for (size_t i = 0; i < n && !bias; i++) {
		for (size_t j = 0; j < img->nsegs && !bias; j++) {
			const struct oracle_seg *s = &img->segs[j];

			if (strcmp(maps[i].path, real) ||
			    maps[i].offset < s->offset ||
			    maps[i].offset >= s->offset + s->size)
				continue;
			bias = maps[i].start - maps[i].offset -
			       (s->vaddr - s->offset);
		}
	}
	bts_trace_free(t);
	if (!bias)
		FAIL("the trace has no executable map of %s", real);
	free(real);
	free(trace);
	return bias;
}

/* The trace's own maps agree with the program on where it lives. */
static void bias_from_maps(const char *prog, const struct oracle_image *img,
			   uint64_t bias)
{
	EXPECT_EQ(trace_bias(prog, img), bias);
}

TEST(oracle, libc_program_own_functions)
{
	oracle_expect_libc_program("oracle-libc", "oracle.btr", NULL, "qemu",
				   bias_from_maps);
}
