// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vDSO code is user code and is recorded.  seq-vdso reads the clock through
 * libc and then by calling the vDSO's __vdso_clock_gettime from asm; both
 * calls enter the "[vdso]" mapping of the trace at that function, run
 * there (every record until the return has both ends in the vDSO), and
 * return from inside it to the instruction after the call.
 */
#include <stdlib.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"

struct range {
	uint64_t start;
	uint64_t end;
};

static bool in(const struct range *r, uint64_t a)
{
	return a >= r->start && a < r->end;
}

/* The executable mapping named @path ("[vdso]") of the traced process. */
static struct range trace_map(const char *btr, const char *path)
{
	const struct bts_map *maps;
	struct range r = { 0, 0 };
	struct bts_trace *t;
	size_t n, found = 0;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nprocesses(t), (size_t)1);
	n = bts_trace_maps(t, bts_trace_process(t, 0)->pid, &maps);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(maps[i].path, path))
			continue;
		r = (struct range){ maps[i].start, maps[i].end };
		found++;
	}
	bts_trace_free(t);
	if (found != 1)
		FAIL("%zu maps named %s in the trace, expected 1", found, path);
	return r;
}

/*
 * From record @i, which enters the vDSO: the records that follow stay in
 * it until one leaves it, from inside, for @back (0: anywhere outside).
 * Returns that one's index.
 */
static size_t expect_vdso_visit(const struct raw_thread *t, size_t i,
				const struct range *vdso, uint64_t back)
{
	size_t first = i;

	for (i++; i < t->n && in(vdso, t->recs[i].to); i++)
		if (!in(vdso, t->recs[i].from))
			FAIL("record %zu 0x%llx -> 0x%llx: came into the vDSO from outside",
			     i, (unsigned long long)t->recs[i].from,
			     (unsigned long long)t->recs[i].to);
	ASSERT_LT(i, t->n);
	raw_expect_no_marker(t, first, i);
	EXPECT_TRUE(in(vdso, t->recs[i].from));
	if (back)
		EXPECT_EQ(t->recs[i].to, back);
	return i;
}

TEST(seq, vdso_records)
{
	struct harness_cmd cmd;
	struct raw_labels l;
	struct raw_dump d;
	struct range vdso;
	const struct raw_thread *t;
	uint64_t fn;
	size_t libc_in = 0, asm_in, out, n_in = 0;
	char *btr = raw_record("seq-vdso", NULL, 0, &cmd);

	raw_labels_parse(cmd.out, &l);
	raw_dump_load(btr, &d);
	vdso = trace_map(btr, "[vdso]");
	fn = raw_label(&l, "vdso_clock_gettime");
	EXPECT_EQ(vdso.start, raw_label(&l, "vdso_base"));
	ASSERT_TRUE(in(&vdso, fn));
	ASSERT_EQ(d.n, (size_t)1);
	t = &d.threads[0];

	/* Exactly two entries, both at the function: libc's, then ours. */
	for (size_t i = 0; i < t->n; i++) {
		if (in(&vdso, t->recs[i].from) || !in(&vdso, t->recs[i].to))
			continue;
		EXPECT_EQ(t->recs[i].to, fn);
		if (!n_in++)
			libc_in = i;
	}
	ASSERT_EQ(n_in, (size_t)2);
	asm_in = raw_find_one(t, raw_label(&l, "seq_vdso_call"), fn);
	ASSERT_LT(libc_in, asm_in);

	/*
	 * libc calls through a pointer: the return lands right after that
	 * call instruction (2 to 7 bytes long), which is as exact as a test
	 * can be about libc's code without decoding it.
	 */
	out = expect_vdso_visit(t, libc_in, &vdso, 0);
	EXPECT_FALSE(in(&vdso, t->recs[out].to));
	EXPECT_GT(t->recs[out].to, t->recs[libc_in].from);
	EXPECT_LE(t->recs[out].to, t->recs[libc_in].from + 7);

	out = expect_vdso_visit(t, asm_in, &vdso, raw_label(&l, "seq_vdso_back"));
	ASSERT_LT(out + 1, t->n);
	EXPECT_EQ(t->recs[out + 1].from, raw_label(&l, "seq_vdso_ret"));

	raw_dump_free(&d);
	raw_labels_free(&l);
	harness_cmd_free(&cmd);
	free(btr);
}
