// SPDX-License-Identifier: GPL-2.0-or-later
/* Record kinds: the software half of flags, checked strictly. */
#include <bts.h>

#include "harness.h"

static int kind_of(uint64_t from, uint64_t flags)
{
	struct ptbts_record r = { .from = from, .to = 0x2000, .flags = flags };

	return bts_record_kind(&r);
}

TEST(record, branch_kinds_need_from)
{
	EXPECT_EQ(kind_of(0x1000, 0), PTBTS_KIND_BRANCH);
	EXPECT_EQ(kind_of(0x1000, PTBTS_MKKIND(PTBTS_KIND_SIGNAL)), PTBTS_KIND_SIGNAL);
	EXPECT_EQ(kind_of(0x1000, PTBTS_MKKIND(PTBTS_KIND_SIGRETURN)),
		  PTBTS_KIND_SIGRETURN);
	EXPECT_EQ(kind_of(0, 0), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "record flags 0x0: a branch record with from == 0");
	EXPECT_EQ(kind_of(0, PTBTS_MKKIND(PTBTS_KIND_SIGNAL)), -BTS_E_FORMAT);
	EXPECT_EQ(kind_of(0, PTBTS_MKKIND(PTBTS_KIND_SIGRETURN)), -BTS_E_FORMAT);
}

TEST(record, marker_kinds_need_from_zero)
{
	static const int markers[] = {
		PTBTS_KIND_EXEC, PTBTS_KIND_LOST, PTBTS_KIND_GAP, PTBTS_KIND_FILTERED,
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		EXPECT_EQ(kind_of(0, PTBTS_MKKIND(markers[i])), markers[i]);
		EXPECT_EQ(kind_of(0x1000, PTBTS_MKKIND(markers[i])), -BTS_E_FORMAT);
	}
	EXPECT_STREQ(bts_errdetail(),
		     "record flags 0x1300000000: a marker record with from != 0");
}

TEST(record, unknown_kinds_are_refused)
{
	for (unsigned k = 0; k < 256; k++) {
		bool known = k <= 2 || (k >= 0x10 && k <= 0x13);
		int got = kind_of(k >= 0x10 && k < 0x20 ? 0 : 0x1000, PTBTS_MKKIND(k));

		EXPECT_EQ(got, known ? (int)k : -BTS_E_FORMAT);
	}
	EXPECT_EQ(kind_of(0x1000, PTBTS_MKKIND(3)), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "record flags 0x300000000: unknown record kind");
}

TEST(record, reserved_bits_are_refused)
{
	for (int bit = 40; bit < 64; bit++)
		EXPECT_EQ(kind_of(0x1000, 1ULL << bit), -BTS_E_FORMAT);
	EXPECT_EQ(kind_of(0, PTBTS_MKKIND(PTBTS_KIND_LOST) | 1ULL << 40), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "record flags 0x11100000000: reserved flag bits are set");
}

TEST(record, hardware_bits_are_free)
{
	for (int bit = 0; bit < 32; bit++)
		EXPECT_EQ(kind_of(0x1000, 1ULL << bit), PTBTS_KIND_BRANCH);
	EXPECT_EQ(kind_of(0x1000, PTBTS_FLAG_HW_MASK | PTBTS_MKKIND(PTBTS_KIND_SIGNAL)),
		  PTBTS_KIND_SIGNAL);
	EXPECT_EQ(kind_of(0, PTBTS_FLAG_HW_MASK | PTBTS_MKKIND(PTBTS_KIND_GAP)),
		  PTBTS_KIND_GAP);
}

TEST(record, kind_names)
{
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_BRANCH), "branch");
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_SIGNAL), "signal");
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_SIGRETURN), "sigreturn");
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_EXEC), "exec");
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_LOST), "lost");
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_GAP), "gap");
	EXPECT_STREQ(bts_kind_name(PTBTS_KIND_FILTERED), "filtered");
	EXPECT_STREQ(bts_kind_name(3), "unknown");
	EXPECT_STREQ(bts_kind_name(-1), "unknown");
	EXPECT_STREQ(bts_kind_name(-BTS_E_FORMAT), "unknown");
	EXPECT_STREQ(bts_kind_name(1000), "unknown");
}

TEST(record, null_is_invalid)
{
	EXPECT_EQ(bts_record_kind(NULL), -BTS_E_INVAL);
}
