// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A debugger's hardware watchpoint on a thread that kmod-step records.
 * Every instruction of that thread is single-stepped, so the watched write
 * traps with DR6 = B0|BS: the step is the module's, the watchpoint the
 * debugger's.  Only on the virtual CPU (tests/vcpu/0005: Debian's QEMU 7.2
 * hangs the guest on such a trap, with or without the module).
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)
#define ITERS	10

#define DR6_B0		0x1ul
#define DR6_BS		0x4000ul
/* L0, R/W0 = 01 (data writes), LEN0 = 10 (8 bytes). */
#define DR7_W8		(0x1ul | (0x1ul << 16) | (0x2ul << 18))

static long dr_off(int n)
{
	return (long)offsetof(struct user, u_debugreg[n]);
}

/*
 * The watchpoint: the stack slot where kt_seq_loop's "call kt_leaf" stores
 * its return address, below the stack pointer of the SIGSTOP stop (the
 * loop pushes nothing else).  Every iteration writes it once.
 */
static int watch_call_slot(pid_t pid)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return -1;
	if (ptrace(PTRACE_POKEUSER, pid, dr_off(0), regs.rsp - 8) ||
	    ptrace(PTRACE_POKEUSER, pid, dr_off(7), DR7_W8))
		return -1;
	return 0;
}

/*
 * Runs @pid to its exit; counts the watchpoint's SIGTRAPs, each of which
 * must be a TRAP_HWBKPT at the instruction after the call (a trap comes
 * after the write) with B0 and without the module's BS in DR6.
 */
static int run_counting_hits(pid_t pid, int *hits, int *bad)
{
	int st;

	*hits = *bad = 0;
	for (;;) {
		siginfo_t si;
		long dr6;
		struct user_regs_struct regs;

		if (ptrace(PTRACE_CONT, pid, 0, 0) || waitpid(pid, &st, 0) != pid)
			return -1;
		if (!WIFSTOPPED(st))
			return st;
		if (WSTOPSIG(st) != SIGTRAP)
			continue;
		dr6 = ptrace(PTRACE_PEEKUSER, pid, dr_off(6), 0);
		if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) ||
		    ptrace(PTRACE_GETREGS, pid, 0, &regs))
			return -1;
		(*hits)++;
		if (si.si_code != TRAP_HWBKPT || (dr6 & 0xf) != DR6_B0 ||
		    (dr6 & DR6_BS) || regs.rip != KT_ADDR(kt_leaf)) {
			fprintf(stderr, "trap %d: si_code %d, DR6 %#lx, "
				"rip %#llx\n", *hits, si.si_code, dr6, regs.rip);
			(*bad)++;
		}
	}
}

/*
 * The tracer sees every hit of its watchpoint, with the DR6 it set it up
 * for, and the branch stream is exactly that of the same program without
 * a watchpoint.
 */
KT_GUARDED_TEST(vcpu, kmod_step_watchpoint_reaches_the_debugger)
{
	static struct ptbts_record want[64];
	size_t n = kt_loop_expect(want, 64, ITERS, kt_loop_call, kt_loop_after,
				  kt_loop_jnz);
	struct kt_run r;
	int st, hits, bad;

	ASSERT_EQ(n, 29u);
	ASSERT_EQ(kt_run_start(&r, kt_seq_loop, ITERS, KT_PAGE, PTBTS_MODE_RING,
			       0), 0);
	ASSERT_EQ(watch_call_slot(r.pid), 0);
	st = run_counting_hits(r.pid, &hits, &bad);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(hits, ITERS);
	EXPECT_EQ(bad, 0);
	ASSERT_EQ(kt_status(r.fd, r.pid, &r.st), 0);
	EXPECT_EQ(r.st.state, (unsigned)PTBTS_STATE_EXITED);
	EXPECT_EQ(r.st.head, n * REC);
	EXPECT_EQ(r.st.lost, 0u);
	EXPECT_EQ(kt_records_diff(kt_run_recs(&r), want, n), 0u);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}
