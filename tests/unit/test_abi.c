// SPDX-License-Identifier: GPL-2.0-or-later
/* The uapi header has one layout for 32- and 64-bit user space. */
#include <stdlib.h>

#include <linux/ptrace_bts.h>

#include "harness.h"

TEST(abi, same_layout_m32_m64)
{
	char *p64 = harness_path(BTS_BUILD_DIR, "tests/abi-layout-64");
	char *p32 = harness_path(BTS_BUILD_DIR, "tests/abi-layout-32");
	char *a64[] = { p64, NULL }, *a32[] = { p32, NULL };
	struct harness_cmd c64, c32;

	ASSERT_EQ(harness_run(a64, 10, &c64), 0);
	ASSERT_EQ(harness_run(a32, 10, &c32), 0);
	EXPECT_EQ(harness_exit_code(&c64), 0);
	EXPECT_EQ(harness_exit_code(&c32), 0);
	EXPECT_GT(c64.out_len, (size_t)100);
	EXPECT_STREQ(c32.out, c64.out);
	harness_cmd_free(&c64);
	harness_cmd_free(&c32);
	free(p64);
	free(p32);
}

TEST(abi, record_is_24_bytes)
{
	EXPECT_EQ(sizeof(struct ptbts_record), (size_t)24);
	EXPECT_EQ(sizeof(struct ptbts_config) % 8, (size_t)0);
	EXPECT_EQ(sizeof(struct ptbts_status) % 8, (size_t)0);
	EXPECT_EQ(sizeof(struct ptbts_caps) % 8, (size_t)0);
	EXPECT_EQ(sizeof(struct ptbts_percpu_config), (size_t)PTBTS_PERCPU_CONFIG_SIZE_VER0);
	EXPECT_EQ(sizeof(struct ptbts_percpu_status) % 8, (size_t)0);
}

/*
 * Direction and size are those of the fixed header; the structs' own sizes
 * travel inside them, so the numbers never change as the structs grow.
 */
TEST(abi, ioctls_encode_the_fixed_header)
{
	static const unsigned long rw[] = {
		PTBTS_IOC_CAPS, PTBTS_IOC_STATUS, PTBTS_IOC_WAIT,
		PTBTS_IOC_PERCPU_START, PTBTS_IOC_PERCPU_STATUS,
	};
	static const unsigned long w[] = { PTBTS_IOC_ATTACH, PTBTS_IOC_ACK };
	size_t i;

	for (i = 0; i < sizeof(rw) / sizeof(rw[0]); i++) {
		EXPECT_EQ(_IOC_DIR(rw[i]), (unsigned)(_IOC_READ | _IOC_WRITE));
		EXPECT_EQ(_IOC_SIZE(rw[i]), sizeof(struct ptbts_hdr));
		EXPECT_EQ(_IOC_TYPE(rw[i]), (unsigned)PTBTS_IOC_MAGIC);
	}
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		EXPECT_EQ(_IOC_DIR(w[i]), (unsigned)_IOC_WRITE);
		EXPECT_EQ(_IOC_SIZE(w[i]), sizeof(struct ptbts_hdr));
		EXPECT_EQ(_IOC_TYPE(w[i]), (unsigned)PTBTS_IOC_MAGIC);
	}
	EXPECT_EQ(sizeof(struct ptbts_hdr), (size_t)4);
	EXPECT_EQ(PTBTS_IOC_DETACH, (unsigned long)_IO(PTBTS_IOC_MAGIC, 2));
	EXPECT_EQ(PTBTS_IOC_PERCPU_STOP, (unsigned long)_IO(PTBTS_IOC_MAGIC, 7));
}

/* 0xB7 is nsfs's (NS_GET_USERNS is _IO(0xb7, 0x1)) and remoteproc's. */
TEST(abi, magic_is_not_nsfs_or_remoteproc)
{
	EXPECT_NE(PTBTS_IOC_MAGIC, 0xb7);
	EXPECT_EQ(PTBTS_ABI_VERSION, 2);
}

TEST(abi, kinds_live_in_the_software_half)
{
	EXPECT_EQ(PTBTS_KIND_MASK & PTBTS_FLAG_HW_MASK, 0ull);
	EXPECT_EQ(PTBTS_FLAG_SW_RESERVED & PTBTS_KIND_MASK, 0ull);
	EXPECT_EQ(PTBTS_KIND(PTBTS_MKKIND(PTBTS_KIND_GAP)), (unsigned)PTBTS_KIND_GAP);
}
