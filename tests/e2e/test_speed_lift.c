// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * No thread runs past a site whose int3 is lifted (libbts/sources/ptrace-step/step_hold.c):
 * in speed-lift one thread passes a jmp 5000 times while another makes
 * that jmp fault over and over (each fault: the tracer lifts the int3 and
 * steps the real jmp); every pass and every fault is in the trace.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

static size_t count(const struct raw_dump *d, uint64_t from, uint64_t to)
{
	size_t i, j, n = 0;

	for (i = 0; i < d->n; i++)
		for (j = 0; j < d->threads[i].n; j++)
			n += d->threads[i].recs[j].from == from &&
			     d->threads[i].recs[j].to == to;
	return n;
}

TEST(speed_lift, no_pass_is_lost_while_an_int3_is_out)
{
	struct raw_labels l;
	struct harness_cmd cmd;
	struct raw_dump d;
	const char *p, *f;
	uint64_t jmp;
	char *btr;

	btr = raw_record("speed-lift", NULL, 0, &cmd);
	raw_labels_parse(cmd.out, &l);
	p = strstr(cmd.out, "passes ");
	f = strstr(cmd.out, "faults ");
	ASSERT_TRUE(p && f);
	ASSERT_GT(atoi(f + 7), 0);
	raw_dump_load(btr, &d);
	EXPECT_EQ(d.n, (size_t)2);
	jmp = raw_label(&l, "speed_hop_jmp");
	EXPECT_EQ(count(&d, jmp, raw_label(&l, "speed_hop_back")), (size_t)atoi(p + 7));
	EXPECT_EQ(count(&d, jmp, raw_label(&l, "speed_lift_handler")), (size_t)atoi(f + 7));
	raw_dump_free(&d);
	raw_labels_free(&l);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}
