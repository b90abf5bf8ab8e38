// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace selftest's verdicts (btrace/selftest/compare.c) on fabricated
 * records: a source that agrees, one that differs in a record, one that
 * stops early or runs on, each with its exact report line; and the result
 * line with the exit status, non-zero when anything disagreed.  No machine
 * here has two sources that disagree, so the records are made by hand.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "selftest.h"

static const struct ptbts_record ref_recs[] = {
	{ 0x401000, 0x401100, 0 },
	{ 0x401105, 0x401200, 0 },
	{ 0x401210, 0x401000, 0 },
	{ 0, 7, PTBTS_MKKIND(PTBTS_KIND_LOST) },
};

/* What selftest_compare() prints for @got against ref_recs, and returns. */
static char *verdict(const struct ptbts_record *recs, size_t n, int *ret)
{
	struct selftest_trace ref = { .rec = (struct ptbts_record *)ref_recs,
				      .n = 4 };
	struct selftest_trace got = { .rec = (struct ptbts_record *)recs, .n = n };
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	ASSERT_TRUE(f != NULL);
	*ret = selftest_compare(f, "branches", "kmod-bts", "ptrace-step", &got, &ref);
	fclose(f);
	return out;
}

TEST(selftest_report, agreeing_source)
{
	char *out;
	int ret;

	out = verdict(ref_recs, 4, &ret);
	EXPECT_EQ(ret, 0);
	EXPECT_STREQ(out, "branches   kmod-bts     agrees (4 records)\n");
	free(out);
}

TEST(selftest_report, differing_record_named)
{
	struct ptbts_record recs[4];
	char *out;
	int ret;

	memcpy(recs, ref_recs, sizeof(recs));
	recs[2].to = 0x401004;
	out = verdict(recs, 4, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-bts     differs at record 2 of 4 (4): "
		     "{0x401210, 0x401004, 0x0} where ptrace-step has "
		     "{0x401210, 0x401000, 0x0}\n");
	free(out);
	memcpy(recs, ref_recs, sizeof(recs));
	recs[3].to = 6;		/* a marker's payload */
	out = verdict(recs, 4, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-bts     differs at record 3 of 4 (4): "
		     "{0x0, 0x6, 0x1100000000} where ptrace-step has "
		     "{0x0, 0x7, 0x1100000000}\n");
	free(out);
}

TEST(selftest_report, shorter_and_longer_streams)
{
	struct ptbts_record recs[5];
	char *out;
	int ret;

	out = verdict(ref_recs, 2, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-bts     differs at record 2 of 2 (4): "
		     "{the end} where ptrace-step has {0x401210, 0x401000, 0x0}\n");
	free(out);
	memcpy(recs, ref_recs, sizeof(ref_recs));
	recs[4] = (struct ptbts_record){ 0x401001, 0x401002, 0 };
	out = verdict(recs, 5, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-bts     differs at record 4 of 5 (4): "
		     "{0x401001, 0x401002, 0x0} where ptrace-step has {the end}\n");
	free(out);
}

static char *result(int failed, int total, int *status)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	ASSERT_TRUE(f != NULL);
	*status = selftest_result(f, failed, total);
	fclose(f);
	return out;
}

TEST(selftest_report, exit_status_follows_the_verdicts)
{
	char *out;
	int status;

	out = result(1, 6, &status);
	EXPECT_EQ(status, 1);
	EXPECT_STREQ(out, "result      1 of 6 comparisons failed\n");
	free(out);
	out = result(0, 6, &status);
	EXPECT_EQ(status, 0);
	EXPECT_STREQ(out, "result      all agree (6 comparisons)\n");
	free(out);
	out = result(0, 0, &status);
	EXPECT_EQ(status, 0);
	EXPECT_STREQ(out, "result      nothing to compare: ptrace-step is the "
		     "only source here\n");
	free(out);
}

/* kmod-pebs's samples every 2 branch records of 5 (their 'from'). */
static char *pebs_verdict(uint64_t *samples, size_t n, bool exact,
			  uint64_t lost, int *ret)
{
	static struct ptbts_record all[5] = {
		{ 0x1000, 0x2000, 0 }, { 0x2010, 0x3000, 0 }, { 0x3010, 0x1000, 0 },
		{ 0x1010, 0x2000, 0 }, { 0x2010, 0x3000, 0 },
	};
	struct selftest_trace t = {
		.samples = samples, .nsamples = n, .exact = exact,
		.lost_samples = lost, .all = all, .nall = 5,
	};
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	ASSERT_TRUE(f != NULL);
	*ret = selftest_check_pebs(f, "branches", &t, 2);
	fclose(f);
	return out;
}

TEST(selftest_report, pebs_samples_against_the_period_rule)
{
	uint64_t s[3] = { 0x2010, 0x1010, 0x4000 };
	char *out;
	int ret;

	out = pebs_verdict(s, 2, true, 0, &ret);
	EXPECT_EQ(ret, 0);
	EXPECT_STREQ(out, "branches   kmod-pebs    PEBS 2 samples, one every 2 of 5 branches\n");
	free(out);
	s[0] = 0x3000;		/* formats 0, 1: the IP after the branch */
	s[1] = 0x2000;
	out = pebs_verdict(s, 2, false, 0, &ret);
	EXPECT_EQ(ret, 0);
	free(out);
	out = pebs_verdict(s, 2, true, 0, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-pebs    PEBS sample 0 of 2 at 0x3000 where "
		     "branch 1 is {0x2010, 0x3000}\n");
	free(out);
	s[0] = 0x2010;
	s[1] = 0x1010;
	out = pebs_verdict(s, 3, true, 0, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-pebs    PEBS 3 samples (0 lost) of 5 "
		     "branches, want 2\n");
	free(out);
	out = pebs_verdict(s, 2, true, 4, &ret);
	EXPECT_EQ(ret, 1);
	EXPECT_STREQ(out, "branches   kmod-pebs    PEBS 2 samples (4 lost) of 5 "
		     "branches, want 2\n");
	free(out);
}
