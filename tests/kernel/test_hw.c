// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hardware sources in the guest.  QEMU's CPU here (qemu-run gives no
 * -cpu: TCG's default qemu64, an AMD-vendor model without DS) cannot do
 * BTS or PEBS: kmod-bts, kmod-pebs and the per-CPU mode must say why, the
 * same way in the capabilities, in sysfs and to an unprivileged caller,
 * refuse ATTACH without pinning anything, and touch no MSR the CPU lacks
 * (qemu-run fails the run on a general protection fault, a WARNING or a
 * call trace in the kernel log, which an unchecked MSR access prints).
 * The expected reason is worked out from
 * /proc/cpuinfo, by the order of the uapi header, so that the test says
 * what is true of whatever CPU the guest has.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"

#define BUF_SIZE (4 * KT_PAGE)

struct cpuinfo {
	char vendor[64];
	char flags[4096];
	int family;
	int model;
};

static int read_cpuinfo(struct cpuinfo *ci)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return -1;
	memset(ci, 0, sizeof(*ci));
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 2;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9) && !ci->vendor[0])
			snprintf(ci->vendor, sizeof(ci->vendor), "%s", v);
		else if (!strncmp(line, "flags", 5) && !ci->flags[0])
			snprintf(ci->flags, sizeof(ci->flags), " %s ", v);
		else if (!strncmp(line, "cpu family", 10) && !ci->family)
			ci->family = atoi(v);
		else if (!strncmp(line, "model\t", 6) && !ci->model)
			ci->model = atoi(v);
	}
	fclose(f);
	return ci->vendor[0] && ci->flags[0] ? 0 : -1;
}

static bool has_flag(const struct cpuinfo *ci, const char *flag)
{
	char word[64];

	snprintf(word, sizeof(word), " %s ", flag);
	return strstr(ci->flags, word) != NULL;
}

/*
 * The reason the module must give, from the CPU's own account: only the
 * machine's reasons, which is all a guest without BTS gets to.  255: the
 * CPU passes them, and this test does not know what follows.
 */
static unsigned expected(const struct cpuinfo *ci, bool pebs)
{
	static const int erratum[] = { 0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c,
				       0x2f, 0x2a, 0x2d, 0x3a };
	size_t i;

	if (strcmp(ci->vendor, "GenuineIntel"))
		return PTBTS_UNAVAIL_NOT_INTEL;
	if (!has_flag(ci, "dts") || !has_flag(ci, "dtes64"))
		return PTBTS_UNAVAIL_NO_DS;
	if (pebs && !has_flag(ci, "pebs"))
		return PTBTS_UNAVAIL_PEBS_OFF;
	if (!pebs && !has_flag(ci, "bts"))
		return PTBTS_UNAVAIL_BTS_OFF;
	for (i = 0; !pebs && ci->family == 6 && i < sizeof(erratum) / sizeof(erratum[0]); i++)
		if (ci->model == erratum[i])
			return PTBTS_UNAVAIL_ERRATUM;
	if (has_flag(ci, "pti"))
		return PTBTS_UNAVAIL_PTI;
	return 255;
}

static const char *reason_text(unsigned why)
{
	switch (why) {
	case PTBTS_UNAVAIL_NOT_INTEL:	return "not an Intel CPU";
	case PTBTS_UNAVAIL_NO_DS:	return "no debug store";
	case PTBTS_UNAVAIL_BTS_OFF:	return "BTS unavailable";
	case PTBTS_UNAVAIL_PEBS_OFF:	return "PEBS unavailable";
	case PTBTS_UNAVAIL_ERRATUM:	return "BTS erratum on this CPU model";
	case PTBTS_UNAVAIL_PTI:		return "page-table isolation";
	default:			return "?";
	}
}

TEST(hw, guest_cpu_cannot_do_bts)
{
	struct cpuinfo ci;

	ASSERT_EQ(read_cpuinfo(&ci), 0);
	/* qemu64: what qemu-run boots.  The rest of the file follows cpuinfo. */
	EXPECT_STREQ(ci.vendor, "AuthenticAMD");
	EXPECT_EQ(expected(&ci, false), (unsigned)PTBTS_UNAVAIL_NOT_INTEL);
	EXPECT_EQ(expected(&ci, true), (unsigned)PTBTS_UNAVAIL_NOT_INTEL);
}

TEST(hw, caps_give_the_cpu_reason)
{
	struct ptbts_caps c;
	struct cpuinfo ci;

	ASSERT_EQ(read_cpuinfo(&ci), 0);
	ASSERT_EQ(kt_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], expected(&ci, false));
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_PEBS], expected(&ci, true));
	EXPECT_EQ(c.percpu_unavail, expected(&ci, false));
	EXPECT_EQ(c.sources & (1u << PTBTS_SOURCE_KMOD_BTS), 0u);
	EXPECT_EQ(c.sources & (1u << PTBTS_SOURCE_KMOD_PEBS), 0u);
	EXPECT_EQ(c.pebs_format, ~0u);
	EXPECT_EQ(c.pebs_record_size, 0u);
	EXPECT_EQ(c.flags, (unsigned)PTBTS_CAPS_HW_UNVERIFIED);
}

static void expect_file(const char *rel, const char *want)
{
	char path[256], line[128];

	snprintf(path, sizeof(path), "%s/%s", KT_SYSFS, rel);
	ASSERT_EQ(kt_read_line(path, line, sizeof(line)), 0);
	EXPECT_STREQ(line, want);
}

TEST(hw, sysfs_gives_the_cpu_reason)
{
	struct cpuinfo ci;

	ASSERT_EQ(read_cpuinfo(&ci), 0);
	expect_file("sources/kmod-bts/available", "0");
	expect_file("sources/kmod-bts/reason", reason_text(expected(&ci, false)));
	expect_file("sources/kmod-pebs/available", "0");
	expect_file("sources/kmod-pebs/reason", reason_text(expected(&ci, true)));
	expect_file("percpu_reason", reason_text(expected(&ci, false)));
	expect_file("hw_verified", "0");
}

/* The machine's reason comes before the caller's (no capabilities). */
static int caps_unprivileged(void *arg)
{
	const struct cpuinfo *ci = arg;
	struct ptbts_caps c;

	KT_CHECK(kt_become_user() == 0);
	KT_CHECK(kt_caps(&c) == 0);
	KT_CHECK(c.unavail[PTBTS_SOURCE_KMOD_BTS] == expected(ci, false));
	KT_CHECK(c.unavail[PTBTS_SOURCE_KMOD_PEBS] == expected(ci, true));
	KT_CHECK(c.percpu_unavail == expected(ci, false));
	return 0;
}

TEST(hw, unprivileged_caller_gets_the_cpu_reason)
{
	struct cpuinfo ci;

	ASSERT_EQ(read_cpuinfo(&ci), 0);
	EXPECT_EQ(kt_in_child(caps_unprivileged, &ci), 0);
}

/* ATTACH refuses both hardware sources and pins nothing. */
TEST(hw, attach_refused_pins_nothing)
{
	static const unsigned modes[] = { PTBTS_MODE_RING, PTBTS_MODE_STOP,
					  PTBTS_MODE_BLOCK };
	struct ptbts_config c;
	struct kt_tracee t;
	void *buf = kt_map(BUF_SIZE), *buf2 = kt_map(BUF_SIZE);
	int fd = kt_open();
	size_t i;

	ASSERT_TRUE(buf != NULL);
	ASSERT_TRUE(buf2 != NULL);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		c = kt_config(t.pid, buf, BUF_SIZE);
		c.mode = modes[i];
		c.source = PTBTS_SOURCE_KMOD_BTS;
		EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
		c.source = PTBTS_SOURCE_KMOD_PEBS;
		EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
		/* With its second region too. */
		c.buffer2 = (uintptr_t)buf2;
		c.buffer2_size = BUF_SIZE;
		EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
		EXPECT_EQ(kt_pinned(), 0);
	}
	/* The thread is still free for a source that works here. */
	c = kt_config(t.pid, buf, BUF_SIZE);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), 0);
	EXPECT_EQ(kt_detach(fd, t.pid), 0);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, BUF_SIZE);
	kt_unmap(buf2, BUF_SIZE);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * kmod-pebs's second region is judged from the config on any machine:
 * whole pages, apart from the first region; a good pair is then refused
 * for the CPU's reason, with nothing pinned.
 */
TEST(hw, pebs_second_region_checked)
{
	uint8_t *p = kt_map(16 * KT_PAGE);
	struct ptbts_config c;
	struct kt_tracee t;
	int fd = kt_open();

	ASSERT_TRUE(p != NULL);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	c = kt_config(t.pid, p, 8 * KT_PAGE);
	c.source = PTBTS_SOURCE_KMOD_PEBS;
	c.buffer2 = (uintptr_t)(p + 8 * KT_PAGE) + 64;
	c.buffer2_size = 4 * KT_PAGE;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	c.buffer2 = (uintptr_t)(p + 8 * KT_PAGE);
	c.buffer2_size = 4 * KT_PAGE + 8;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	c.buffer2_size = 0;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	/* Overlapping the first region: its last page, all of it, before it. */
	c.buffer2 = (uintptr_t)(p + 7 * KT_PAGE);
	c.buffer2_size = 4 * KT_PAGE;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	c.buffer2 = (uintptr_t)p;
	c.buffer2_size = 8 * KT_PAGE;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	c.buffer = (uintptr_t)(p + 4 * KT_PAGE);
	c.buffer2 = (uintptr_t)p;
	c.buffer2_size = 5 * KT_PAGE;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	/* Adjacent on either side: a good pair, refused for the CPU. */
	c.buffer2_size = 4 * KT_PAGE;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
	c.buffer = (uintptr_t)p;
	c.buffer2 = (uintptr_t)(p + 8 * KT_PAGE);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
	EXPECT_EQ(kt_pinned(), 0);
	/* kmod-bts fills one region only. */
	c.source = PTBTS_SOURCE_KMOD_BTS;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(p, 16 * KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

/* As uid 1000 with no CAP_IPC_LOCK: RLIMIT_MEMLOCK must cover both. */
static int pebs_over_memlock(void *arg)
{
	struct rlimit rl = { 16 * KT_PAGE, 16 * KT_PAGE };
	uint8_t *p = kt_map(32 * KT_PAGE);
	struct ptbts_config c;
	struct kt_tracee t;
	int fd;

	(void)arg;
	KT_CHECK(p != NULL);
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(kt_become_user() == 0);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_tracee_start(&t, 0, 1) == 0);
	c = kt_config(t.pid, p, 12 * KT_PAGE);
	c.source = PTBTS_SOURCE_KMOD_PEBS;
	c.buffer2 = (uintptr_t)(p + 16 * KT_PAGE);
	c.buffer2_size = 8 * KT_PAGE;
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c) == -ENOMEM);
	c.buffer2_size = 5 * KT_PAGE;
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c) == -ENOMEM);
	/* Exactly the limit: past the check, refused for the CPU. */
	c.buffer2_size = 4 * KT_PAGE;
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c) == -EOPNOTSUPP);
	KT_CHECK(kt_pinned() == 0);
	KT_CHECK(kt_vmpin_kb() == 0);
	kt_tracee_kill(&t);
	close(fd);
	return 0;
}

TEST(hw, pebs_regions_within_rlimit_memlock)
{
	EXPECT_EQ(kt_in_child(pebs_over_memlock, NULL), 0);
	EXPECT_EQ(kt_pinned(), 0);
}
