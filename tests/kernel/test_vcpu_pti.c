// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Why kmod-bts refuses under page-table isolation, shown rather than
 * argued: the test build of the module (force_pti=1) starts kmod-bts on
 * the virtual CPU booted with PTI on (the second boot of vcpu-run).  The
 * CPU stores a BTS record while user mode runs, with the user page tables
 * loaded, through the kernel's vmap alias of the tracer's pages, which
 * those tables lack: no record reaches the buffer, and the CPU reports
 * every store that faulted on QEMU's stderr.  The guest cannot read that
 * report; it tells the host to expect it (the PTBTS-EXPECT-BTS-FAULT
 * line), and tests/kernel/qemu-run then requires faulting stores from
 * user mode (vcpu_pti.bts_store_fault_reported) instead of failing on them.
 */
#include <stdio.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define SIZE	(16 * KT_PAGE)

KT_GUARDED_TEST(vcpu_pti, forced_kmod_bts_cannot_store)
{
	const struct ptbts_record *recs;
	struct ptbts_caps c;
	struct kt_run r;
	uint64_t k, n, branches = 0;
	int st;

	ASSERT_TRUE(kt_cpuinfo_has("pti"));
	ASSERT_EQ(kt_swap_module("/ptrace_bts-test.ko", "force_pti=1"), 0);
	ASSERT_EQ(kt_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], (unsigned)PTBTS_OK);
	ASSERT_EQ(kt_run_start_source(&r, kt_seq_loop, 10, SIZE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	fprintf(stderr, "\nPTBTS-EXPECT-BTS-FAULT\n");
	fflush(stderr);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.state, (unsigned)PTBTS_STATE_EXITED);
	/* Markers may come; not one branch record does. */
	n = kt_count(&r.st, SIZE);
	recs = kt_run_recs(&r);
	for (k = 0; k < n && k < SIZE / sizeof(*recs); k++)
		branches += !PTBTS_KIND(recs[k].flags);
	EXPECT_EQ(branches, 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(kt_swap_module("/ptrace_bts.ko", ""), 0);
}
