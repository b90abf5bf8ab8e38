// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The refusal checks: each decision line for line from given facts, and
 * the probes reading fabricated /proc and /sys trees (BTS_PROC_ROOT,
 * BTS_SYSFS_ROOT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_root.h"
#include "bts.h"
#include "sources/refusal/refusal.h"

#define ALL ((1u << PTBTS_SOURCE_KMOD_BTS) | (1u << PTBTS_SOURCE_KMOD_PEBS) | \
	     (1u << PTBTS_SOURCE_KMOD_STEP) | (1u << PTBTS_SOURCE_PERF_BTS) | \
	     (1u << PTBTS_SOURCE_PTRACE_STEP) | (1u << PTBTS_SOURCE_QEMU_USER))
#define KMOD ((1u << PTBTS_SOURCE_KMOD_BTS) | (1u << PTBTS_SOURCE_KMOD_PEBS) | \
	      (1u << PTBTS_SOURCE_KMOD_STEP))
#define PERF (1u << PTBTS_SOURCE_PERF_BTS)

/* A machine where nothing refuses anything. */
static struct bts_refusal_facts fine(void)
{
	struct bts_refusal_facts f = {
		.yama = 0, .seccomp = 0, .paranoid = 2, .module_abi = PTBTS_ABI_VERSION,
		.meltdown = "Not affected", .lockdown = "none",
	};
	return f;
}

static struct bts_refusal decide(int check, const struct bts_refusal_facts *f)
{
	struct bts_refusal r;

	bts_refusal_decide(check, f, &r);
	return r;
}

#define EXPECT_LINE(which, f, want_sources, want_line) do {		\
	struct bts_refusal __r = decide((which), &(f));			\
	EXPECT_EQ(__r.check, (which));					\
	EXPECT_EQ(__r.sources, (uint32_t)(want_sources));		\
	EXPECT_STREQ(__r.line, (want_line));				\
} while (0)

TEST(refusal, names)
{
	EXPECT_STREQ(bts_refusal_name(BTS_REFUSAL_YAMA), "yama");
	EXPECT_STREQ(bts_refusal_name(BTS_REFUSAL_POLICY), "policy");
	EXPECT_STREQ(bts_refusal_name(BTS_REFUSAL_PARANOID), "paranoid");
	EXPECT_STREQ(bts_refusal_name(BTS_REFUSAL_PTI), "pti");
	EXPECT_STREQ(bts_refusal_name(BTS_REFUSAL_LOCKDOWN), "lockdown");
	EXPECT_STREQ(bts_refusal_name(BTS_REFUSAL_MODULE), "module");
	EXPECT_TRUE(bts_refusal_name(BTS_REFUSAL_MAX) == NULL);
	EXPECT_TRUE(bts_refusal_name(-1) == NULL);
}

TEST(refusal, unknown_check_is_invalid)
{
	struct bts_refusal r;

	EXPECT_EQ(bts_refusal_check(BTS_REFUSAL_MAX, &r, sizeof(r)), -BTS_E_INVAL);
	EXPECT_EQ(bts_refusal_check(-1, &r, sizeof(r)), -BTS_E_INVAL);
	EXPECT_EQ(bts_refusal_check(BTS_REFUSAL_PTI, NULL, 0), -BTS_E_INVAL);
}

TEST(refusal, yama_lines)
{
	struct bts_refusal_facts f = fine();
	struct bts_refusal r;

	f.yama = -1;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, 0,
		    "ok: no Yama (no /proc/sys/kernel/yama/ptrace_scope)");
	f.yama = 0;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, 0,
		    "ok: /proc/sys/kernel/yama/ptrace_scope is 0 (classic ptrace permissions)");
	f.yama = 1;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, ALL,
		    "attaching is limited to descendants: /proc/sys/kernel/yama/ptrace_scope"
		    " is 1; start the program under 'btrace record', run btrace as root "
		    "(CAP_SYS_PTRACE), or set 'sysctl kernel.yama.ptrace_scope=0'");
	r = decide(BTS_REFUSAL_YAMA, &f);
	EXPECT_TRUE(r.attach_only);
	f.yama = 2;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, ALL,
		    "ptrace is for administrators only: /proc/sys/kernel/yama/ptrace_scope"
		    " is 2; run btrace as root (CAP_SYS_PTRACE), or set "
		    "'sysctl kernel.yama.ptrace_scope=1'");
	r = decide(BTS_REFUSAL_YAMA, &f);
	EXPECT_FALSE(r.attach_only);
	f.cap_eff = 1ull << BTS_CAP_SYS_PTRACE;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, 0,
		    "ok: /proc/sys/kernel/yama/ptrace_scope is 2, and btrace has CAP_SYS_PTRACE");
	f.yama = 1;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, 0,
		    "ok: /proc/sys/kernel/yama/ptrace_scope is 1, and btrace has CAP_SYS_PTRACE");
	/* Not even CAP_SYS_PTRACE helps at 3. */
	f.yama = 3;
	EXPECT_LINE(BTS_REFUSAL_YAMA, f, ALL,
		    "ptrace is disabled: /proc/sys/kernel/yama/ptrace_scope is 3, which only "
		    "a reboot undoes; boot with kernel.yama.ptrace_scope set to 2 or less");
}

TEST(refusal, policy_lines)
{
	struct bts_refusal_facts f = fine();

	EXPECT_LINE(BTS_REFUSAL_POLICY, f, 0,
		    "ok: no seccomp filter; ptrace and perf_event_open are allowed");
	f.seccomp = 2;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, 0,
		    "ok: a seccomp filter is active (Seccomp: 2 in /proc/self/status) "
		    "but allows ptrace and perf_event_open");
	f.ptrace_err = EPERM;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, ALL,
		    "a seccomp filter blocks ptrace (Seccomp: 2 in /proc/self/status, "
		    "Operation not permitted): run btrace outside the sandbox, or allow it "
		    "(docker: --cap-add=SYS_PTRACE --security-opt seccomp=unconfined)");
	f.perf_err = ENOSYS;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, ALL,
		    "a seccomp filter blocks ptrace and perf_event_open (Seccomp: 2 in "
		    "/proc/self/status, Operation not permitted): run btrace outside the "
		    "sandbox, or allow it (docker: --cap-add=SYS_PTRACE --security-opt "
		    "seccomp=unconfined)");
	f.ptrace_err = 0;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, PERF,
		    "a seccomp filter blocks perf_event_open (Seccomp: 2 in /proc/self/status, "
		    "Function not implemented): run btrace outside the sandbox, or allow it "
		    "(docker: --cap-add=SYS_PTRACE --security-opt seccomp=unconfined)");
	f.seccomp = 0;
	f.perf_err = 0;
	f.ptrace_err = EPERM;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, ALL,
		    "a container or security policy blocks ptrace (Operation not permitted): "
		    "run btrace outside it, or allow it (docker: --cap-add=SYS_PTRACE "
		    "--cap-add=PERFMON)");
}

/* A refusal Yama or perf_event_paranoid explains is not a policy's. */
TEST(refusal, policy_leaves_yama_and_paranoid_theirs)
{
	struct bts_refusal_facts f = fine();

	f.yama = 3;
	f.ptrace_err = EPERM;
	f.paranoid = 3;
	f.perf_err = EACCES;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, 0,
		    "ok: no seccomp filter; ptrace and perf_event_open are allowed");
	/* Other errors than a refusal (no PMU: ENOENT) are not a policy. */
	f = fine();
	f.perf_err = ENOENT;
	EXPECT_LINE(BTS_REFUSAL_POLICY, f, 0,
		    "ok: no seccomp filter; ptrace and perf_event_open are allowed");
}

TEST(refusal, paranoid_lines)
{
	struct bts_refusal_facts f = fine();

	EXPECT_LINE(BTS_REFUSAL_PARANOID, f, 0,
		    "ok: /proc/sys/kernel/perf_event_paranoid is 2 (2 or less: user-mode "
		    "branch sampling of one's own processes is allowed)");
	f.paranoid = -1;
	EXPECT_LINE(BTS_REFUSAL_PARANOID, f, 0,
		    "ok: /proc/sys/kernel/perf_event_paranoid is -1 (2 or less: user-mode "
		    "branch sampling of one's own processes is allowed)");
	f.paranoid = 3;
	/* gdb's own words. */
	EXPECT_LINE(BTS_REFUSAL_PARANOID, f, PERF,
		    "You do not have permission to record the process.  Try setting "
		    "/proc/sys/kernel/perf_event_paranoid to 2 or less.");
	f.cap_eff = 1ull << BTS_CAP_PERFMON;
	EXPECT_LINE(BTS_REFUSAL_PARANOID, f, 0,
		    "ok: /proc/sys/kernel/perf_event_paranoid is 3, and btrace has CAP_PERFMON");
	f.cap_eff = 1ull << BTS_CAP_SYS_ADMIN;
	EXPECT_LINE(BTS_REFUSAL_PARANOID, f, 0,
		    "ok: /proc/sys/kernel/perf_event_paranoid is 3, and btrace has CAP_PERFMON");
	f.paranoid = BTS_NO_PERF;
	EXPECT_LINE(BTS_REFUSAL_PARANOID, f, PERF,
		    "this kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid): "
		    "perf-bts needs CONFIG_PERF_EVENTS");
}

TEST(refusal, pti_lines)
{
	struct bts_refusal_facts f = fine();

	EXPECT_LINE(BTS_REFUSAL_PTI, f, 0, "ok: PTI is off (meltdown: Not affected)");
	strcpy(f.meltdown, "Vulnerable");
	EXPECT_LINE(BTS_REFUSAL_PTI, f, 0, "ok: PTI is off (meltdown: Vulnerable)");
	strcpy(f.meltdown, "Mitigation: PTI");
	EXPECT_LINE(BTS_REFUSAL_PTI, f, (1u << PTBTS_SOURCE_KMOD_BTS) |
		    (1u << PTBTS_SOURCE_KMOD_PEBS),
		    "PTI is on (meltdown: Mitigation: PTI): the CPU cannot store branch "
		    "records into user pages, so kmod-bts and kmod-pebs are refused; boot "
		    "with pti=off, or use a CPU not affected by Meltdown");
	f.meltdown[0] = '\0';
	EXPECT_LINE(BTS_REFUSAL_PTI, f, 0, "ok: PTI unknown (no "
		    "/sys/devices/system/cpu/vulnerabilities/meltdown); the module checks it itself");
}

TEST(refusal, lockdown_lines)
{
	struct bts_refusal_facts f = fine();

	EXPECT_LINE(BTS_REFUSAL_LOCKDOWN, f, 0, "ok: kernel lockdown is off");
	f.lockdown[0] = '\0';
	EXPECT_LINE(BTS_REFUSAL_LOCKDOWN, f, 0, "ok: no kernel lockdown");
	strcpy(f.lockdown, "integrity");
	EXPECT_LINE(BTS_REFUSAL_LOCKDOWN, f, 0, "ok: the kernel is locked down "
		    "(integrity), and the ptrace_bts module is loaded");
	f.module_abi = -1;
	EXPECT_LINE(BTS_REFUSAL_LOCKDOWN, f, KMOD,
		    "the kernel is locked down (integrity): it loads only signed modules; "
		    "sign ptrace_bts with a key enrolled as a MOK (mokutil --import, see "
		    "README), then load it");
}

TEST(refusal, module_lines)
{
	struct bts_refusal_facts f = fine();

	EXPECT_LINE(BTS_REFUSAL_MODULE, f, 0,
		    "ok: the ptrace_bts module is loaded (ABI version 2)");
	f.module_abi = -1;
	EXPECT_LINE(BTS_REFUSAL_MODULE, f, KMOD,
		    "the ptrace_bts module is not loaded: the kmod sources need it; load "
		    "it with 'modprobe ptrace_bts' (see README: DKMS)");
	f.module_abi = PTBTS_ABI_VERSION + 1;
	EXPECT_LINE(BTS_REFUSAL_MODULE, f, KMOD,
		    "the ptrace_bts module speaks ABI version 3, libbts version 2: load "
		    "the matching module");
}

/* --------------------------------------------- fabricated /proc and /sys */

TEST(refusal, root_path)
{
	char buf[256];

	fake_root_leave();
	EXPECT_STREQ(bts_root_path("/proc/cpuinfo", buf, sizeof(buf)), "/proc/cpuinfo");
	setenv("BTS_PROC_ROOT", "/x/p", 1);
	setenv("BTS_SYSFS_ROOT", "/y/s", 1);
	EXPECT_STREQ(bts_root_path("/proc/cpuinfo", buf, sizeof(buf)), "/x/p/cpuinfo");
	EXPECT_STREQ(bts_root_path("/sys/kernel/x", buf, sizeof(buf)), "/y/s/kernel/x");
	EXPECT_STREQ(bts_root_path("/dev/null", buf, sizeof(buf)), "/dev/null");
	fake_root_leave();
}

/* The probes read every fact from the fabricated tree. */
TEST(refusal, probe_reads_the_roots)
{
	struct bts_refusal_facts f;

	fake_root_file("proc/sys/kernel/yama/ptrace_scope", "2\n");
	fake_root_file("proc/sys/kernel/perf_event_paranoid", "3\n");
	fake_root_file("proc/self/status", "Name:\tx\nCapEff:\t0000000000080000\nSeccomp:\t2\n");
	fake_root_file("sys/devices/system/cpu/vulnerabilities/meltdown", "Mitigation: PTI\n");
	fake_root_file("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	fake_root_file("sys/kernel/ptrace_bts/abi_version", "7\n");
	fake_root_enter();
	bts_refusal_probe(-1, &f);
	fake_root_leave();
	EXPECT_EQ(f.yama, 2);
	EXPECT_EQ(f.paranoid, 3);
	EXPECT_EQ(f.cap_eff, 1ull << BTS_CAP_SYS_PTRACE);
	EXPECT_EQ(f.seccomp, 2);
	EXPECT_STREQ(f.meltdown, "Mitigation: PTI");
	EXPECT_STREQ(f.lockdown, "integrity");
	EXPECT_EQ(f.module_abi, 7);
	/* The tries are real: this machine allows both. */
	EXPECT_EQ(f.ptrace_err, 0);
	EXPECT_EQ(f.perf_err, 0);
}

TEST(refusal, probe_missing_files)
{
	struct bts_refusal_facts f;

	fake_root_file("proc/self/status", "Name:\tx\n");
	fake_root_enter();
	bts_refusal_probe(BTS_REFUSAL_YAMA, &f);
	fake_root_leave();
	EXPECT_EQ(f.yama, -1);
	EXPECT_EQ(f.paranoid, BTS_NO_PERF);
	EXPECT_EQ(f.seccomp, -1);
	EXPECT_EQ(f.cap_eff, 0ull);
	EXPECT_STREQ(f.meltdown, "");
	EXPECT_STREQ(f.lockdown, "");
	EXPECT_EQ(f.module_abi, -1);
}

/* The first refusing check, in enum order, for each source. */
TEST(refusal, refusal_for_picks_the_first)
{
	struct bts_refusal r;

	fake_root_file("proc/sys/kernel/yama/ptrace_scope", "1\n");
	fake_root_file("proc/sys/kernel/perf_event_paranoid", "4\n");
	fake_root_file("proc/self/status", "CapEff:\t0\nSeccomp:\t0\n");
	fake_root_file("sys/devices/system/cpu/vulnerabilities/meltdown", "Mitigation: PTI\n");
	fake_root_enter();
	/* Yama 1 refuses attaching only. */
	EXPECT_EQ(bts_refusal_for(BTS_SOURCE_AUTO, false, &r, sizeof(r)), 0);
	EXPECT_EQ(bts_refusal_for(BTS_SOURCE_AUTO, true, &r, sizeof(r)), 1);
	EXPECT_EQ(r.check, BTS_REFUSAL_YAMA);
	EXPECT_EQ(bts_refusal_for(PTBTS_SOURCE_PTRACE_STEP, false, &r, sizeof(r)), 0);
	EXPECT_EQ(bts_refusal_for(PTBTS_SOURCE_PERF_BTS, false, &r, sizeof(r)), 1);
	EXPECT_EQ(r.check, BTS_REFUSAL_PARANOID);
	EXPECT_STREQ(r.line, "You do not have permission to record the process.  Try "
		     "setting /proc/sys/kernel/perf_event_paranoid to 2 or less.");
	EXPECT_EQ(bts_refusal_for(PTBTS_SOURCE_KMOD_BTS, false, &r, sizeof(r)), 1);
	EXPECT_EQ(r.check, BTS_REFUSAL_PTI);
	EXPECT_EQ(bts_refusal_for(PTBTS_SOURCE_KMOD_STEP, false, &r, sizeof(r)), 1);
	EXPECT_EQ(r.check, BTS_REFUSAL_MODULE);
	EXPECT_EQ(bts_refusal_for(PTBTS_SOURCE_NONE, false, &r, sizeof(r)), 0);
	EXPECT_EQ(bts_refusal_for(PTBTS_SOURCE_MAX, false, &r, sizeof(r)), 0);
	fake_root_leave();
}
