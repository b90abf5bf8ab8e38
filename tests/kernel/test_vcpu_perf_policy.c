// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf's policy on the hardware sources, on the virtual CPU, where nothing
 * else stands in their way: kmod-bts, kmod-pebs and the per-CPU mode need
 * CAP_PERFMON (or CAP_SYS_ADMIN), as perf's strictest perf_event_paranoid
 * levels do, and a kernel locked down against perf (LOCKDOWN_PERF) refuses
 * them even to root.  Each refusal says why, as EPERM, and pins nothing;
 * kmod-step, which the ptrace check alone governs, is not refused.
 *
 * Raising the lockdown cannot be undone, so vcpu_lockdown.* runs in a boot
 * of its own (tests/kernel/vcpu-run), after the module was loaded.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mount.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"

#define BUF_SIZE	(16 * KT_PAGE)

/* ATTACH of @source for @tid, kmod-pebs with its second region. */
static long attach_source(int fd, pid_t tid, uint8_t *p, uint32_t source)
{
	struct ptbts_config c = kt_config(tid, p, 8 * KT_PAGE);

	c.source = source;
	if (source == PTBTS_SOURCE_KMOD_PEBS) {
		c.buffer2 = (uintptr_t)(p + 8 * KT_PAGE);
		c.buffer2_size = 8 * KT_PAGE;
	}
	return kt_ioctl(fd, PTBTS_IOC_ATTACH, &c);
}

/* PERCPU_START on CPU 0: its result, and the reason written back. */
static long percpu_start(int fd, uint32_t *unavail)
{
	uint64_t mask = 1;
	struct ptbts_percpu_config c = {
		.size = sizeof(c),
		.mode = PTBTS_MODE_RING,
		.cpu_mask = (uintptr_t)&mask,
		.cpu_mask_size = sizeof(mask),
		.buffer_size = KT_PAGE,
	};
	long r = kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &c);

	*unavail = c.unavail;
	return r;
}

/*
 * Every hardware source refused for @why, in CAPS, at ATTACH and at
 * PERCPU_START, with nothing pinned; kmod-step still attaches.  Returns
 * 0 or the failing line.
 */
static int hw_refused(unsigned int why)
{
	uint8_t *p = kt_map(BUF_SIZE);
	struct ptbts_caps caps;
	struct kt_tracee t;
	uint32_t unavail;
	int fd = kt_open();

	KT_CHECK(p != NULL && fd >= 0);
	KT_CHECK(kt_caps(&caps) == 0);
	KT_CHECK(caps.unavail[PTBTS_SOURCE_KMOD_BTS] == why);
	KT_CHECK(caps.unavail[PTBTS_SOURCE_KMOD_PEBS] == why);
	KT_CHECK(caps.percpu_unavail == why);
	KT_CHECK(!(caps.sources & (1u << PTBTS_SOURCE_KMOD_BTS)));
	KT_CHECK(!(caps.sources & (1u << PTBTS_SOURCE_KMOD_PEBS)));
	KT_CHECK(kt_tracee_start(&t, 0, 1) == 0);
	KT_CHECK(attach_source(fd, t.pid, p, PTBTS_SOURCE_KMOD_BTS) == -EPERM);
	KT_CHECK(attach_source(fd, t.pid, p, PTBTS_SOURCE_KMOD_PEBS) == -EPERM);
	KT_CHECK(kt_pinned() == 0);
	KT_CHECK(percpu_start(fd, &unavail) == -EPERM);
	KT_CHECK(unavail == why);
	KT_CHECK(kt_pinned() == 0);
	KT_CHECK(attach_source(fd, t.pid, p, PTBTS_SOURCE_KMOD_STEP) == 0);
	KT_CHECK(kt_detach(fd, t.pid) == 0);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(p, BUF_SIZE);
	return 0;
}

static int unprivileged(void *arg)
{
	(void)arg;
	KT_CHECK(kt_become_user() == 0);
	return hw_refused(PTBTS_UNAVAIL_NO_CAP);
}

/* uid 1000 traces its own child: the sources of the CPU are not its. */
KT_GUARDED_TEST(vcpu, hw_sources_need_cap_perfmon)
{
	EXPECT_EQ(kt_in_child(unprivileged, NULL), 0);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * Root, in a kernel locked down for confidentiality, the mode that covers
 * perf (integrity does not).
 */
KT_GUARDED_TEST(vcpu_lockdown, hw_sources_refused_to_root)
{
	char line[128];

	if (mount("securityfs", "/sys/kernel/security", "securityfs", 0,
		  NULL) && errno != EBUSY)
		ASSERT_EQ(errno, 0);
	ASSERT_EQ(kt_write_file("/sys/kernel/security/lockdown",
				"confidentiality"), 0);
	ASSERT_EQ(kt_read_line("/sys/kernel/security/lockdown", line,
			       sizeof(line)), 0);
	EXPECT_STREQ(line, "none integrity [confidentiality]");
	EXPECT_EQ(hw_refused(PTBTS_UNAVAIL_LOCKDOWN), 0);
	EXPECT_EQ(kt_pinned(), 0);
}
