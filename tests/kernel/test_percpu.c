// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-CPU (kernel and user) mode and kmod-pebs's event, in the guest.
 *
 * QEMU's CPU here (qemu64, AMD's vendor string, no DS) cannot record:
 * PERCPU_START must be refused with the first reason in the header's
 * order (not an Intel CPU, for every caller: the machine's reason comes
 * before the caller's privilege), written back in @unavail, with nothing
 * allocated.  What is reachable is tested: every -EINVAL of the struct,
 * the size rules, the session's owner, STATUS and STOP without a running
 * mode, the mmap() rules up to the buffer lookup, CPU hotplug with the
 * module's callbacks registered, and the validation of kmod-pebs's event.
 * What needs a CPU with BTS (buffers, recording, a CPU joining or leaving
 * a running session, the all-or-nothing rollback) is tested against the
 * simulated CPU: tests/sim/test_sim_percpu*.c, and on the virtual CPU
 * with BTS: test_vcpu_percpu.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "harness.h"
#include "kt.h"

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/*
 * The CPU mask of the next start: CPUs 0-63 in [0], up to PC_MASK_WORDS
 * words, all of them read by the module when pc_config()'s size is
 * changed (PTBTS_CPU_MASK_MAX bytes at most).
 */
#define PC_MASK_WORDS	(PTBTS_CPU_MASK_MAX / 8 + 1)
static uint64_t pc_mask[PC_MASK_WORDS];

static struct ptbts_percpu_config pc_config(uint64_t cpus)
{
	struct ptbts_percpu_config c;

	memset(&c, 0, sizeof(c));
	memset(pc_mask, 0, sizeof(pc_mask));
	pc_mask[0] = cpus;
	c.size = sizeof(c);
	c.mode = PTBTS_MODE_RING;
	c.cpu_mask = (uintptr_t)pc_mask;
	c.cpu_mask_size = 8;
	c.buffer_size = 16 * KT_PAGE;
	return c;
}

/* PERCPU_START on a fresh session; @c->unavail as the module left it. */
static long pc_start(struct ptbts_percpu_config *c)
{
	int fd = kt_open();
	long r;

	if (fd < 0)
		return -1000;
	r = kt_ioctl(fd, PTBTS_IOC_PERCPU_START, c);
	close(fd);
	return r;
}

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_CONF);
}

TEST(percpu, guest_has_two_cpus)
{
	EXPECT_EQ(ncpus(), 2);
}

TEST(percpu, caps_and_sysfs_give_the_reason)
{
	struct ptbts_caps c;
	char line[128];
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, &c), 0);
	close(fd);
	EXPECT_EQ(c.percpu_unavail, (unsigned)PTBTS_UNAVAIL_NOT_INTEL);
	EXPECT_EQ(c.percpu_unavail, c.unavail[PTBTS_SOURCE_KMOD_BTS]);
	ASSERT_EQ(kt_read_line(KT_SYSFS "/percpu_reason", line, sizeof(line)), 0);
	EXPECT_STREQ(line, "not an Intel CPU");
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
}

/* A valid start, any mode, any CPUs: refused for the CPU, nothing held. */
TEST(percpu, start_refused_with_the_reason)
{
	static const uint64_t masks[] = { 1, 2, 3 };
	static const uint32_t modes[] = { PTBTS_MODE_RING, PTBTS_MODE_STOP };
	struct ptbts_percpu_config c;
	size_t i, j;

	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		for (j = 0; j < 2; j++) {
			c = pc_config(masks[i]);
			c.mode = modes[j];
			c.unavail = 0xdead;	/* ignored in, written out */
			EXPECT_EQ(pc_start(&c), -EOPNOTSUPP);
			EXPECT_EQ(c.unavail, (unsigned)PTBTS_UNAVAIL_NOT_INTEL);
		}
	}
	/* The largest buffer is valid too. */
	c = pc_config(3);
	c.buffer_size = PTBTS_PERCPU_BUFFER_MAX;
	EXPECT_EQ(pc_start(&c), -EOPNOTSUPP);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
}

/* Each bad field, alone: -EINVAL, and @unavail not written. */
TEST(percpu, bad_config_is_einval)
{
	struct ptbts_percpu_config c;
	size_t i;

#define BAD(stmt) do { c = pc_config(3); c.unavail = 77; stmt; \
		EXPECT_EQ(pc_start(&c), -EINVAL); EXPECT_EQ(c.unavail, 77u); \
	} while (0)
	BAD(c.flags = 1);
	BAD(c.flags = 0x80000000u);
	for (i = 0; i < 3; i++)
		BAD(c.__reserved[i] = 1ull << 63);
	BAD(c.__reserved0 = 1);
	BAD(c.mode = PTBTS_MODE_BLOCK);
	BAD(c.mode = 3);
	BAD(c.mode = ~0u);
	BAD(pc_mask[0] = 0);
	BAD(pc_mask[0] = 1ull << 2);	/* not a possible CPU here */
	BAD(pc_mask[0] = 3 | 1ull << 63);
	BAD(c.cpu_mask_size = 0);
	BAD(c.cpu_mask_size = 4);
	BAD(c.cpu_mask_size = 12);
	BAD(c.cpu_mask_size = PTBTS_CPU_MASK_MAX + 8);
	BAD(c.cpu_mask_size = 16; pc_mask[1] = 1);	/* CPU 64 */
	BAD(c.cpu_mask_size = 16; pc_mask[0] = 0);	/* no CPU */
	BAD(c.buffer_size = 0);
	BAD(c.buffer_size = KT_PAGE + 8);
	BAD(c.buffer_size = 100);
	BAD(c.buffer_size = PTBTS_PERCPU_BUFFER_MAX + KT_PAGE);
	BAD(c.buffer_size = ~0ull - (KT_PAGE - 1));
	BAD(c.size = PTBTS_PERCPU_CONFIG_SIZE_VER0 - 8);
	BAD(c.size = 0);
#undef BAD
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
}

/*
 * The CPU mask has a size: more than 64 bits is a valid mask (the start
 * then meets the CPU's refusal, -EOPNOTSUPP), as long as every bit set is
 * a CPU of this machine, wherever it stands; an unreadable mask is -EFAULT.
 */
TEST(percpu, cpu_mask_of_any_size)
{
	const uint32_t sizes[] = { 16, 24, 1024, PTBTS_CPU_MASK_MAX };
	struct ptbts_percpu_config c;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		c = pc_config(3);
		c.cpu_mask_size = sizes[i];
		EXPECT_EQ(pc_start(&c), -EOPNOTSUPP);
		EXPECT_EQ(c.unavail, (unsigned)PTBTS_UNAVAIL_NOT_INTEL);
		c = pc_config(3);
		c.cpu_mask_size = sizes[i];
		pc_mask[sizes[i] / 8 - 1] |= 1ull << 63;
		EXPECT_EQ(pc_start(&c), -EINVAL);
		c = pc_config(0);
		c.cpu_mask_size = sizes[i];
		pc_mask[sizes[i] / 8 - 1] = 1ull << 7;
		EXPECT_EQ(pc_start(&c), -EINVAL);
	}
	c = pc_config(1);
	c.cpu_mask = 0;
	EXPECT_EQ(pc_start(&c), -EFAULT);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
}

/* The size rules: a larger struct with a zero tail is taken, else -E2BIG. */
TEST(percpu, size_rules)
{
	struct {
		struct ptbts_percpu_config c;
		uint64_t tail[2];
	} big;
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	memset(&big, 0, sizeof(big));
	big.c = pc_config(1);
	big.c.size = sizeof(big);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &big), -EOPNOTSUPP);
	big.tail[1] = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &big), -E2BIG);
	big.c.size = KT_PAGE + 8;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &big), -E2BIG);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, NULL), -EFAULT);
	close(fd);
}

/* The machine's reason comes before the caller's: uid 1000, no caps. */
static int start_unprivileged(void *arg)
{
	struct ptbts_percpu_config c = pc_config(3);

	(void)arg;
	KT_CHECK(kt_become_user() == 0);
	KT_CHECK(pc_start(&c) == -EOPNOTSUPP);
	KT_CHECK(c.unavail == PTBTS_UNAVAIL_NOT_INTEL);
	pc_mask[0] = 0;
	KT_CHECK(pc_start(&c) == -EINVAL);
	return 0;
}

TEST(percpu, unprivileged_caller_gets_the_cpu_reason)
{
	EXPECT_EQ(kt_in_child(start_unprivileged, NULL), 0);
}

/* STOP and STATUS with no per-CPU mode started: -ENODEV; bad STATUS: -EINVAL. */
TEST(percpu, stop_and_status_without_a_start)
{
	struct ptbts_percpu_config c = pc_config(3);
	struct ptbts_percpu_status st;
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL), -ENODEV);
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -ENODEV);
	/* A refused start leaves none either. */
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &c), -EOPNOTSUPP);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -ENODEV);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL), -ENODEV);
	st.cpu = 64;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -EINVAL);
	st.cpu = 0;
	st.__pad = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -EINVAL);
	st.__pad = 0;
	st.__reserved[1] = 1;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -EINVAL);
	st.__reserved[1] = 0;
	st.size = PTBTS_PERCPU_STATUS_SIZE_VER0 - 8;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -EINVAL);
	st.size = PTBTS_PERCPU_STATUS_SIZE_VER0;
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st), -ENODEV);
	close(fd);
}

static int mmap_errno(int fd, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, KT_PAGE, prot, flags, fd, off);

	if (p != MAP_FAILED) {
		munmap(p, KT_PAGE);
		return 0;
	}
	return -errno;
}

/*
 * Writable mappings are refused before anything else; a read-only one
 * then finds no buffer.  (Whether mprotect() can make a mapped buffer
 * writable needs a buffer: not reachable here.)
 */
TEST(percpu, mmap_read_only_rules)
{
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	EXPECT_EQ(mmap_errno(fd, PROT_READ | PROT_WRITE, MAP_SHARED, 0), -EPERM);
	EXPECT_EQ(mmap_errno(fd, PROT_WRITE, MAP_SHARED, 0), -EPERM);
	EXPECT_EQ(mmap_errno(fd, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0), -EPERM);
	EXPECT_EQ(mmap_errno(fd, PROT_READ, MAP_SHARED, 0), -ENODEV);
	EXPECT_EQ(mmap_errno(fd, PROT_READ, MAP_PRIVATE, 16 * KT_PAGE), -ENODEV);
	close(fd);
}

/* A process that inherited the session fd is not its owner. */
static int other_process(void *arg)
{
	int fd = *(int *)arg;
	struct ptbts_percpu_config c = pc_config(3);
	struct ptbts_percpu_status st = { .size = sizeof(st) };

	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &c) == -EPERM);
	KT_CHECK(c.unavail == 0);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == -EPERM);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, &st) == -EPERM);
	KT_CHECK(mmap_errno(fd, PROT_READ, MAP_SHARED, 0) == -EPERM);
	return 0;
}

TEST(percpu, other_process_is_refused)
{
	int fd = open(PTBTS_DEVICE, O_RDWR);	/* inherited by the child */

	ASSERT_GE(fd, 0);
	EXPECT_EQ(kt_in_child(other_process, &fd), 0);
	close(fd);
}

/*
 * The module's hotplug state exists, and CPU 1 goes offline and comes
 * back with its callbacks run (qemu-run checks the kernel log).  A start
 * naming the offline CPU is valid (it would join when it comes online),
 * refused here for the CPU.
 */
TEST(percpu, hotplug_offline_and_online)
{
	struct ptbts_percpu_config c = pc_config(2);
	char line[64];
	FILE *f = fopen("/sys/devices/system/cpu/hotplug/states", "re");
	char buf[256];
	bool found = false;

	ASSERT_TRUE(f != NULL);
	while (fgets(buf, sizeof(buf), f))
		if (strstr(buf, " ptrace_bts/percpu:online"))
			found = true;
	fclose(f);
	EXPECT_TRUE(found);
	ASSERT_EQ(kt_write_file(CPU1_ONLINE, "0"), 0);
	EXPECT_EQ(kt_read_line(CPU1_ONLINE, line, sizeof(line)), 0);
	EXPECT_STREQ(line, "0");
	EXPECT_EQ(pc_start(&c), -EOPNOTSUPP);
	EXPECT_EQ(c.unavail, (unsigned)PTBTS_UNAVAIL_NOT_INTEL);
	ASSERT_EQ(kt_write_file(CPU1_ONLINE, "1"), 0);
	ASSERT_EQ(kt_read_line(CPU1_ONLINE, line, sizeof(line)), 0);
	EXPECT_STREQ(line, "1");
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
}

/* btrace info says it, in the module's words (libbts's bts_percpu_probe()). */
TEST(percpu, btrace_info_says_why)
{
	char *bt = BTRACE_PATH();
	char *argv[] = { bt, "info", NULL };
	struct harness_cmd c;

	ASSERT_EQ(harness_run(argv, 60, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 0);
	EXPECT_TRUE(strstr(c.out, "\nauto         -> kmod-step\n"
			   "per-cpu      unavailable: the CPU is not Intel's\n\n") != NULL);
	harness_cmd_free(&c);
	free(bt);
}

/*
 * libbts's refusal of a start, from the module (not Intel's CPU), is
 * btrace info's per-cpu line word for word, and so is the probe's.
 */
TEST(percpu, libbts_refusal_is_btrace_infos)
{
	char *bt = BTRACE_PATH();
	char *info[] = { bt, "info", NULL };
	char *lib[] = { "/percpu-lib", "refuse", NULL };
	static const char tag[] = "\nper-cpu      unavailable: ";
	char want[1024], why[400];
	struct harness_cmd c;
	const char *w;
	size_t n;

	ASSERT_EQ(harness_run(info, 60, &c), 0);
	ASSERT_EQ(harness_exit_code(&c), 0);
	w = strstr(c.out, tag);
	ASSERT_TRUE(w != NULL);
	w += strlen(tag);
	n = strcspn(w, "\n");
	ASSERT_TRUE(n > 0 && n < sizeof(why));
	memcpy(why, w, n);
	why[n] = 0;
	harness_cmd_free(&c);
	free(bt);
	EXPECT_STREQ(why, "the CPU is not Intel's");
	snprintf(want, sizeof(want), "start: per-CPU mode: %s\nprobe: %s\n",
		 why, why);
	ASSERT_EQ(harness_run(lib, 60, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 0);
	EXPECT_STREQ(c.out, want);
	EXPECT_STREQ(c.err, "");
	harness_cmd_free(&c);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
}

/* ------------------------------------------------ kmod-pebs's event */

/*
 * The event and period are judged from the struct, before the source's
 * availability and before the thread: a bad one is -EINVAL anywhere; a
 * good one here is then refused for the CPU.  tid 1 is never looked at.
 */
TEST(percpu, pebs_event_validated)
{
	uint8_t *p = kt_map(8 * KT_PAGE);
	struct ptbts_config c;
	int fd = kt_open();

	ASSERT_TRUE(p != NULL);
	ASSERT_GE(fd, 0);
#define PEBS(stmt, want) do { \
		c = kt_config(1, p, 4 * KT_PAGE); \
		c.source = PTBTS_SOURCE_KMOD_PEBS; \
		c.buffer2 = (uintptr_t)(p + 4 * KT_PAGE); \
		c.buffer2_size = 4 * KT_PAGE; \
		stmt; \
		EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), want); \
	} while (0)
	/* The default (no flag, both 0), and given ones in range. */
	PEBS((void)0, -EOPNOTSUPP);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT,
	      c.pebs_event = PTBTS_PEBS_EVENT_BRANCHES, c.pebs_period = 1),
	     -EOPNOTSUPP);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0x20c4,
	      c.pebs_period = PTBTS_PEBS_PERIOD_MAX), -EOPNOTSUPP);
	/* Out of range, or bits that are not the caller's. */
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0xc4,
	      c.pebs_period = 0), -EINVAL);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0xc4,
	      c.pebs_period = PTBTS_PEBS_PERIOD_MAX + 1), -EINVAL);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0,
	      c.pebs_period = 1000), -EINVAL);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0x0100,
	      c.pebs_period = 1000), -EINVAL);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT,
	      c.pebs_event = 0xc4 | 1ull << 16, c.pebs_period = 1000), -EINVAL);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT,
	      c.pebs_event = 0xc4 | 1ull << 40, c.pebs_period = 1000), -EINVAL);
	/* Without the flag both must be 0. */
	PEBS(c.pebs_period = 1000, -EINVAL);
	PEBS(c.pebs_event = 0xc4, -EINVAL);
	/* The flag is kmod-pebs's only. */
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0xc4,
	      c.pebs_period = 1000, c.source = PTBTS_SOURCE_KMOD_BTS,
	      c.buffer2 = 0, c.buffer2_size = 0), -EINVAL);
	PEBS((c.flags = PTBTS_CONFIG_PEBS_EVENT, c.pebs_event = 0xc4,
	      c.pebs_period = 1000, c.source = PTBTS_SOURCE_KMOD_STEP,
	      c.buffer2 = 0, c.buffer2_size = 0), -EINVAL);
#undef PEBS
	/* A caller of the struct's first sizes never sends the fields. */
	c = kt_config(1, p, 4 * KT_PAGE);
	c.source = PTBTS_SOURCE_KMOD_PEBS;
	c.buffer2 = (uintptr_t)(p + 4 * KT_PAGE);
	c.buffer2_size = 4 * KT_PAGE;
	c.size = offsetof(struct ptbts_config, pebs_event);
	c.pebs_period = 5;	/* beyond its size: not read */
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_ATTACH, &c), -EOPNOTSUPP);
	EXPECT_EQ(kt_pinned(), 0);
	close(fd);
	kt_unmap(p, 8 * KT_PAGE);
}

/* ------------------------------------ the test build: percpu_sim=1 */

/*
 * The rest runs on the test build of the module (/ptrace_bts-test.ko,
 * PTBTS_TEST_HOOKS=y: tests/kernel/kmod-test/percpu_test.c) loaded with
 * percpu_sim=1: the per-CPU mode's DEBUGCTL and DS_AREA are per-CPU
 * variables, so the whole session runs on this CPU without BTS (buffers,
 * IPIs to each CPU, the DS state machine, hotplug, mmap); with
 * percpu_store the simulated CPU stores records too.
 */
#define PARAMS "/sys/module/ptrace_bts/parameters/"
#define BUF (4 * KT_PAGE)

static int knob(const char *name, int cpu)
{
	char path[128], val[16];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(val, sizeof(val), "%d", cpu);
	return kt_write_file(path, val);
}


static int status(int fd, unsigned cpu, struct ptbts_percpu_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	return (int)kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, st);
}

static int start(int fd, uint64_t cpus, uint32_t mode)
{
	struct ptbts_percpu_config c = pc_config(cpus);

	c.mode = mode;
	c.buffer_size = BUF;
	return (int)kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &c);
}

static long pages(void)
{
	return kt_sysfs_long("percpu_pages");
}

/* Start, STATUS of each CPU, a second start, stop, close. */
static int sim_start_status_stop(void)
{
	struct ptbts_percpu_status st;
	int fd = kt_open();

	KT_CHECK(fd >= 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	KT_CHECK(pages() == 2 * BUF / KT_PAGE);
	KT_CHECK(status(fd, 0, &st) == 0);
	KT_CHECK(st.state == PTBTS_PERCPU_RECORDING && st.cpu == 0);
	KT_CHECK(st.head == 0 && st.wraps == 0 && st.lost == 0);
	KT_CHECK(st.offset == 0 && st.buffer_size == BUF);
	KT_CHECK(status(fd, 1, &st) == 0);
	KT_CHECK(st.state == PTBTS_PERCPU_RECORDING && st.offset == BUF);
	KT_CHECK(status(fd, 5, &st) == -EINVAL);	/* not a CPU here */
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == -EBUSY);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == -ENODEV);
	KT_CHECK(status(fd, 1, &st) == 0);
	KT_CHECK(st.state == PTBTS_PERCPU_STOPPED && st.buffer_size == BUF);
	KT_CHECK(pages() == 2 * BUF / KT_PAGE);	/* still readable */
	/* A new start frees the last run's buffers first. */
	KT_CHECK(start(fd, 2, PTBTS_MODE_STOP) == 0);
	KT_CHECK(pages() == BUF / KT_PAGE);
	KT_CHECK(status(fd, 0, &st) == 0);
	KT_CHECK(st.state == PTBTS_PERCPU_OFF && st.buffer_size == 0);
	close(fd);
	KT_CHECK(pages() == 0);
	return 0;
}


/* Read-only: no writable mapping now or later, one CPU's buffer at a time. */
static int sim_mmap_read_only(void)
{
	int fd = kt_open();
	const uint8_t *p;
	size_t i;

	KT_CHECK(fd >= 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	p = mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, BUF);
	KT_CHECK(p != MAP_FAILED);
	for (i = 0; i < BUF; i++)
		KT_CHECK(p[i] == 0);	/* nothing stored: zeroed memory */
	KT_CHECK(mprotect((void *)p, BUF, PROT_READ | PROT_WRITE) == -1);
	KT_CHECK(errno == EACCES);
	KT_CHECK(mmap_errno(fd, PROT_READ | PROT_WRITE, MAP_SHARED, 0) == -EPERM);
	KT_CHECK(mmap_errno(fd, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0) == -EPERM);
	/* A private read-only one cannot become writable (copy-on-write) either. */
	{
		void *q = mmap(NULL, KT_PAGE, PROT_READ, MAP_PRIVATE, fd, 0);

		KT_CHECK(q != MAP_FAILED);
		KT_CHECK(mprotect(q, KT_PAGE, PROT_READ | PROT_WRITE) == -1);
		KT_CHECK(errno == EACCES);
		munmap(q, KT_PAGE);
	}
	/* Within one CPU's buffer only; no buffer for CPU 2. */
	KT_CHECK(mmap_errno(fd, PROT_READ, MAP_SHARED, 3 * KT_PAGE) == 0);
	KT_CHECK(mmap(NULL, 2 * KT_PAGE, PROT_READ, MAP_SHARED, fd,
		      3 * KT_PAGE) == MAP_FAILED && errno == EINVAL);
	KT_CHECK(mmap(NULL, BUF + KT_PAGE, PROT_READ, MAP_SHARED, fd,
		      0) == MAP_FAILED && errno == EINVAL);
	KT_CHECK(mmap_errno(fd, PROT_READ, MAP_SHARED, 2 * BUF) == -ENODEV);
	/* The mapping outlives stop and close; the pages go with it. */
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	close(fd);
	KT_CHECK(pages() == 2 * BUF / KT_PAGE);
	KT_CHECK(p[BUF - 1] == 0);
	munmap((void *)p, BUF);
	KT_CHECK(pages() == 0);
	return 0;
}


/* The allocation for CPU N fails, or CPU N cannot start: nothing is left. */
static int sim_rollback(void)
{
	struct ptbts_percpu_status st;
	int fd = kt_open(), cpu;

	KT_CHECK(fd >= 0);
	for (cpu = 0; cpu < 2; cpu++) {
		KT_CHECK(knob("percpu_fail_alloc", cpu) == 0);
		KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == -ENOMEM);
		KT_CHECK(pages() == 0);
		KT_CHECK(status(fd, 0, &st) == -ENODEV);
		KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == -ENODEV);
		KT_CHECK(mmap_errno(fd, PROT_READ, MAP_SHARED, 0) == -ENODEV);
		KT_CHECK(knob("percpu_fail_alloc", -1) == 0);
		/* Both buffers allocated, then CPU @cpu has someone's BTS on. */
		KT_CHECK(knob("percpu_busy", cpu) == 0);
		KT_CHECK(start(fd, 3, PTBTS_MODE_STOP) == -EBUSY);
		KT_CHECK(pages() == 0);
		KT_CHECK(status(fd, 1, &st) == -ENODEV);
		KT_CHECK(knob("percpu_busy", -1) == 0);
	}
	/* A CPU not asked for fails nothing. */
	KT_CHECK(knob("percpu_fail_alloc", 0) == 0);
	KT_CHECK(start(fd, 2, PTBTS_MODE_RING) == 0);
	KT_CHECK(knob("percpu_fail_alloc", -1) == 0);
	KT_CHECK(pages() == BUF / KT_PAGE);
	close(fd);
	KT_CHECK(pages() == 0);
	return 0;
}


static int state_of(int fd, unsigned cpu)
{
	struct ptbts_percpu_status st;

	return status(fd, cpu, &st) ? -1 : (int)st.state;
}

/*
 * CPU 1 leaves (its buffer stays) and joins again; a CPU offline at the
 * start waits and joins when it comes online; one that cannot join is
 * FAILED and keeps nothing it got for the attempt.
 */
static int sim_hotplug(void)
{
	int fd = kt_open();

	KT_CHECK(fd >= 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_LEFT);
	KT_CHECK(state_of(fd, 0) == PTBTS_PERCPU_RECORDING);
	KT_CHECK(pages() == 2 * BUF / KT_PAGE);
	KT_CHECK(mmap_errno(fd, PROT_READ, MAP_SHARED, BUF) == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_RECORDING);
	KT_CHECK(pages() == 2 * BUF / KT_PAGE);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);

	/* Offline at the start: WAITING, no buffer yet. */
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_WAITING);
	KT_CHECK(pages() == BUF / KT_PAGE);
	/*
	 * It cannot join (no memory): FAILED, nothing kept.  (A join that
	 * fails at its start, someone else's BTS, is the same path of
	 * ds_percpu_online(): tests/sim/test_sim_percpu_alloc.c.)
	 */
	KT_CHECK(knob("percpu_fail_alloc", 1) == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	KT_CHECK(knob("percpu_fail_alloc", -1) == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_FAILED);
	KT_CHECK(pages() == BUF / KT_PAGE);
	/* Next time it comes online it joins. */
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_RECORDING);
	KT_CHECK(pages() == 2 * BUF / KT_PAGE);
	/* The session ends while CPU 1 is offline: everything is freed. */
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	close(fd);
	KT_CHECK(pages() == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	return 0;
}


/*
 * Records, as the simulated CPU stores them (percpu_store: 100 at each
 * switch-off, i.e. at each STATUS of a recording CPU), through the DS
 * code's windows into the kernel buffer, read back through the read-only
 * mapping: positions exact, laps counted, the newest lap's records in
 * order; STOP keeps the first buffer-full and counts the rest as lost.
 */
#define SIM_FROM 0xffffffff81000000ull
#define NSLOTS (BUF / 24)

static int sim_records_ring(int fd, const struct ptbts_record *r)
{
	struct ptbts_percpu_status st;
	uint64_t count = 0, i, base;
	int k;

	for (k = 1; k <= 12; k++) {
		KT_CHECK(status(fd, 0, &st) == 0);
		count += 100;
		KT_CHECK(st.state == PTBTS_PERCPU_RECORDING);
		KT_CHECK(st.wraps == count / NSLOTS);
		KT_CHECK(st.head == (count % NSLOTS) * 24);
		KT_CHECK(st.lost == 0);
	}
	/* The CPU's sequence numbers go on from earlier runs: find the base. */
	base = r[(count - 1) % NSLOTS].from - 16 * (count - 1);
	KT_CHECK(base >= SIM_FROM && (base - SIM_FROM) % 16 == 0);
	for (i = count - NSLOTS; i < count; i++) {
		const struct ptbts_record *x = &r[i % NSLOTS];

		KT_CHECK(x->from == base + 16 * i);
		KT_CHECK(x->to == x->from + 8 && x->flags == 0);
	}
	return 0;
}

static int sim_records(void)
{
	struct ptbts_percpu_status st;
	const struct ptbts_record *r;
	int fd = kt_open(), k, line;

	KT_CHECK(fd >= 0);
	KT_CHECK(knob("percpu_store", 100) == 0);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == 0);
	r = mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, 0);
	KT_CHECK(r != MAP_FAILED);
	line = sim_records_ring(fd, r);
	KT_CHECK(line == 0);
	munmap((void *)r, BUF);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);

	/* STOP: 800 stored, the first 682 kept, 118 lost. */
	KT_CHECK(start(fd, 1, PTBTS_MODE_STOP) == 0);
	for (k = 0; k < 8; k++)
		KT_CHECK(status(fd, 0, &st) == 0);
	KT_CHECK(st.wraps == 1 && st.head == 0);
	KT_CHECK(st.lost == 800 - NSLOTS);
	r = mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, 0);
	KT_CHECK(r != MAP_FAILED);
	for (k = 1; k < (int)NSLOTS; k++)
		KT_CHECK(r[k].from == r[0].from + 16 * (uint64_t)k);
	munmap((void *)r, BUF);
	/* Stopping stores the slice's last 100 too: all lost. */
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	KT_CHECK(status(fd, 0, &st) == 0);
	KT_CHECK(st.state == PTBTS_PERCPU_STOPPED && st.lost == 900 - NSLOTS);
	KT_CHECK(knob("percpu_store", 0) == 0);
	close(fd);
	KT_CHECK(pages() == 0);
	return 0;
}

/* With the machine's reasons out of the way, the caller's is left. */
static int sim_unprivileged_child(void *arg)
{
	struct ptbts_percpu_config c = pc_config(3);

	(void)arg;
	KT_CHECK(kt_become_user() == 0);
	KT_CHECK(pc_start(&c) == -EPERM);
	KT_CHECK(c.unavail == PTBTS_UNAVAIL_NO_CAP);
	KT_CHECK(pages() == 0);
	return 0;
}

static int sim_unprivileged(void)
{
	KT_CHECK(kt_in_child(sim_unprivileged_child, NULL) == 0);
	return 0;
}

/*
 * The buffers are charged to the owner (shown in VmPin, not VmLck:
 * charge.c says why) from before they are allocated until they are freed,
 * whatever frees them.
 */

#define BUF_KB (BUF / 1024)

/* As root (CAP_IPC_LOCK: no limit), charged all the same. */
static int sim_memlock_charged(void)
{
	long v0 = kt_vmpin_kb(), vlck = kt_vmlck_kb();
	const uint8_t *m;
	int fd = kt_open();

	KT_CHECK(fd >= 0 && v0 >= 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 + 2 * BUF_KB);
	KT_CHECK(kt_vmlck_kb() == vlck);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 + 2 * BUF_KB);	/* still held */
	/* A new start refunds the last run's buffers first. */
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 + BUF_KB);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	/* A failed start (rollback after CPU 0's buffer): all refunded. */
	KT_CHECK(knob("percpu_fail_alloc", 1) == 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == -ENOMEM);
	KT_CHECK(knob("percpu_fail_alloc", -1) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 && pages() == 0);
	KT_CHECK(knob("percpu_busy", 1) == 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == -EBUSY);
	KT_CHECK(knob("percpu_busy", -1) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 && pages() == 0);
	/*
	 * A buffer of the last run still mapped (even in part, after a
	 * split): a new start would free its pages under the mapping,
	 * uncharged; it is -EBUSY, the last run left readable.
	 */
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	m = mmap(NULL, 2 * KT_PAGE, PROT_READ, MAP_SHARED, fd, BUF);
	KT_CHECK(m != MAP_FAILED);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == -EBUSY);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_STOPPED);
	KT_CHECK(kt_vmpin_kb() == v0 + 2 * BUF_KB);
	munmap((void *)m, KT_PAGE);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == -EBUSY);
	munmap((void *)(m + KT_PAGE), KT_PAGE);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 + BUF_KB);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	/*
	 * Closed while mapped: the mapping holds the session, whose buffers
	 * are freed, and refunded, as the mapping goes.
	 */
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	m = mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, 0);
	KT_CHECK(m != MAP_FAILED);
	KT_CHECK(kt_vmpin_kb() == v0 + 2 * BUF_KB);
	close(fd);
	KT_CHECK(kt_vmpin_kb() == v0 + 2 * BUF_KB && pages() == 2 * BUF / KT_PAGE);
	munmap((void *)m, BUF);
	KT_CHECK(kt_vmpin_kb() == v0 && pages() == 0);
	KT_CHECK(kt_vmlck_kb() == vlck);
	return 0;
}

/* CPU 1 joins late: charged when it joins, nothing when it cannot. */
static int sim_memlock_hotplug(void)
{
	long v0 = kt_vmpin_kb();
	int fd = kt_open();

	KT_CHECK(fd >= 0 && v0 >= 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_vmpin_kb() == v0 + BUF_KB);
	KT_CHECK(knob("percpu_fail_alloc", 1) == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	KT_CHECK(knob("percpu_fail_alloc", -1) == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_FAILED);
	KT_CHECK(kt_vmpin_kb() == v0 + BUF_KB);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_RECORDING);
	KT_CHECK(kt_vmpin_kb() == v0 + 2 * BUF_KB);
	close(fd);
	KT_CHECK(kt_vmpin_kb() == v0 && pages() == 0);
	return 0;
}

/* Root, still CAP_PERFMON's holder, without CAP_IPC_LOCK. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * RLIMIT_MEMLOCK of 6 pages: two CPUs' buffers (8) are -ENOMEM with
 * nothing left, one (4) fits; a CPU joining past the limit fails.
 */
static int memlock_limited(void *arg)
{
	struct rlimit rl = { 6 * KT_PAGE, 6 * KT_PAGE };
	struct ptbts_percpu_status st;
	int fd;

	(void)arg;
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(drop_ipc_lock() == 0);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_vmpin_kb() == 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == -ENOMEM);
	KT_CHECK(kt_vmpin_kb() == 0 && pages() == 0);
	KT_CHECK(status(fd, 0, &st) == -ENODEV);
	KT_CHECK(start(fd, 1, PTBTS_MODE_STOP) == 0);
	KT_CHECK(kt_vmpin_kb() == BUF_KB && pages() == BUF / KT_PAGE);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	/* CPU 1 offline at the start; over the limit when it comes back. */
	KT_CHECK(kt_write_file(CPU1_ONLINE, "0") == 0);
	KT_CHECK(start(fd, 3, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_vmpin_kb() == BUF_KB);
	KT_CHECK(kt_write_file(CPU1_ONLINE, "1") == 0);
	KT_CHECK(state_of(fd, 1) == PTBTS_PERCPU_FAILED);
	KT_CHECK(kt_vmpin_kb() == BUF_KB && pages() == BUF / KT_PAGE);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	close(fd);
	KT_CHECK(kt_vmpin_kb() == 0 && pages() == 0);
	return 0;
}

/* A mask of 128 bits names CPUs 0 and 1: both record. */
static int sim_wide_mask(void)
{
	struct ptbts_percpu_config c = pc_config(3);
	struct ptbts_percpu_status st;
	int fd = kt_open();

	KT_CHECK(fd >= 0);
	c.cpu_mask_size = 16;
	c.buffer_size = BUF;
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &c) == 0);
	KT_CHECK(status(fd, 0, &st) == 0 && st.state == PTBTS_PERCPU_RECORDING);
	KT_CHECK(status(fd, 1, &st) == 0 && st.state == PTBTS_PERCPU_RECORDING);
	KT_CHECK(status(fd, 2, &st) == -EINVAL);
	close(fd);
	KT_CHECK(pages() == 0);
	return 0;
}

static int sim_memlock_limit(void)
{
	KT_CHECK(kt_in_child(memlock_limited, NULL) == 0);
	KT_CHECK(pages() == 0);
	return 0;
}

/*
 * One limit for both kinds of buffer: with 6 pages, a CPU's buffer (4)
 * leaves room for a thread buffer of 2 pages and not 3, and a thread's 3
 * pages leave no room for a CPU's 4.
 */
static int memlock_shared(void *arg)
{
	struct rlimit rl = { 6 * KT_PAGE, 6 * KT_PAGE };
	uint8_t *p = kt_map(3 * KT_PAGE);
	struct kt_tracee t;
	int fd;

	(void)arg;
	KT_CHECK(p != NULL);
	KT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	KT_CHECK(drop_ipc_lock() == 0);
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_tracee_start(&t, 0, 1) == 0);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_attach(fd, t.pid, p, 3 * KT_PAGE) == -ENOMEM);
	KT_CHECK(kt_attach(fd, t.pid, p, 2 * KT_PAGE) == 0);
	KT_CHECK(kt_vmpin_kb() == BUF_KB + 8);
	KT_CHECK(kt_detach(fd, t.pid) == 0);
	close(fd);
	/* The other way round: a thread's 3 pages leave no room for 4. */
	fd = kt_open();
	KT_CHECK(fd >= 0);
	KT_CHECK(kt_attach(fd, t.pid, p, 3 * KT_PAGE) == 0);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == -ENOMEM);
	KT_CHECK(kt_detach(fd, t.pid) == 0);
	KT_CHECK(start(fd, 1, PTBTS_MODE_RING) == 0);
	KT_CHECK(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL) == 0);
	close(fd);
	kt_tracee_kill(&t);
	KT_CHECK(kt_vmpin_kb() == 0 && pages() == 0);
	return 0;
}

static int sim_memlock_shared(void)
{
	KT_CHECK(kt_in_child(memlock_shared, NULL) == 0);
	KT_CHECK(pages() == 0 && kt_pinned() == 0);
	return 0;
}

/*
 * libbts's per-CPU API through a client linked with libbts.a
 * (tests/kernel/libbts/percpu-lib.c): start, STATUS, the records through
 * the mapping, stop, each exact, on the simulated CPU storing 100 records
 * at each STATUS.
 */
static int sim_libbts_api(void)
{
	char *argv[] = { "/percpu-lib", "sim", NULL };
	struct harness_cmd c;
	int code;

	KT_CHECK(knob("percpu_store", 100) == 0);
	KT_CHECK(harness_run(argv, 60, &c) == 0);
	code = harness_exit_code(&c);
	if (code || strcmp(c.out, "ok\n"))
		fprintf(stderr, "percpu-lib sim: exit %d: %s%s", code, c.out, c.err);
	KT_CHECK(code == 0 && !strcmp(c.out, "ok\n") && !c.err_len);
	harness_cmd_free(&c);
	KT_CHECK(knob("percpu_store", 0) == 0);
	KT_CHECK(pages() == 0);
	return 0;
}

/* After a failed scenario: its session fds (not its mappings) are closed. */
static void close_sessions(void)
{
	char path[64], target[64];
	ssize_t n;
	int fd;

	for (fd = 3; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strcmp(target, PTBTS_DEVICE))
			close(fd);
	}
}

/*
 * One load of the test build for all of them (a load and an unload cost
 * about a second in the guest); the real module is back after, whatever
 * failed, and so is CPU 1.  A failure names the scenario and its line.
 */
TEST(percpu_sim, session_on_simulated_msrs)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} scenarios[] = {
		{ "start_status_stop", sim_start_status_stop },
		{ "mmap_read_only", sim_mmap_read_only },
		{ "failed_start_rolls_back_completely", sim_rollback },
		{ "hotplug_join_and_leave", sim_hotplug },
		{ "unprivileged_caller_is_eperm", sim_unprivileged },
		{ "records_through_the_windows", sim_records },
		{ "memlock_charged_and_refunded", sim_memlock_charged },
		{ "memlock_hotplug_join", sim_memlock_hotplug },
		{ "memlock_limit_is_enomem", sim_memlock_limit },
		{ "cpu_mask_of_128_bits", sim_wide_mask },
		{ "memlock_one_limit_for_cpus_and_threads", sim_memlock_shared },
		{ "libbts_api_start_status_records_stop", sim_libbts_api },
	};
	size_t i;
	int line;

	ASSERT_EQ(kt_swap_module("/ptrace_bts-test.ko", "percpu_sim=1"), 0);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		line = scenarios[i].fn();
		if (line) {
			harness_fail(__FILE__, __LINE__, "%s: the check at line %d failed",
				     scenarios[i].name, line);
			close_sessions();
		}
		kt_write_file(CPU1_ONLINE, "1");
		knob("percpu_fail_alloc", -1);
		knob("percpu_busy", -1);
		knob("percpu_store", 0);
	}
	EXPECT_EQ(kt_swap_module("/ptrace_bts.ko", ""), 0);
}
