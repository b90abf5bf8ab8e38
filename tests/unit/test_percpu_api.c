// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libbts's side of the module's per-CPU mode that runs anywhere: the CPU
 * list, the arguments refused before the module is asked, and the answer
 * where the module is missing.  (In the guest, tests/kernel/test_percpu.c
 * has the module's own refusal through btrace info.)
 */
#include <stdlib.h>

#include <bts.h>

#include "fake_root.h"
#include "harness.h"

TEST(percpu_api, cpu_lists)
{
	uint64_t m = 0;

	EXPECT_EQ(bts_percpu_parse_cpus("0", &m), 0);
	EXPECT_EQ(m, 1u);
	EXPECT_EQ(bts_percpu_parse_cpus("1,3", &m), 0);
	EXPECT_EQ(m, 0xau);
	EXPECT_EQ(bts_percpu_parse_cpus("0-3,8,10-11", &m), 0);
	EXPECT_EQ(m, 0xd0fu);
	EXPECT_EQ(bts_percpu_parse_cpus("63", &m), 0);
	EXPECT_EQ(m, 1ull << 63);
	EXPECT_EQ(bts_percpu_parse_cpus("0-63", &m), 0);
	EXPECT_EQ(m, ~0ull);
	EXPECT_EQ(bts_percpu_parse_cpus("2,2", &m), 0);
	EXPECT_EQ(m, 4u);
}

TEST(percpu_api, bad_cpu_lists)
{
	static const char *const bad[] = {
		"", "64", "0-64", "3-1", "a", "1,", ",1", "1-", "-1", "1 2",
		"1;2", "0x1", "99999999999999999999", "1--2",
	};
	uint64_t m = 42;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bts_percpu_parse_cpus(bad[i], &m), -BTS_E_INVAL);
		EXPECT_EQ(m, 42u);
	}
	EXPECT_EQ(bts_percpu_parse_cpus(NULL, &m), -BTS_E_INVAL);
	EXPECT_EQ(bts_percpu_parse_cpus("1", NULL), -BTS_E_INVAL);
}

TEST(percpu_api, start_checks_its_arguments)
{
	struct bts_percpu *p = NULL;

	EXPECT_EQ(bts_percpu_new(0, 4096, PTBTS_MODE_RING, &p), -BTS_E_INVAL);
	EXPECT_EQ(bts_percpu_new(1, 4096, PTBTS_MODE_BLOCK, &p), -BTS_E_INVAL);
	EXPECT_EQ(bts_percpu_new(1, 4096, PTBTS_MODE_RING, NULL), -BTS_E_INVAL);
	EXPECT_TRUE(p == NULL);
	EXPECT_EQ(bts_percpu_probe(NULL, 0), -BTS_E_INVAL);
	EXPECT_EQ(bts_percpu_status(NULL, 0, NULL), -BTS_E_INVAL);
	EXPECT_TRUE(bts_percpu_records(NULL, 0, NULL) == NULL);
	bts_percpu_free(NULL);
}

/* The host never has the module: the start says so, nothing is made. */
TEST(percpu_api, start_without_the_module)
{
	struct bts_percpu *p = NULL;

	EXPECT_EQ(bts_percpu_new(3, 4096, PTBTS_MODE_RING, &p), -BTS_E_NOSOURCE);
	EXPECT_STREQ(bts_errdetail(), "per-CPU mode: " PTBTS_DEVICE
		     " not present: module not loaded");
	EXPECT_TRUE(p == NULL);
}

/* No module (the fabricated /sys has none): the module check's line. */
TEST(percpu_api, probe_without_the_module)
{
	struct bts_percpu_info info;

	fake_root_intel("3\n", "3\n", "Mitigation: PTI\n", "[none] integrity confidentiality\n");
	fake_root_enter();
	EXPECT_EQ(bts_percpu_probe(&info, sizeof(info)), 0);
	fake_root_leave();
	EXPECT_FALSE(info.available);
	EXPECT_STREQ(info.why, "the ptrace_bts module is not loaded: the kmod "
		     "sources need it; load it with 'modprobe ptrace_bts' (see "
		     "README: DKMS)");
}
