// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kbench: the same workload recorded by btrace with ptrace-step and with
 * kmod-step, in the guest.  For each: the traced time against the untraced one, and the
 * syscalls btrace made, per MiB of records.  The syscalls are counted by
 * kbench itself as btrace's tracer (PTRACE_SYSCALL; the workload is
 * btrace's tracee, not ours), in a run of its own, so that the counting
 * does not weigh on the timed run.  Figures only: nothing is asserted.
 * Prints "PTBTS-BENCH ..." lines.
 *
 * Usage: kbench [ITERATIONS]      (kbench --work N is the workload)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BTRACE	"/btrace"
#define SELF	"/kbench"
#define TRACE	"/tmp/kbench.btr"
#define ERRLOG	"/tmp/kbench.err"

/* ---------------------------------------------------------- the workload */

static volatile long sink;

static __attribute__((noinline)) long leaf(long x)
{
	return x & 1 ? x * 3 + 1 : x / 2;
}

static void work(long n)
{
	long i, x = 27;

	for (i = 0; i < n; i++) {
		x = leaf(x);
		if (x == 1)
			x = 27 + i % 7;
	}
	sink = x;
}

/* ------------------------------------------------------------- running */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct counts {
	uint64_t total, ptrace, wait, ioctl, poll, read_write, other;
};

static void count(struct counts *c, long nr)
{
	c->total++;
	switch (nr) {
	case SYS_ptrace:
		c->ptrace++;
		break;
	case SYS_wait4:
	case SYS_waitid:
		c->wait++;
		break;
	case SYS_ioctl:
		c->ioctl++;
		break;
	case SYS_poll:
	case SYS_ppoll:
		c->poll++;
		break;
	case SYS_read:
	case SYS_write:
	case SYS_pread64:
	case SYS_pwrite64:
	case SYS_process_vm_readv:
		c->read_write++;
		break;
	default:
		c->other++;
	}
}

/* In the child: stderr to ERRLOG, stdout to /dev/null, then exec. */
static void child_exec(char **argv, int traced)
{
	int err = open(ERRLOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int null = open("/dev/null", O_WRONLY);

	if (err < 0 || null < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (traced) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(126);
		raise(SIGSTOP);
	}
	execv(argv[0], argv);
	_exit(127);
}

/* Runs argv; with @c, counting its syscalls.  The wall time in ms. */
static double run(char **argv, struct counts *c)
{
	struct __ptrace_syscall_info info;
	double start = now_ms();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		child_exec(argv, c != NULL);
	if (!c) {
		waitpid(pid, &status, 0);
		return now_ms() - start;
	}
	memset(c, 0, sizeof(*c));
	waitpid(pid, &status, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	ptrace(PTRACE_SYSCALL, pid, 0, 0);
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);

		if (sig == (SIGTRAP | 0x80)) {
			long r = ptrace(PTRACE_GET_SYSCALL_INFO, pid,
					sizeof(info), &info);

			if (r > 0 && info.op == PTRACE_SYSCALL_INFO_ENTRY)
				count(c, (long)info.entry.nr);
			sig = 0;
		} else if (sig == SIGTRAP || sig == SIGSTOP) {
			sig = 0;
		}
		ptrace(PTRACE_SYSCALL, pid, 0, (void *)(long)sig);
	}
	return now_ms() - start;
}

/* The records btrace's summary line reports, or 0. */
static uint64_t records_recorded(void)
{
	char line[512];
	unsigned long long th, n = 0;
	FILE *f = fopen(ERRLOG, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "recorded ");

		if (p && sscanf(p, "recorded %llu thread%*[s,] %llu records",
				&th, &n) == 2)
			break;
	}
	fclose(f);
	return n;
}

static double ptrace_ms, kmod_ms;
static uint64_t ptrace_recs, kmod_recs;

static void bench_source(const char *label, const char *source, const char *iters,
			 double base)
{
	char *argv[] = { BTRACE, "record", "--source", (char *)source, "-o", TRACE,
			 "--", SELF, "--work", (char *)iters, NULL };
	struct counts c;
	double ms = run(argv, NULL), mib;
	uint64_t recs = records_recorded();

	run(argv, &c);
	mib = recs * 24.0 / (1 << 20);
	if (!strcmp(source, "kmod-step")) {
		kmod_ms = ms;
		kmod_recs = recs;
	} else if (!getenv("BTS_STEP_MODE")) {
		ptrace_ms = ms;
		ptrace_recs = recs;
	}
	printf("PTBTS-BENCH %-20s %9.0f ms (%6.1fx untraced), %8llu records, "
	       "%9llu syscalls = %9.0f per MiB of records "
	       "(ptrace %llu, wait %llu, ioctl %llu, poll %llu, read/write %llu, "
	       "other %llu)\n", label, ms, ms / base, (unsigned long long)recs,
	       (unsigned long long)c.total, mib > 0 ? c.total / mib : 0,
	       (unsigned long long)c.ptrace, (unsigned long long)c.wait,
	       (unsigned long long)c.ioctl, (unsigned long long)c.poll,
	       (unsigned long long)c.read_write, (unsigned long long)c.other);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *iters = argc > 1 ? argv[1] : "3000";
	char *self[] = { SELF, "--work", (char *)iters, NULL };
	char big[32];
	double base;

	if (argc == 3 && !strcmp(argv[1], "--work")) {
		work(atol(argv[2]));
		return 0;
	}
	base = run(self, NULL);
	printf("PTBTS-BENCH workload: %s iterations, %.1f ms untraced\n", iters, base);
	fflush(stdout);
	if (base <= 0)
		base = 1;
	bench_source("ptrace-step", "ptrace-step", iters, base);
	bench_source("kmod-step", "kmod-step", iters, base);
	if (kmod_ms > 0)
		printf("PTBTS-BENCH traced time ptrace-step / kmod-step: %.1f\n",
		       ptrace_ms / kmod_ms);
	/*
	 * The same in records (taken branches) per second, against ptrace-step
	 * as it is now (branch stops, direct jumps and calls run through,
	 * tracer and program on one CPU), whose target is 10x.
	 */
	if (kmod_ms > 0 && ptrace_ms > 0 && ptrace_recs && kmod_recs) {
		double pr = ptrace_recs / (ptrace_ms / 1000), kr = kmod_recs / (kmod_ms / 1000);

		printf("PTBTS-BENCH records/s: ptrace-step %.0f, kmod-step %.0f; "
		       "kmod-step / ptrace-step: %.1fx (target: at least 10x)\n",
		       pr, kr, kr / pr);
	}
	/*
	 * kmod-step alone on a workload 30 times larger: past the fixed cost
	 * of starting btrace, its syscalls per MiB are the wakeups (one per
	 * threshold, half the 4 MiB buffer) and their ioctls.
	 */
	snprintf(big, sizeof(big), "%ld", atol(iters) * 30);
	self[2] = big;
	base = run(self, NULL);
	printf("PTBTS-BENCH workload: %s iterations, %.1f ms untraced\n", big, base);
	bench_source("kmod-step", "kmod-step", big, base > 0 ? base : 1);
	return 0;
}
