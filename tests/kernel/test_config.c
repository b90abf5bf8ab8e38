// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The attach configuration: the size rules of an extensible struct,
 * reserved fields, sources and modes.  A valid config attaches a stopped
 * tracee; every invalid one gets its errno and pins nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"

#define BUF_SIZE (2 * KT_PAGE)

struct cfg_env {
	struct kt_tracee t;
	void *buf;
	int fd;
};

static void env_start(struct cfg_env *e)
{
	e->buf = kt_map(BUF_SIZE);
	e->fd = kt_open();
	ASSERT_TRUE(e->buf != NULL);
	ASSERT_GE(e->fd, 0);
	ASSERT_EQ(kt_tracee_start(&e->t, 0, 1), 0);
}

static void env_stop(struct cfg_env *e)
{
	kt_tracee_kill(&e->t);
	close(e->fd);
	kt_unmap(e->buf, BUF_SIZE);
	EXPECT_EQ(kt_pinned(), 0);
}

/* ATTACH with @c; a success is detached again. */
static long try_attach(struct cfg_env *e, void *c)
{
	long r = kt_ioctl(e->fd, PTBTS_IOC_ATTACH, c);

	if (r == 0)
		EXPECT_EQ(kt_detach(e->fd, e->t.pid), 0);
	return r;
}

TEST(config, sizes)
{
	unsigned char raw[KT_PAGE + 8];
	struct ptbts_config *c = (struct ptbts_config *)raw;
	struct cfg_env e;

	env_start(&e);
	memset(raw, 0, sizeof(raw));
	*c = kt_config(e.t.pid, e.buf, BUF_SIZE);

	c->size = 0;
	EXPECT_EQ(try_attach(&e, c), -EINVAL);
	c->size = PTBTS_CONFIG_SIZE_VER0 - 1;
	EXPECT_EQ(try_attach(&e, c), -EINVAL);
	/* An older, smaller struct: the fields it lacks read as zero. */
	c->size = PTBTS_CONFIG_SIZE_VER0;
	c->flags = 1;
	EXPECT_EQ(try_attach(&e, c), 0);
	c->flags = 0;
	c->size = sizeof(*c);
	EXPECT_EQ(try_attach(&e, c), 0);
	/* A newer, larger struct: fine while the unknown tail is zero. */
	c->size = sizeof(*c) + 8;
	EXPECT_EQ(try_attach(&e, c), 0);
	raw[sizeof(*c) + 7] = 1;
	EXPECT_EQ(try_attach(&e, c), -E2BIG);
	raw[sizeof(*c) + 7] = 0;
	c->size = KT_PAGE;
	EXPECT_EQ(try_attach(&e, c), 0);
	c->size = KT_PAGE + 1;
	EXPECT_EQ(try_attach(&e, c), -E2BIG);
	EXPECT_EQ(try_attach(&e, NULL), -EFAULT);
	env_stop(&e);
}

TEST(config, reserved_fields_must_be_zero)
{
	struct ptbts_config c;
	struct cfg_env e;
	int i;

	env_start(&e);
	c = kt_config(e.t.pid, e.buf, BUF_SIZE);
	c.flags = 1;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.flags = 0x80000000u;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.flags = 0;
	c.__reserved0 = 1;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.__reserved0 = 0;
	for (i = 0; i < 3; i++) {
		c.__reserved[i] = 1ull << 63;
		EXPECT_EQ(try_attach(&e, &c), -EINVAL);
		c.__reserved[i] = 0;
	}
	EXPECT_EQ(try_attach(&e, &c), 0);
	env_stop(&e);
}

TEST(config, sources)
{
	struct ptbts_config c;
	struct cfg_env e;

	env_start(&e);
	c = kt_config(e.t.pid, e.buf, BUF_SIZE);
	c.source = PTBTS_SOURCE_NONE;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.source = PTBTS_SOURCE_PERF_BTS;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.source = PTBTS_SOURCE_PTRACE_STEP;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.source = PTBTS_SOURCE_MAX;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.source = ~0u;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.source = PTBTS_SOURCE_KMOD_BTS;
	EXPECT_EQ(try_attach(&e, &c), -EOPNOTSUPP);
	c.source = PTBTS_SOURCE_KMOD_PEBS;
	EXPECT_EQ(try_attach(&e, &c), -EOPNOTSUPP);
	/* Accepted: kmod-step records on every x86-64 CPU. */
	c.source = PTBTS_SOURCE_KMOD_STEP;
	EXPECT_EQ(try_attach(&e, &c), 0);
	env_stop(&e);
}

TEST(config, modes)
{
	struct ptbts_config c;
	struct cfg_env e;

	env_start(&e);
	c = kt_config(e.t.pid, e.buf, BUF_SIZE);
	c.mode = PTBTS_MODE_RING;
	EXPECT_EQ(try_attach(&e, &c), 0);
	c.mode = PTBTS_MODE_STOP;
	EXPECT_EQ(try_attach(&e, &c), 0);
	c.mode = PTBTS_MODE_BLOCK;
	EXPECT_EQ(try_attach(&e, &c), 0);
	c.mode = 3;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.mode = ~0u;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	env_stop(&e);
}

TEST(config, wakeup_and_second_region)
{
	struct ptbts_config c;
	struct cfg_env e;

	env_start(&e);
	c = kt_config(e.t.pid, e.buf, BUF_SIZE);
	c.wakeup = BUF_SIZE;
	EXPECT_EQ(try_attach(&e, &c), 0);
	c.wakeup = BUF_SIZE + 1;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.wakeup = ~0ull;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.wakeup = 0;
	/* kmod-step fills one region only. */
	c.buffer2 = (uintptr_t)e.buf;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.buffer2 = 0;
	c.buffer2_size = KT_PAGE;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	env_stop(&e);
}

/* A limit holds the thread at a record of its own: kmod-step's BLOCK only. */
TEST(config, limit_only_in_block_mode)
{
	struct ptbts_config c;
	struct cfg_env e;

	env_start(&e);
	c = kt_config(e.t.pid, e.buf, BUF_SIZE);
	c.limit = 1;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.mode = PTBTS_MODE_STOP;
	EXPECT_EQ(try_attach(&e, &c), -EINVAL);
	c.mode = PTBTS_MODE_BLOCK;
	EXPECT_EQ(try_attach(&e, &c), 0);
	env_stop(&e);
}

/* The config is judged before the thread: the same errno for anyone. */
TEST(config, judged_before_the_thread)
{
	struct ptbts_config c = kt_config(1, NULL, KT_PAGE);
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	c.__reserved[2] = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EINVAL);
	c.__reserved[2] = 0;
	c.source = PTBTS_SOURCE_KMOD_BTS;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
	c.source = PTBTS_SOURCE_KMOD_STEP;
	/* Valid: now the thread (init, not ours) is looked at. */
	c.buffer = KT_PAGE * 16;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EPERM);
	close(fd);
}
