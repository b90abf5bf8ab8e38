// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where btrace writes: -o names a regular file or a new name, never a
 * FIFO, a device or a symbolic link that the final rename would replace.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "btrace_run.h"

#define TIMEOUT 120

static char *tmp(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

static mode_t type_of(const char *path)
{
	struct stat st;

	ASSERT_EQ(lstat(path, &st), 0);
	return st.st_mode & S_IFMT;
}

/* record -o @path exits 125 with one line naming @kind; @path is kept. */
static void expect_refused(const char *path, const char *kind)
{
	char *prog = PROG_PATH("cli-exit");
	mode_t before = type_of(path);
	struct harness_cmd c;
	char want[512];

	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", path, "--",
				 prog, "0", NULL), 125);
	snprintf(want, sizeof(want), "btrace: %s: invalid argument (%s, not a "
		 "regular file: not replaced)\n", path, kind);
	EXPECT_STREQ(c.err, want);
	EXPECT_EQ(type_of(path), before);
	harness_cmd_free(&c);
	free(prog);
}

TEST(cli_output, a_fifo_is_not_replaced)
{
	char *fifo = tmp("fifo");

	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	expect_refused(fifo, "a FIFO");
	free(fifo);
}

TEST(cli_output, a_symbolic_link_is_not_replaced)
{
	char *target = tmp("target"), *link = tmp("link");
	char buf[16];
	int fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, "mine", 4), 4);
	close(fd);
	ASSERT_EQ(symlink(target, link), 0);
	expect_refused(link, "a symbolic link");
	fd = open(target, O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 4);
	close(fd);
	/* A link to a device: the device is the one at stake. */
	unlink(link);
	ASSERT_EQ(symlink("/dev/null", link), 0);
	expect_refused(link, "a symbolic link");
	EXPECT_EQ(type_of("/dev/null"), (mode_t)S_IFCHR);
	free(target);
	free(link);
}

/* A device node of our own (root only: mknod); /dev/null's numbers. */
TEST(cli_output, a_device_is_not_replaced)
{
	char *dev = tmp("null");

	if (mknod(dev, S_IFCHR | 0666, makedev(1, 3))) {
		/* Without root: the real /dev/null, which must then stay. */
		free(dev);
		dev = strdup("/dev/null");
	}
	expect_refused(dev, "a device");
	EXPECT_EQ(type_of(dev), (mode_t)S_IFCHR);
	free(dev);
}
