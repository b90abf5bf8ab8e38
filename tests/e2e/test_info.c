// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace info's refusal lines, on fabricated /proc and /sys trees
 * (BTS_PROC_ROOT, BTS_SYSFS_ROOT), and the same line from a command that
 * is refused for that reason.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"
#include "fake_root.h"

#define TIMEOUT 60

#define YAMA3 "ptrace is disabled: /proc/sys/kernel/yama/ptrace_scope is 3, which only " \
	"a reboot undoes; boot with kernel.yama.ptrace_scope set to 2 or less"
#define YAMA1 "attaching is limited to descendants: /proc/sys/kernel/yama/ptrace_scope" \
	" is 1; start the program under 'btrace record', run btrace as root " \
	"(CAP_SYS_PTRACE), or set 'sysctl kernel.yama.ptrace_scope=0'"
#define PARANOID "You do not have permission to record the process.  Try setting " \
	"/proc/sys/kernel/perf_event_paranoid to 2 or less."
#define PTI "PTI is on (meltdown: Mitigation: PTI): the CPU cannot store branch " \
	"records into user pages, so kmod-bts and kmod-pebs are refused; boot " \
	"with pti=off, or use a CPU not affected by Meltdown"
#define LOCKDOWN "the kernel is locked down (integrity): it loads only signed " \
	"modules; sign ptrace_bts with a key enrolled as a MOK (mokutil --import, " \
	"see README), then load it"
#define NOMODULE "the ptrace_bts module is not loaded: the kmod sources need it; " \
	"load it with 'modprobe ptrace_bts' (see README: DKMS)"
#define POLICY_OK "ok: no seccomp filter; ptrace and perf_event_open are allowed"
#define AMD "BTS support has been disabled for the target cpu."

/* Runs btrace in the fabricated tree; returns its exit code. */
static int btrace(struct harness_cmd *cmd, ...)
{
	va_list ap;
	int code;

	va_start(ap, cmd);
	fake_root_enter();
	code = harness_btrace_va(cmd, TIMEOUT, ap);
	fake_root_leave();
	va_end(ap);
	return code;
}

static void expect_err(const struct harness_cmd *c, const char *want)
{
	EXPECT_STREQ(c->err, want);
	EXPECT_EQ(c->out_len, 0u);
}

TEST(info, every_refusal_line)
{
	struct harness_cmd c;

	fake_root_intel("3\n", "3\n", "Mitigation: PTI\n", "none [integrity] confidentiality\n");
	EXPECT_EQ(btrace(&c, "info", NULL), 0);
	EXPECT_STREQ(c.out,
		"kmod-bts     unavailable: " YAMA3 "\n"
		"kmod-pebs    unavailable: " YAMA3 "\n"
		"kmod-step    unavailable: " YAMA3 "\n"
		"perf-bts     unavailable: " YAMA3 "\n"
		"ptrace-step  unavailable: " YAMA3 "\n"
		"qemu-user    unavailable: " YAMA3 "\n"
		"auto         -> none\n"
		"per-cpu      unavailable: " LOCKDOWN "\n"
		"\n"
		"yama         " YAMA3 "\n"
		"policy       " POLICY_OK "\n"
		"paranoid     " PARANOID "\n"
		"pti          " PTI "\n"
		"lockdown     " LOCKDOWN "\n"
		"module       " NOMODULE "\n");
	EXPECT_EQ(c.err_len, 0u);
	harness_cmd_free(&c);
}

/* Without Yama in the way, each source shows its own first refusal. */
TEST(info, each_source_its_first_refusal)
{
	struct harness_cmd c;

	fake_root_intel("1\n", "3\n", "Mitigation: PTI\n", "[none] integrity confidentiality\n");
	EXPECT_EQ(btrace(&c, "info", NULL), 0);
	EXPECT_STREQ(c.out,
		"kmod-bts     unavailable: " NOMODULE "\n"
		"kmod-pebs    unavailable: " NOMODULE "\n"
		"kmod-step    unavailable: " NOMODULE "\n"
		"perf-bts     unavailable: " PARANOID "\n"
		"ptrace-step  available\n"
		"qemu-user    available\n"
		"auto         -> ptrace-step\n"
		"per-cpu      unavailable: " NOMODULE "\n"
		"\n"
		"yama         " YAMA1 "\n"
		"policy       " POLICY_OK "\n"
		"paranoid     " PARANOID "\n"
		"pti          " PTI "\n"
		"lockdown     ok: kernel lockdown is off\n"
		"module       " NOMODULE "\n");
	harness_cmd_free(&c);
}

TEST(info, ok_lines)
{
	struct harness_cmd c;
	const char *checks;

	fake_root_intel("0\n", "2\n", "Not affected\n", "[none] integrity confidentiality\n");
	fake_root_file("sys/kernel/ptrace_bts/abi_version", "2\n");
	EXPECT_EQ(btrace(&c, "info", NULL), 0);
	checks = strstr(c.out, "\n\n");
	ASSERT_TRUE(checks);
	EXPECT_STREQ(checks + 2,
		"yama         ok: /proc/sys/kernel/yama/ptrace_scope is 0 (classic ptrace "
		"permissions)\n"
		"policy       " POLICY_OK "\n"
		"paranoid     ok: /proc/sys/kernel/perf_event_paranoid is 2 (2 or less: "
		"user-mode branch sampling of one's own processes is allowed)\n"
		"pti          ok: PTI is off (meltdown: Not affected)\n"
		"lockdown     ok: kernel lockdown is off\n"
		"module       ok: the ptrace_bts module is loaded (ABI version 2)\n");
	harness_cmd_free(&c);
}

TEST(info, json)
{
	struct harness_cmd c;

	fake_root_intel("3\n", "3\n", "Mitigation: PTI\n", "none [integrity] confidentiality\n");
	fake_root_file("sys/kernel/ptrace_bts/abi_version", "3\n");
	EXPECT_EQ(btrace(&c, "info", "--json", NULL), 0);
	EXPECT_STREQ(c.out,
		"{\"sources\": ["
		"{\"name\": \"kmod-bts\", \"available\": false, \"why\": \"" YAMA3 "\"}, "
		"{\"name\": \"kmod-pebs\", \"available\": false, \"why\": \"" YAMA3 "\"}, "
		"{\"name\": \"kmod-step\", \"available\": false, \"why\": \"" YAMA3 "\"}, "
		"{\"name\": \"perf-bts\", \"available\": false, \"why\": \"" YAMA3 "\"}, "
		"{\"name\": \"ptrace-step\", \"available\": false, \"why\": \"" YAMA3 "\"}, "
		"{\"name\": \"qemu-user\", \"available\": false, \"why\": \"" YAMA3 "\"}"
		"], \"auto\": null, \"per-cpu\": {\"available\": false, \"why\": \"the "
		"ptrace_bts module speaks ABI version 3, libbts version 2: load the "
		"matching module\"}, \"checks\": ["
		"{\"name\": \"yama\", \"ok\": false, \"refuses\": [\"kmod-bts\", "
		"\"kmod-pebs\", \"kmod-step\", \"perf-bts\", \"ptrace-step\", "
		"\"qemu-user\"], \"attach_only\": false, \"line\": \"" YAMA3 "\"}, "
		"{\"name\": \"policy\", \"ok\": true, \"refuses\": [], \"attach_only\": false, "
		"\"line\": \"" POLICY_OK "\"}, "
		"{\"name\": \"paranoid\", \"ok\": false, \"refuses\": [\"perf-bts\"], "
		"\"attach_only\": false, \"line\": \"" PARANOID "\"}, "
		"{\"name\": \"pti\", \"ok\": false, \"refuses\": [\"kmod-bts\", \"kmod-pebs\"], "
		"\"attach_only\": false, \"line\": \"" PTI "\"}, "
		"{\"name\": \"lockdown\", \"ok\": true, \"refuses\": [], \"attach_only\": false, "
		"\"line\": \"ok: the kernel is locked down (integrity), and the ptrace_bts "
		"module is loaded\"}, "
		"{\"name\": \"module\", \"ok\": false, \"refuses\": [\"kmod-bts\", "
		"\"kmod-pebs\", \"kmod-step\"], \"attach_only\": false, \"line\": \"the "
		"ptrace_bts module speaks ABI version 3, libbts version 2: load the "
		"matching module\"}]}\n");
	harness_cmd_free(&c);
}

/* ------------------------------------------- the same line from record */

static char *out_path(void)
{
	return harness_path(harness_tmpdir(), "t.btr");
}

TEST(info, record_refused_by_yama_says_the_same_line)
{
	struct harness_cmd c;
	char *prog = PROG_PATH("cli-exit"), *btr = out_path();

	fake_root_intel("3\n", "2\n", "Not affected\n", "[none]\n");
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "--", prog, NULL), 125);
	expect_err(&c, "btrace: record: " YAMA3 "\n");
	EXPECT_NE(access(btr, F_OK), 0);
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "--source", "ptrace-step", "--", prog,
			 NULL), 125);
	expect_err(&c, "btrace: record: source ptrace-step is not available: " YAMA3 "\n");
	harness_cmd_free(&c);
	free(prog);
	free(btr);
}

/*
 * Attaching is refused by the kernel (EPERM: here because the test traces
 * the process already); with Yama at 1, that is the line btrace says.
 */
TEST(info, record_attach_refused_by_yama_1)
{
	struct harness_cmd c;
	char *btr = out_path(), pid[16];
	int status;
	pid_t child = fork();

	ASSERT_GE(child, 0);
	if (!child) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(waitpid(child, &status, 0), child);
	ASSERT_TRUE(WIFSTOPPED(status));
	fake_root_intel("1\n", "2\n", "Not affected\n", "[none]\n");
	snprintf(pid, sizeof(pid), "%d", (int)child);
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "-p", pid, NULL), 125);
	expect_err(&c, "btrace: record: " YAMA1 "\n");
	EXPECT_NE(access(btr, F_OK), 0);
	harness_cmd_free(&c);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	free(btr);
}

TEST(info, record_perf_bts_refusals)
{
	struct harness_cmd c;
	char *prog = PROG_PATH("cli-exit"), *btr = out_path();

	fake_root_intel("0\n", "3\n", "Not affected\n", "[none]\n");
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "--source", "perf-bts", "--", prog,
			 NULL), 125);
	expect_err(&c, "btrace: record: source perf-bts is not available: " PARANOID "\n");
	harness_cmd_free(&c);
	fake_root_file("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
	    "cpu family\t: 25\nmodel\t\t: 1\n\n");
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "--source", "perf-bts", "--", prog,
			 NULL), 125);
	expect_err(&c, "btrace: record: source perf-bts is not available: " AMD "\n");
	harness_cmd_free(&c);
	EXPECT_NE(access(btr, F_OK), 0);
	free(prog);
	free(btr);
}

/* On the real machine: record --source perf-bts says what info says. */
TEST(info, record_perf_bts_here_says_info_line)
{
	struct bts_source_info si[8];
	char *prog = PROG_PATH("cli-exit"), *btr = out_path(), want[600];
	char *argv[] = { BTRACE_PATH(), "record", "-o", btr, "--source", "perf-bts",
			 "--", prog, NULL };
	struct harness_cmd c;
	int n = bts_probe_sources(si, 8, sizeof(*si)), i;

	for (i = 0; i < n && si[i].source != PTBTS_SOURCE_PERF_BTS; i++)
		;
	ASSERT_LT(i, n);
	ASSERT_FALSE(si[i].available);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 125);
	snprintf(want, sizeof(want), "btrace: record: source perf-bts is not available: "
		 "%s\n", si[i].why);
	EXPECT_STREQ(c.err, want);
	harness_cmd_free(&c);
	free(argv[0]);
	free(prog);
	free(btr);
}

/* ------------------------------------------------ a real seccomp policy */

#define SECCOMP_LINE "a seccomp filter blocks ptrace and perf_event_open (Seccomp: 2 " \
	"in /proc/self/status, Operation not permitted): run btrace outside the " \
	"sandbox, or allow it (docker: --cap-add=SYS_PTRACE --security-opt " \
	"seccomp=unconfined)"

/*
 * btrace under a filter that fails ptrace and perf_event_open, as a
 * container profile does (the real /proc: Seccomp is 2).  LeakSanitizer
 * needs ptrace itself: off for these runs.
 */
static int under_seccomp(struct harness_cmd *c, char *cmd, char *arg1, char *arg2,
			 char *arg3, char *arg4)
{
	char *wrap = PROG_PATH("refusal-seccomp"), *bt = BTRACE_PATH();
	char *argv[] = { wrap, bt, cmd, arg1, arg2, arg3, arg4, NULL };
	const char *old = getenv("ASAN_OPTIONS");
	char *saved = old ? strdup(old) : NULL, opts[1024];
	int ret;

	snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", saved ? saved : "",
		 saved ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	ret = harness_run(argv, TIMEOUT, c);
	if (saved)
		setenv("ASAN_OPTIONS", saved, 1);
	else
		unsetenv("ASAN_OPTIONS");
	free(saved);
	free(wrap);
	free(bt);
	if (ret)
		FAIL("cannot run btrace under seccomp");
	return harness_exit_code(c);
}

TEST(info, seccomp_policy_refuses_in_one_line)
{
	char *prog = PROG_PATH("cli-exit"), *btr = out_path();
	struct harness_cmd c;

	EXPECT_EQ(under_seccomp(&c, "info", NULL, NULL, NULL, NULL), 0);
	EXPECT_TRUE(strstr(c.out, "\npolicy       " SECCOMP_LINE "\n"));
	EXPECT_TRUE(strstr(c.out, "\nptrace-step  unavailable: " SECCOMP_LINE "\n"));
	EXPECT_TRUE(strstr(c.out, "\nauto         -> none\n"));
	harness_cmd_free(&c);
	EXPECT_EQ(under_seccomp(&c, "record", "-o", btr, "--", prog), 125);
	expect_err(&c, "btrace: record: " SECCOMP_LINE "\n");
	EXPECT_NE(access(btr, F_OK), 0);
	harness_cmd_free(&c);
	free(prog);
	free(btr);
}
