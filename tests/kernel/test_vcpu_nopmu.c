// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The virtual CPU without its architectural PMU (pmu=off: CPUID leaf 0xA
 * reads 0, and the counters' MSRs are not there), a boot of its own in
 * tests/kernel/vcpu-run.  kmod-pebs counts on PMC0 and gates it in
 * GLOBAL_CTRL: it is refused for the PMU without either being touched, so
 * the kernel log stays clean (the guard checks it: an unchecked access to
 * a missing MSR prints a warning there).  kmod-bts needs no counter and
 * still records.
 */
#include <errno.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define SIZE	(16 * KT_PAGE)

KT_GUARDED_TEST(vcpu_nopmu, kmod_pebs_refused_kmod_bts_records)
{
	struct ptbts_caps c;
	struct kt_run r;
	int ws;

	EXPECT_FALSE(kt_cpuinfo_has("arch_perfmon"));
	ASSERT_EQ(kt_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_PEBS],
		  (unsigned)PTBTS_UNAVAIL_NO_PMU);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], (unsigned)PTBTS_OK);
	EXPECT_EQ(kt_run_start_source(&r, kt_seq_loop, 100, SIZE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_PEBS), -EOPNOTSUPP);
	ws = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);

	/* 299 taken user branches, then the exit_group entry. */
	ASSERT_EQ(kt_run_start_source(&r, kt_seq_loop, 100, SIZE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	ws = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	EXPECT_EQ(r.st.state, (unsigned)PTBTS_STATE_EXITED);
	EXPECT_GE(kt_count(&r.st, SIZE), 300u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}
