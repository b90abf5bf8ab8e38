// SPDX-License-Identifier: GPL-2.0-or-later
/* The uapi header has one layout for 32- and 64-bit user space. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ptrace_bts.h>

#include "harness.h"

/*
 * One line "NAME A B" per entry of a layout section (abi_layout.c): a
 * NUL-terminated name, then two 8-byte little-endian numbers.
 */
static char *layout_text(const char *rel)
{
	char *path = harness_path(BTS_BUILD_DIR, rel), *text = NULL;
	unsigned char buf[8192];
	size_t len, i = 0, tlen = 0;
	int64_t num[2];
	FILE *f, *out;

	f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	out = open_memstream(&text, &tlen);
	if (!out)
		return NULL;
	while (i < len) {
		const char *name = (const char *)buf + i;
		size_t n = strnlen(name, len - i);

		if (i + n + 1 + sizeof(num) > len) {
			fprintf(out, "truncated at %zu\n", i);
			break;
		}
		memcpy(num, buf + i + n + 1, sizeof(num));
		fprintf(out, "%s %lld %lld\n", name, (long long)num[0],
			(long long)num[1]);
		i += n + 1 + sizeof(num);
	}
	fclose(out);
	return text;
}

/* Laid out by the compiler for each target; nothing of it has to run. */
TEST(abi, same_layout_m32_m64)
{
	char *l64 = layout_text("tests/abi-layout-64");
	char *l32 = layout_text("tests/abi-layout-32");

	ASSERT_TRUE(l64 != NULL);
	ASSERT_TRUE(l32 != NULL);
	EXPECT_TRUE(strstr(l64, "sizeof(struct ptbts_record) 24 0\n") != NULL);
	EXPECT_TRUE(strstr(l64, "\nioctl PERCPU_STATUS ") != NULL);
	EXPECT_GT(strlen(l64), (size_t)100);
	EXPECT_STREQ(l32, l64);
	free(l64);
	free(l32);
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
