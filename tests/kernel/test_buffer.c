// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The buffer: whole pages of the tracer's writable memory, anonymous or a
 * memfd, charged to its RLIMIT_MEMLOCK.  Everything else has its errno and
 * leaves nothing pinned or charged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"

struct buf_env {
	struct kt_tracee t;
	int fd;
	long vmpin;
};

static void env_start(struct buf_env *e)
{
	e->fd = kt_open();
	ASSERT_GE(e->fd, 0);
	ASSERT_EQ(kt_tracee_start(&e->t, 0, 1), 0);
	e->vmpin = kt_vmpin_kb();
}

static void env_stop(struct buf_env *e)
{
	kt_tracee_kill(&e->t);
	close(e->fd);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_vmpin_kb(), e->vmpin);
}

/* ATTACH; a success is detached again.  Returns 0 or -errno. */
static long try_buf(struct buf_env *e, uint64_t addr, uint64_t size)
{
	struct ptbts_config c = kt_config(e->t.pid, NULL, size);
	long r;

	c.buffer = addr;
	r = kt_ioctl(e->fd, PTBTS_IOC_ATTACH, &c);
	if (r == 0)
		EXPECT_EQ(kt_detach(e->fd, e->t.pid), 0);
	else
		EXPECT_EQ(kt_pinned(), 0);
	return r;
}

TEST(buffer, alignment_and_size)
{
	uint8_t *p = kt_map(4 * KT_PAGE);
	struct buf_env e;

	env_start(&e);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, 4 * KT_PAGE), 0);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p + 8, KT_PAGE), -EINVAL);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p + KT_PAGE / 2, KT_PAGE), -EINVAL);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, 0), -EINVAL);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, 100), -EINVAL);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, KT_PAGE + 24), -EINVAL);
	env_stop(&e);
	kt_unmap(p, 4 * KT_PAGE);
}

TEST(buffer, range_overflow_and_kernel_addresses)
{
	struct buf_env e;

	env_start(&e);
	/* The end wraps around: caught before any multiply or lookup. */
	EXPECT_EQ(try_buf(&e, ~0ull & ~(uint64_t)(KT_PAGE - 1), 2 * KT_PAGE), -EINVAL);
	EXPECT_EQ(try_buf(&e, KT_PAGE, ~0ull & ~(uint64_t)(KT_PAGE - 1)), -EINVAL);
	/* Past user space. */
	EXPECT_EQ(try_buf(&e, 0xffff888000000000ull, KT_PAGE), -EFAULT);
	EXPECT_EQ(try_buf(&e, 1ull << 47, KT_PAGE), -EFAULT);
	EXPECT_EQ(try_buf(&e, KT_PAGE, 1ull << 62), -EFAULT);
	env_stop(&e);
}

TEST(buffer, unmapped_or_with_a_hole)
{
	uint8_t *p = kt_map(3 * KT_PAGE);
	struct buf_env e;

	env_start(&e);
	ASSERT_EQ(munmap(p + KT_PAGE, KT_PAGE), 0);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, KT_PAGE), 0);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, 3 * KT_PAGE), -EFAULT);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p + KT_PAGE, KT_PAGE), -EFAULT);
	EXPECT_EQ(try_buf(&e, 0, KT_PAGE), -EFAULT);
	env_stop(&e);
	munmap(p, 3 * KT_PAGE);
}

TEST(buffer, read_only_is_eacces)
{
	uint8_t *p = kt_map(3 * KT_PAGE);
	struct buf_env e;

	env_start(&e);
	ASSERT_EQ(mprotect(p + 2 * KT_PAGE, KT_PAGE, PROT_READ), 0);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, 2 * KT_PAGE), 0);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, 3 * KT_PAGE), -EACCES);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p + 2 * KT_PAGE, KT_PAGE), -EACCES);
	ASSERT_EQ(mprotect(p, KT_PAGE, PROT_NONE), 0);
	EXPECT_EQ(try_buf(&e, (uintptr_t)p, KT_PAGE), -EACCES);
	env_stop(&e);
	kt_unmap(p, 3 * KT_PAGE);
}

/* Shared memory that is only memory is fine: a memfd, MAP_SHARED anon. */
TEST(buffer, memfd_and_shared_anonymous)
{
	struct buf_env e;
	void *m, *s;
	int mfd;

	env_start(&e);
	mfd = memfd_create("ptbts-test", MFD_CLOEXEC);
	ASSERT_GE(mfd, 0);
	ASSERT_EQ(ftruncate(mfd, 4 * KT_PAGE), 0);
	m = mmap(NULL, 4 * KT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	EXPECT_EQ(try_buf(&e, (uintptr_t)m, 4 * KT_PAGE), 0);
	s = mmap(NULL, 2 * KT_PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(s != MAP_FAILED);
	EXPECT_EQ(try_buf(&e, (uintptr_t)s, 2 * KT_PAGE), 0);
	/* A memfd mapped read-only is still read-only. */
	munmap(m, 4 * KT_PAGE);
	m = mmap(NULL, 4 * KT_PAGE, PROT_READ, MAP_SHARED, mfd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	EXPECT_EQ(try_buf(&e, (uintptr_t)m, 4 * KT_PAGE), -EACCES);
	env_stop(&e);
	munmap(m, 4 * KT_PAGE);
	munmap(s, 2 * KT_PAGE);
	close(mfd);
}

/* A file of a real filesystem (ramfs is not shmem) is refused. */
TEST(buffer, file_backed_is_eopnotsupp)
{
	char dir[256], path[300];
	struct buf_env e;
	void *shared, *priv;
	int ffd;

	snprintf(dir, sizeof(dir), "%s", harness_tmpdir());
	ASSERT_EQ(mount("ramfs", dir, "ramfs", 0, NULL), 0);
	snprintf(path, sizeof(path), "%s/buf", dir);
	ffd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_GE(ffd, 0);
	ASSERT_EQ(ftruncate(ffd, 2 * KT_PAGE), 0);
	env_start(&e);
	shared = mmap(NULL, 2 * KT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ffd, 0);
	priv = mmap(NULL, 2 * KT_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, ffd, 0);
	ASSERT_TRUE(shared != MAP_FAILED);
	ASSERT_TRUE(priv != MAP_FAILED);
	EXPECT_EQ(try_buf(&e, (uintptr_t)shared, 2 * KT_PAGE), -EOPNOTSUPP);
	EXPECT_EQ(try_buf(&e, (uintptr_t)priv, 2 * KT_PAGE), -EOPNOTSUPP);
	env_stop(&e);
	munmap(shared, 2 * KT_PAGE);
	munmap(priv, 2 * KT_PAGE);
	close(ffd);
	unlink(path);
	EXPECT_EQ(umount(dir), 0);
}

/*
 * A private mapping of /dev/zero is anonymous to the mm, but it maps a
 * device (whose devtmpfs inode is tmpfs's): refused as every device is.
 */
TEST(buffer, dev_zero_private_is_eopnotsupp)
{
	struct buf_env e;
	void *priv;
	int zfd = open("/dev/zero", O_RDWR | O_CLOEXEC);

	ASSERT_GE(zfd, 0);
	priv = mmap(NULL, 2 * KT_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, zfd, 0);
	ASSERT_TRUE(priv != MAP_FAILED);
	memset(priv, 1, 2 * KT_PAGE);
	env_start(&e);
	EXPECT_EQ(try_buf(&e, (uintptr_t)priv, 2 * KT_PAGE), -EOPNOTSUPP);
	env_stop(&e);
	munmap(priv, 2 * KT_PAGE);
	close(zfd);
}

/* A buffer is charged as locked memory while attached, and only then. */
TEST(buffer, charged_to_vmpin)
{
	uint8_t *p = kt_map(8 * KT_PAGE);
	struct buf_env e;

	env_start(&e);
	ASSERT_EQ(kt_attach(e.fd, e.t.pid, p, 8 * KT_PAGE), 0);
	EXPECT_EQ(kt_vmpin_kb(), e.vmpin + 32);
	EXPECT_EQ(kt_pinned(), 8);
	EXPECT_EQ(kt_detach(e.fd, e.t.pid), 0);
	EXPECT_EQ(kt_vmpin_kb(), e.vmpin);
	env_stop(&e);
	kt_unmap(p, 8 * KT_PAGE);
}

/* As uid 1000 with no CAP_IPC_LOCK, RLIMIT_MEMLOCK bounds the buffers. */
static int over_memlock(void *arg)
{
	struct rlimit rl = { 16 * KT_PAGE, 16 * KT_PAGE };
	uint8_t *p = kt_map(32 * KT_PAGE);
	struct kt_tracee t;
	int fd;

	(void)arg;
	KT_CHECK(p != NULL);
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(kt_become_user() == 0);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_tracee_start(&t, 1, 1) == 0);
	KT_CHECK(kt_vmpin_kb() == 0);
	KT_CHECK(kt_attach(fd, t.pid, p, 32 * KT_PAGE) == -ENOMEM);
	KT_CHECK(kt_attach(fd, t.pid, p, 17 * KT_PAGE) == -ENOMEM);
	KT_CHECK(kt_pinned() == 0);
	KT_CHECK(kt_vmpin_kb() == 0);
	/* Up to the limit, over two threads. */
	KT_CHECK(kt_attach(fd, t.pid, p, 12 * KT_PAGE) == 0);
	KT_CHECK(kt_attach(fd, t.tids[1], p + 12 * KT_PAGE, 8 * KT_PAGE) == -ENOMEM);
	KT_CHECK(kt_attach(fd, t.tids[1], p + 12 * KT_PAGE, 4 * KT_PAGE) == 0);
	KT_CHECK(kt_vmpin_kb() == 64);
	KT_CHECK(kt_pinned() == 16);
	KT_CHECK(kt_detach(fd, t.pid) == 0);
	KT_CHECK(kt_detach(fd, t.tids[1]) == 0);
	KT_CHECK(kt_vmpin_kb() == 0);
	kt_tracee_kill(&t);
	return 0;
}

TEST(buffer, over_rlimit_memlock_is_enomem)
{
	EXPECT_EQ(kt_in_child(over_memlock, NULL), 0);
	EXPECT_EQ(kt_pinned(), 0);
}
