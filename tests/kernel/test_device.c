// SPDX-License-Identifier: GPL-2.0-or-later
/* The device, the capabilities ioctl and sysfs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"

TEST(device, exists_for_everyone)
{
	struct stat st;
	int fd;

	ASSERT_EQ(stat(PTBTS_DEVICE, &st), 0);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(st.st_mode & 0777, 0666u);
	fd = kt_open();
	ASSERT_GE(fd, 0);
	close(fd);
}

TEST(device, unknown_ioctl_is_enotty)
{
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(kt_ioctl(fd, _IO(PTBTS_IOC_MAGIC, 0x7f), NULL), -ENOTTY);
	EXPECT_EQ(kt_ioctl(fd, _IO('T', 0x01), NULL), -ENOTTY);
	close(fd);
}

TEST(device, wait_and_ack_check_their_arguments)
{
	struct ptbts_status st = { .size = sizeof(st), .tid = 1 };
	struct ptbts_ack ack = { .size = sizeof(ack), .tid = 1 };
	struct kt_tracee t;
	void *buf = kt_map(KT_PAGE);
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	/* Nothing attached. */
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_WAIT, &st), -ESRCH);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ACK, &ack), -ESRCH);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, buf, KT_PAGE), 0);
	st.tid = t.pid;
	ack.tid = t.pid;
	st.__reserved[1] = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_WAIT, &st), -EINVAL);
	st.__reserved[1] = 0;
	st.size = PTBTS_STATUS_SIZE_VER0 - 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_WAIT, &st), -EINVAL);
	st.size = sizeof(st);
	/* Stopped: ready; the timeout comes back as given. */
	st.timeout_ns = 5;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_WAIT, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_STATE_STOPPED);
	EXPECT_EQ(st.timeout_ns, 5u);
	EXPECT_EQ(st.__reserved[0], 0u);
	/* Nothing was written yet: only 0 can be acknowledged. */
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ACK, &ack), 0);
	ack.tail = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ACK, &ack), -EINVAL);
	ack.tail = 0;
	ack.__reserved[0] = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ACK, &ack), -EINVAL);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(buf, KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}

TEST(caps, reports_the_module)
{
	struct ptbts_caps c;
	int fd = kt_open();
	size_t i;

	ASSERT_GE(fd, 0);
	memset(&c, 0xa5, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, &c), 0);
	EXPECT_EQ(c.size, (unsigned)sizeof(c));
	EXPECT_EQ(c.abi_version, (unsigned)PTBTS_ABI_VERSION);
	EXPECT_EQ(c.record_size, 24u);
	/* kmod-step only: the guest's CPU is AMD's (test_hw.c checks why). */
	EXPECT_EQ(c.sources, 1u << PTBTS_SOURCE_KMOD_STEP);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], PTBTS_UNAVAIL_NOT_INTEL);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_PEBS], PTBTS_UNAVAIL_NOT_INTEL);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_STEP], PTBTS_OK);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_PERF_BTS], PTBTS_UNAVAIL_NOT_KERNEL);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_PTRACE_STEP], PTBTS_UNAVAIL_NOT_KERNEL);
	EXPECT_EQ(c.pebs_format, ~0u);
	EXPECT_EQ(c.pebs_record_size, 0u);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(c.__reserved[i], 0ull);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(c.__pad[i], 0u);
	close(fd);
}

/* An older caller's struct is filled only up to its size. */
TEST(caps, smaller_struct_filled_to_its_size)
{
	unsigned char buf[sizeof(struct ptbts_caps)];
	struct ptbts_caps *c = (struct ptbts_caps *)buf;
	int fd = kt_open();
	size_t i;

	ASSERT_GE(fd, 0);
	memset(buf, 0xa5, sizeof(buf));
	c->size = PTBTS_CAPS_SIZE_VER0;
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, c), 0);
	EXPECT_EQ(c->size, (unsigned)PTBTS_CAPS_SIZE_VER0);
	EXPECT_EQ(c->abi_version, (unsigned)PTBTS_ABI_VERSION);
	for (i = PTBTS_CAPS_SIZE_VER0; i < sizeof(buf); i++)
		EXPECT_EQ(buf[i], 0xa5);
	c->size = PTBTS_CAPS_SIZE_VER0 - 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, c), -EINVAL);
	close(fd);
}

/* A newer caller's struct gets zeroes where the module knows nothing. */
TEST(caps, larger_struct_tail_zeroed)
{
	unsigned char buf[sizeof(struct ptbts_caps) + 64];
	struct ptbts_caps *c = (struct ptbts_caps *)buf;
	int fd = kt_open();
	size_t i;

	ASSERT_GE(fd, 0);
	memset(buf, 0xa5, sizeof(buf));
	c->size = sizeof(buf);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, c), 0);
	EXPECT_EQ(c->size, (unsigned)sizeof(struct ptbts_caps));
	for (i = sizeof(struct ptbts_caps); i < sizeof(buf); i++)
		EXPECT_EQ(buf[i], 0);
	c->size = KT_PAGE + 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, c), -E2BIG);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, NULL), -EFAULT);
	close(fd);
}

static void expect_file(const char *rel, const char *want)
{
	char path[256], line[128];

	snprintf(path, sizeof(path), "%s/%s", KT_SYSFS, rel);
	ASSERT_EQ(kt_read_line(path, line, sizeof(line)), 0);
	EXPECT_STREQ(line, want);
}

TEST(sysfs, one_value_per_file)
{
	EXPECT_EQ(kt_pinned(), 0);	/* once queued releases are done */
	expect_file("abi_version", "2");
	expect_file("record_size", "24");
	expect_file("pinned_pages", "0");
	expect_file("releases_queued", "0");
	expect_file("percpu_reason", "not an Intel CPU");
	expect_file("sources/kmod-bts/available", "0");
	expect_file("sources/kmod-bts/reason", "not an Intel CPU");
	expect_file("sources/kmod-pebs/available", "0");
	expect_file("sources/kmod-pebs/reason", "not an Intel CPU");
	expect_file("sources/kmod-step/available", "1");
	expect_file("sources/kmod-step/reason", "ok");
}

TEST(sysfs, read_only)
{
	static const char *const files[] = {
		"abi_version", "record_size", "pinned_pages",
		"releases_queued",
		"sources/kmod-step/available", "sources/kmod-step/reason",
	};
	char path[256];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", KT_SYSFS, files[i]);
		ASSERT_EQ(stat(path, &st), 0);
		EXPECT_EQ(st.st_mode & 0777, 0444u);
		/* Even root: there is nothing to write. */
		EXPECT_EQ(open(path, O_WRONLY), -1);
		EXPECT_EQ(errno, EACCES);
	}
}

/* Every file of the module's sysfs directory, one value each. */
static const char *const sysfs_files[] = {
	"abi_version", "record_size", "pinned_pages", "releases_queued",
	"hw_verified", "percpu_reason", "percpu_pages",
	"sources/kmod-bts/available", "sources/kmod-bts/reason",
	"sources/kmod-pebs/available", "sources/kmod-pebs/reason",
	"sources/kmod-step/available", "sources/kmod-step/reason",
};
#define NR_SYSFS (sizeof(sysfs_files) / sizeof(sysfs_files[0]))

struct sysfs_copy {
	char line[NR_SYSFS][128];
};

static int read_sysfs(struct sysfs_copy *c)
{
	char path[256];
	size_t i;

	for (i = 0; i < NR_SYSFS; i++) {
		snprintf(path, sizeof(path), "%s/%s", KT_SYSFS, sysfs_files[i]);
		KT_CHECK(kt_read_line(path, c->line[i], sizeof(c->line[i])) == 0);
	}
	return 0;
}

/* As uid 1000, no capability: the same bytes as root read. */
static int sysfs_as_user(void *arg)
{
	const struct sysfs_copy *root = arg;
	struct sysfs_copy user;
	size_t i;

	KT_CHECK(kt_become_user() == 0);
	KT_CHECK(read_sysfs(&user) == 0);
	for (i = 0; i < NR_SYSFS; i++)
		if (strcmp(user.line[i], root->line[i])) {
			fprintf(stderr, "%s: root '%s', uid 1000 '%s'\n",
				sysfs_files[i], root->line[i], user.line[i]);
			return __LINE__;
		}
	return 0;
}

TEST(sysfs, same_content_for_every_reader)
{
	struct sysfs_copy root;

	ASSERT_EQ(read_sysfs(&root), 0);
	EXPECT_EQ(kt_in_child(sysfs_as_user, &root), 0);
}
