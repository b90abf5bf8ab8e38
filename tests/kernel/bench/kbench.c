// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kbench: the same workload recorded by btrace with ptrace-step and with
 * kmod-step, in the guest.  For each: the traced time against the untraced one, and the
 * syscalls btrace's recorder made, per MiB of records.  The syscalls are
 * counted by kbench itself, which seizes the recorder (the child of btrace
 * that traces the workload) once it is there and stops it at each syscall,
 * in a run of its own, so that the counting does not weigh on the timed
 * run.  Figures only: nothing is asserted.
 * Prints "PTBTS-BENCH ..." lines.
 *
 * On the virtual CPU with BTS ("make bench-vcpu" puts ptbts_bench_hw=1 on
 * the kernel's command line, which init passes on in the environment),
 * kmod-bts is measured too, in the same run, and the figures are given as
 * ratios between the sources: TCG runs the guest at a speed of its own,
 * and makes the CPU's BTS stores cost what helper calls cost, so only the
 * ratios and the syscalls per MiB mean anything there.  libbts does not
 * drive kmod-bts yet, so kbench is the tracer of kmod-bts itself, through
 * the module's device (BLOCK, a 4 MiB buffer, WAIT and ACK), and of
 * kmod-step the same way, so that those two compare like for like; the
 * syscalls are then the ones kbench makes.
 *
 * Usage: kbench [ITERATIONS]      (kbench --work N is the workload)
 */
#include <errno.h>
#include <stdbool.h>
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <dirent.h>

#include <linux/ptrace_bts.h>

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
static void child_exec(char **argv)
{
	int err = open(ERRLOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int null = open("/dev/null", O_WRONLY);

	if (err < 0 || null < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	execv(argv[0], argv);
	_exit(127);
}

/* The TracerPid of process @pid, or 0. */
static pid_t tracer_of(pid_t pid)
{
	char path[64], line[128];
	long tracer = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
			break;
	fclose(f);
	return (pid_t)tracer;
}

/* Whether process @pid runs "SELF --work" (the workload). */
static bool is_workload(pid_t pid)
{
	char path[64], cmd[64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(cmd, 1, sizeof(cmd) - 1, f);
	fclose(f);
	cmd[n] = 0;
	return n > sizeof(SELF) && !strcmp(cmd, SELF) &&
	       !strcmp(cmd + sizeof(SELF), "--work");
}

/*
 * btrace's recorder: the tracer of the workload once it runs (a child of
 * btrace, btrace/tracer-guard.c, not btrace itself); 0 when btrace @pid
 * ended first.
 */
static pid_t recorder_of(pid_t pid)
{
	struct dirent *d;
	pid_t rec = 0;
	siginfo_t si;
	DIR *proc;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (rec || waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) ||
		    si.si_pid)
			break;
		proc = opendir("/proc");
		if (!proc)
			return 0;
		while (!rec && (d = readdir(proc))) {
			pid_t p = (pid_t)atol(d->d_name);

			if (p > 0 && p != getpid() && is_workload(p))
				rec = tracer_of(p);
		}
		closedir(proc);
		if (!rec)
			usleep(200);
	}
	return rec;
}

/*
 * The syscalls of @rec, seized as it runs, until it ends.  Its signals
 * (the SIGCHLD of every stop of its own tracee) are passed on.
 */
static void count_until_exit(pid_t rec, struct counts *c)
{
	struct __ptrace_syscall_info info;
	int status;

	if (ptrace(PTRACE_SEIZE, rec, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_INTERRUPT, rec, 0, 0))
		return;
	while (waitpid(rec, &status, __WALL) == rec && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);

		if (sig == (SIGTRAP | 0x80)) {
			long r = ptrace(PTRACE_GET_SYSCALL_INFO, rec,
					sizeof(info), &info);

			if (r > 0 && info.op == PTRACE_SYSCALL_INFO_ENTRY)
				count(c, (long)info.entry.nr);
			sig = 0;
		} else if (status >> 16 == PTRACE_EVENT_STOP) {
			sig = 0;
		}
		ptrace(PTRACE_SYSCALL, rec, 0, (void *)(long)sig);
	}
}

/*
 * Runs argv (btrace); with @c, counting the syscalls of its recorder, the
 * process that traces, from the workload's exec on (the recorder's start
 * is not counted).  The wall time in ms.
 */
static double run(char **argv, struct counts *c)
{
	double start = now_ms();
	int status;
	pid_t pid = fork(), rec;

	if (pid < 0)
		return -1;
	if (!pid)
		child_exec(argv);
	if (c) {
		memset(c, 0, sizeof(*c));
		rec = recorder_of(pid);
		if (rec > 0)
			count_until_exit(rec, c);
	}
	waitpid(pid, &status, 0);
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
static double ptrace_spm, kmod_spm;	/* syscalls per MiB */

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
		kmod_spm = mib > 0 ? c.total / mib : 0;
	} else if (!getenv("BTS_STEP_MODE")) {
		ptrace_ms = ms;
		ptrace_recs = recs;
		ptrace_spm = mib > 0 ? c.total / mib : 0;
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

/* ------------------------------------------ kbench as the module's tracer */

#define DIRECT_SIZE	(4u << 20)

struct direct {
	double ms;
	uint64_t recs, calls;
};

static long direct_ioctl(struct direct *d, int fd, unsigned long cmd, void *arg)
{
	d->calls++;
	return ioctl(fd, cmd, arg);
}

/* work(@iters) in a child, recorded by the module's @source, consumed here. */
static int direct_run(uint32_t source, long iters, struct direct *d)
{
	const uint64_t nslots = DIRECT_SIZE / sizeof(struct ptbts_record);
	struct ptbts_config c = { .size = sizeof(c) };
	struct ptbts_status st;
	struct ptbts_ack a = { .size = sizeof(a) };
	void *buf = mmap(NULL, DIRECT_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/ptrace_bts", O_RDWR | O_CLOEXEC), status, sig;
	double start;
	pid_t pid;

	memset(d, 0, sizeof(*d));
	if (buf == MAP_FAILED || fd < 0)
		return -1;
	pid = fork();
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		work(iters);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	c.tid = (uint32_t)pid;
	c.source = source;
	c.mode = PTBTS_MODE_BLOCK;
	c.buffer = (uintptr_t)buf;
	c.buffer_size = DIRECT_SIZE;
	a.tid = (uint32_t)pid;
	start = now_ms();
	if (direct_ioctl(d, fd, PTBTS_IOC_ATTACH, &c) ||
	    ptrace(PTRACE_CONT, pid, 0, 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	d->calls++;
	for (;;) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		st.tid = (uint32_t)pid;
		st.timeout_ns = 1000000000ull;
		if (direct_ioctl(d, fd, PTBTS_IOC_WAIT, &st) && errno != ETIMEDOUT)
			break;
		a.tail = st.wraps * nslots + st.head / sizeof(struct ptbts_record);
		direct_ioctl(d, fd, PTBTS_IOC_ACK, &a);
		if (st.state == PTBTS_STATE_EXITED)
			break;
		if (st.state == PTBTS_STATE_STOPPED) {
			d->calls += 2;
			if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
				break;
			sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
		}
	}
	d->ms = now_ms() - start;
	d->recs = a.tail;
	waitpid(pid, &status, 0);
	close(fd);
	munmap(buf, DIRECT_SIZE);
	return 0;
}

static void direct_print(const char *label, const struct direct *d)
{
	double mib = d->recs * 24.0 / (1 << 20);

	printf("PTBTS-BENCH %-20s %9.0f ms, %8llu records, %9llu syscalls = "
	       "%9.0f per MiB of records (kbench as the tracer)\n", label,
	       d->ms, (unsigned long long)d->recs,
	       (unsigned long long)d->calls, mib > 0 ? d->calls / mib : 0);
	fflush(stdout);
}

static double per_s(uint64_t recs, double ms)
{
	return ms > 0 ? recs / (ms / 1000) : 0;
}

/*
 * kmod-bts against the two single-steppers, as ratios only: kmod-bts and
 * kmod-step each with kbench as the tracer, kmod-step and ptrace-step each
 * with btrace (above, on the same workload when @btrace); kmod-bts /
 * ptrace-step is the product of the two.
 */
static void bench_hw(const char *iters, bool btrace)
{
	struct direct b, k;
	double br, kr, pr, kbr;

	if (direct_run(PTBTS_SOURCE_KMOD_BTS, atol(iters), &b) ||
	    direct_run(PTBTS_SOURCE_KMOD_STEP, atol(iters), &k)) {
		printf("PTBTS-BENCH kmod-bts: could not record (%s)\n",
		       strerror(errno));
		return;
	}
	direct_print("kmod-bts (direct)", &b);
	direct_print("kmod-step (direct)", &k);
	br = per_s(b.recs, b.ms);
	kr = per_s(k.recs, k.ms);
	kbr = per_s(kmod_recs, kmod_ms);
	pr = per_s(ptrace_recs, ptrace_ms);
	if (!br || !kr) {
		printf("PTBTS-BENCH ratios: a source recorded nothing\n");
		return;
	}
	if (!btrace || !pr || !kbr) {
		printf("PTBTS-BENCH records/s ratio: kmod-bts / kmod-step %.1fx "
		       "(kbench as tracer)\n", br / kr);
		return;
	}
	printf("PTBTS-BENCH records/s ratios (same guest run): "
	       "kmod-bts / kmod-step %.1fx (kbench as tracer), "
	       "kmod-step / ptrace-step %.1fx (btrace), "
	       "so kmod-bts / ptrace-step %.1fx\n", br / kr, kbr / pr,
	       br / kr * kbr / pr);
	printf("PTBTS-BENCH tracer syscalls per MiB of records: "
	       "kmod-bts %.0f, kmod-step %.0f (kbench as tracer); "
	       "kmod-step %.0f, ptrace-step %.0f (btrace)\n",
	       b.recs ? b.calls / (b.recs * 24.0 / (1 << 20)) : 0,
	       k.recs ? k.calls / (k.recs * 24.0 / (1 << 20)) : 0,
	       kmod_spm, ptrace_spm);
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
	if (getenv("ptbts_bench_hw"))
		bench_hw(iters, true);
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
	if (getenv("ptbts_bench_hw"))
		bench_hw(big, false);
	return 0;
}
