// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bts_pebs_decode() on hand-made records: layouts, adaptive groups, and
 * every malformed input refused with BTS_E_FORMAT.
 */
#include <string.h>

#include "bts.h"
#include "harness.h"

TEST(pebs, sizes)
{
	EXPECT_EQ(bts_pebs_record_size(0), 144u);
	EXPECT_EQ(bts_pebs_record_size(1), 176u);
	EXPECT_EQ(bts_pebs_record_size(2), 192u);
	EXPECT_EQ(bts_pebs_record_size(3), 200u);
	EXPECT_EQ(bts_pebs_record_size(4), 32u);
	EXPECT_EQ(bts_pebs_record_size(5), 32u);
	EXPECT_EQ(bts_pebs_record_size(6), 0u);
}

TEST(pebs, legacy_registers_in_order)
{
	uint64_t r[25];
	struct bts_pebs p;
	int i;

	for (i = 0; i < 25; i++)
		r[i] = 100 + i;
	ASSERT_EQ(bts_pebs_decode(3, r, sizeof(r), &p, sizeof(p)), 200);
	EXPECT_EQ(p.flags, 100u);
	EXPECT_EQ(p.regs[0], 102u);	/* rax */
	EXPECT_EQ(p.regs[7], 109u);	/* rsp */
	EXPECT_EQ(p.regs[15], 117u);	/* r15 */
	EXPECT_EQ(p.applicable, 118u);
	EXPECT_EQ(p.ip, 122u);		/* real ip */
	EXPECT_TRUE(p.ip_exact);
	EXPECT_EQ(p.tsc, 124u);
	ASSERT_EQ(bts_pebs_decode(0, r, 144, &p, sizeof(p)), 144);
	EXPECT_EQ(p.ip, 101u);
	EXPECT_FALSE(p.ip_exact);
	EXPECT_EQ(p.applicable, 0u);
}

TEST(pebs, adaptive_groups)
{
	uint64_t r[4 + 4 + 18];
	struct bts_pebs p;
	int i;

	memset(r, 0, sizeof(r));
	r[0] = ((uint64_t)sizeof(r) << 48) | 3;	/* meminfo + GP registers */
	r[1] = 0x401000;
	r[2] = 1;
	r[3] = 555;
	for (i = 0; i < 18; i++)
		r[8 + i] = 200 + i;	/* flags ip ax cx dx bx sp bp si di r8.. */
	ASSERT_EQ(bts_pebs_decode(4, r, sizeof(r), &p, sizeof(p)), (int)sizeof(r));
	EXPECT_EQ(p.ip, 0x401000u);
	EXPECT_EQ(p.tsc, 555u);
	EXPECT_TRUE(p.has_regs);
	EXPECT_EQ(p.flags, 200u);
	EXPECT_EQ(p.regs[0], 202u);	/* rax */
	EXPECT_EQ(p.regs[1], 205u);	/* rbx */
	EXPECT_EQ(p.regs[2], 203u);	/* rcx */
	EXPECT_EQ(p.regs[7], 206u);	/* rsp */
	EXPECT_EQ(p.regs[8], 210u);	/* r8 */
}

TEST(pebs, malformed_refused)
{
	uint64_t r[25] = { 0 };
	struct bts_pebs p;

	EXPECT_EQ(bts_pebs_decode(6, r, sizeof(r), &p, sizeof(p)), -BTS_E_FORMAT);
	EXPECT_EQ(bts_pebs_decode(2, r, 191, &p, sizeof(p)), -BTS_E_FORMAT);
	r[0] = 40ULL << 48;	/* basic group only is 32 bytes */
	EXPECT_EQ(bts_pebs_decode(4, r, sizeof(r), &p, sizeof(p)), -BTS_E_FORMAT);
	r[0] = (32ULL + 3 * 24) << 48 | (1ULL << 3) | (2ULL << 24);
	EXPECT_EQ(bts_pebs_decode(5, r, 64, &p, sizeof(p)), -BTS_E_FORMAT);
	EXPECT_EQ(bts_pebs_decode(5, r, sizeof(r), &p, sizeof(p)), 104);
	EXPECT_EQ(bts_pebs_decode(0, NULL, 144, &p, sizeof(p)), -BTS_E_INVAL);
}
