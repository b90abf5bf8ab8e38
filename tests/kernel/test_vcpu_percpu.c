// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-CPU (kernel and user) mode on the virtual CPU with BTS: the CPU
 * stores every branch of everything that runs on the chosen vCPUs into
 * the module's buffers, which the session reads through its read-only
 * mappings.  A user loop of known branches (kt_seq.S) pinned to vCPU 1
 * must appear there exactly, among the kernel's branches; CPU hotplug
 * while recording leaves a GAP marker where the CPU's stream resumes; a
 * start that fails on one CPU leaves no buffer, no charge, no DS state.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

#define REC		sizeof(struct ptbts_record)
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define PARAMS		"/sys/module/ptrace_bts/parameters/"
/* Room for the loop among a few hundred thousand kernel branches. */
#define PC_BUF		(16ull << 20)
#define LOOP_ITERS	200

static bool kaddr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

static bool canonical(uint64_t a)
{
	return a < 0x0000800000000000ull || kaddr(a);
}

/* The @unavail of the last start. */
static uint32_t pc_unavail;

static long pc_start(int fd, uint64_t cpus, uint64_t size)
{
	uint64_t mask = cpus;
	struct ptbts_percpu_config c = {
		.size = sizeof(c), .mode = PTBTS_MODE_RING,
		.cpu_mask = (uintptr_t)&mask, .cpu_mask_size = 8,
		.buffer_size = size,
	};
	long r = kt_ioctl(fd, PTBTS_IOC_PERCPU_START, &c);

	pc_unavail = c.unavail;
	return r;
}

static long pc_status(int fd, unsigned int cpu, struct ptbts_percpu_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	return kt_ioctl(fd, PTBTS_IOC_PERCPU_STATUS, st);
}

/* kt_seq_loop(@iters) pinned to @cpu, stopped in its own SIGSTOP. */
static pid_t pinned_loop(int cpu, long iters)
{
	cpu_set_t set;
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(90);
		kt_seq_loop(iters);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		kt_reap(pid);
		return -1;
	}
	return pid;
}

/* Lets it run to its exit_group: its exit status. */
static int run_to_exit(pid_t pid)
{
	int st = -1;

	kill(pid, SIGCONT);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

/*
 * Records [@first, @last) of a CPU's buffer are well formed: a marker the
 * module writes (from 0, GAP or LOST), or a branch with canonical
 * addresses, the software half of its flags clear.  Counts the branches
 * with both ends in the kernel into @kern; returns the index + 1 of the
 * first bad one, 0 when none is.
 */
static size_t malformed(const struct ptbts_record *r, size_t first,
			size_t last, size_t *kern)
{
	size_t i;

	*kern = 0;
	for (i = first; i < last; i++) {
		uint32_t kind = PTBTS_KIND(r[i].flags);

		if (!r[i].from) {
			if (kind != PTBTS_KIND_GAP && kind != PTBTS_KIND_LOST)
				return i + 1;
			continue;
		}
		if (kind || r[i].flags >> 32 || !canonical(r[i].from) ||
		    !canonical(r[i].to))
			return i + 1;
		if (kaddr(r[i].from) && kaddr(r[i].to))
			(*kern)++;
	}
	return 0;
}

/*
 * The loop's records among [@first, @last): its user branches (both ends
 * in user space) from its first one on, interrupts interleaved, must be
 * kt_loop_expect()'s exactly, and its exit_group must enter the kernel
 * after them.  Returns the index after the exit's record, or 0 when not
 * found (printed).
 */
static size_t find_loop(const struct ptbts_record *r, size_t first,
			size_t last, long iters)
{
	static struct ptbts_record want[3 * LOOP_ITERS];
	uint64_t exit_sys = KT_ADDR(kt_loop_jnz) + 2 + 5 + 5;
	size_t n = kt_loop_expect(want, 3 * LOOP_ITERS, iters, kt_loop_call,
				  kt_loop_after, kt_loop_jnz);
	size_t i, k = 0;

	for (i = first; i < last; i++) {
		if (kaddr(r[i].from) || kaddr(r[i].to) || !r[i].from) {
			if (k == n && r[i].from == exit_sys && kaddr(r[i].to))
				return i + 1;
			continue;
		}
		if (k < n && !memcmp(&r[i], &want[k], REC)) {
			k++;
			continue;
		}
		if (k) {
			fprintf(stderr, "loop record %zu: {%#llx, %#llx} at %zu\n",
				k, (unsigned long long)r[i].from,
				(unsigned long long)r[i].to, i);
			return 0;
		}
	}
	fprintf(stderr, "%zu of the loop's %zu records found\n", k, n);
	return 0;
}

/* Everything the per-CPU tests must leave as they found it. */
struct baseline {
	long vmpin;
	long pages;
	int bad;
};

static void baseline_take(struct baseline *b)
{
	b->vmpin = kt_vmpin_kb();
	b->pages = kt_sysfs_long("percpu_pages");
	b->bad = kt_klog_bad();
}

static void baseline_check(const struct baseline *b)
{
	EXPECT_EQ(kt_vmpin_kb(), b->vmpin);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
	EXPECT_EQ(b->pages, 0);
	EXPECT_EQ(kt_klog_bad(), 0);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * vCPU 1 records; the loop runs there: its user branches exactly, with
 * the kernel's branches around them, every record well formed, read
 * through the read-only mapping of CPU 1's buffer.
 */
KT_GUARDED_TEST(vcpu, percpu_records_kernel_and_user_branches)
{
	struct ptbts_percpu_status st;
	struct baseline b;
	const struct ptbts_record *r;
	size_t n, kern, bad, end;
	pid_t pid;
	int fd, status;

	baseline_take(&b);
	fd = kt_open();
	ASSERT_GE(fd, 0);
	pid = pinned_loop(1, LOOP_ITERS);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(pc_start(fd, 2, PC_BUF), 0);
	status = run_to_exit(pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(pc_status(fd, 1, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_RECORDING);
	EXPECT_EQ(st.wraps, 0u);
	EXPECT_EQ(st.lost, 0u);
	EXPECT_EQ(st.offset, PC_BUF);
	ASSERT_EQ(pc_status(fd, 0, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_OFF);
	/* Stopped before it is read: the reading would be recorded over it. */
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL), 0);
	ASSERT_EQ(pc_status(fd, 1, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_STOPPED);
	EXPECT_EQ(st.wraps, 0u);
	r = mmap(NULL, PC_BUF, PROT_READ, MAP_SHARED, fd, (off_t)st.offset);
	ASSERT_TRUE(r != MAP_FAILED);
	n = st.head / REC;
	fprintf(stderr, "CPU 1: %zu records\n", n);
	bad = malformed(r, 0, n, &kern);
	if (bad)
		fprintf(stderr, "record %zu: {%#llx, %#llx, %#llx}\n", bad - 1,
			(unsigned long long)r[bad - 1].from,
			(unsigned long long)r[bad - 1].to,
			(unsigned long long)r[bad - 1].flags);
	EXPECT_EQ(bad, 0u);
	EXPECT_GT(kern, 1000u);
	end = find_loop(r, 0, n, LOOP_ITERS);
	EXPECT_GT(end, 0u);
	/* The kernel ran on after the exit: its branches follow. */
	EXPECT_LT(end, n);
	EXPECT_TRUE(end < n && kaddr(r[end].from));
	EXPECT_EQ(mprotect((void *)r, PC_BUF, PROT_READ | PROT_WRITE), -1);
	munmap((void *)r, PC_BUF);
	close(fd);
	baseline_check(&b);
}

/*
 * vCPU 1 goes offline while it records and comes back: LEFT with its
 * records up to then, RECORDING again after, its stream going on after a
 * GAP marker (the CPU was reset in between: the records on either side
 * do not follow each other), and a loop run there afterwards is recorded
 * after the marker.  vCPU 0 records throughout.
 */
KT_GUARDED_TEST(vcpu, percpu_hotplug_while_recording)
{
	struct ptbts_percpu_status st, left;
	const struct ptbts_record *r;
	struct baseline b;
	size_t kern, gap, n;
	pid_t pid;
	int fd, status;

	baseline_take(&b);
	fd = kt_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pc_start(fd, 3, PC_BUF), 0);
	ASSERT_EQ(kt_write_file(CPU1_ONLINE, "0"), 0);
	ASSERT_EQ(pc_status(fd, 1, &left), 0);
	EXPECT_EQ(left.state, (unsigned)PTBTS_PERCPU_LEFT);
	EXPECT_EQ(left.wraps, 0u);
	EXPECT_GT(left.head, 0u);
	ASSERT_EQ(pc_status(fd, 0, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_RECORDING);
	/* Offline, nothing more is stored. */
	ASSERT_EQ(pc_status(fd, 1, &st), 0);
	EXPECT_EQ(st.head, left.head);
	ASSERT_EQ(kt_write_file(CPU1_ONLINE, "1"), 0);
	pid = pinned_loop(1, LOOP_ITERS);
	ASSERT_GT(pid, 0);
	status = run_to_exit(pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(pc_status(fd, 1, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_RECORDING);
	ASSERT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL), 0);
	ASSERT_EQ(pc_status(fd, 1, &st), 0);
	EXPECT_EQ(st.wraps, 0u);
	ASSERT_GT(st.head, left.head);
	r = mmap(NULL, PC_BUF, PROT_READ, MAP_SHARED, fd, (off_t)st.offset);
	ASSERT_TRUE(r != MAP_FAILED);
	n = st.head / REC;
	gap = left.head / REC;
	fprintf(stderr, "CPU 1: %zu records before it left, %zu after\n", gap,
		n - gap);
	EXPECT_EQ(malformed(r, 0, n, &kern), 0u);
	EXPECT_EQ(r[gap].from, 0u);
	EXPECT_EQ(PTBTS_KIND(r[gap].flags), (unsigned)PTBTS_KIND_GAP);
	/* The CPU's last branches before it left: the kernel's. */
	EXPECT_TRUE(gap > 0 && kaddr(r[gap - 1].from));
	EXPECT_GT(find_loop(r, gap + 1, n, LOOP_ITERS), 0u);
	munmap((void *)r, PC_BUF);
	ASSERT_EQ(pc_status(fd, 0, &st), 0);
	EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_STOPPED);
	EXPECT_GT(st.head + st.wraps, 0u);
	close(fd);
	kt_write_file(CPU1_ONLINE, "1");
	baseline_check(&b);
}

static int knob(const char *name, int val)
{
	char path[128], s[16];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(s, sizeof(s), "%d", val);
	return kt_write_file(path, s);
}

/*
 * Someone else's BTS on vCPU 1: Linux's intel_bts, a CPU-wide event with
 * its AUX area mapped (the event runs only then).  Returns the event's fd
 * with its two mappings in @base and @aux, or -1.
 */
#define AUX_SIZE	(64 * KT_PAGE)
static int intel_bts_on_cpu(int cpu, void **base, void **aux)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	char line[32];
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (kt_read_line("/sys/bus/event_source/devices/intel_bts/type", line,
			 sizeof(line)))
		return -1;
	a.type = (uint32_t)atoi(line);
	/*
	 * Enabled once the AUX area exists: a CPU-wide event that starts
	 * without one stays stopped until its CPU's context is switched.
	 */
	a.disabled = 1;
	/*
	 * User branches only: with the kernel's too, the unread AUX area
	 * fills within milliseconds and perf stops the event (BTS off).
	 */
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
	if (fd < 0)
		return -1;
	*base = mmap(NULL, 3 * KT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*base == MAP_FAILED) {
		close(fd);
		return -1;
	}
	pc = *base;
	pc->aux_offset = 3 * KT_PAGE;
	pc->aux_size = AUX_SIZE;
	*aux = mmap(NULL, AUX_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)pc->aux_offset);
	if (*aux == MAP_FAILED) {
		munmap(*base, 3 * KT_PAGE);
		close(fd);
		return -1;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		munmap(*aux, AUX_SIZE);
		munmap(*base, 3 * KT_PAGE);
		close(fd);
		return -1;
	}
	return fd;
}

/* A start on both vCPUs records on both: the machine is as it was. */
static void both_record(void)
{
	struct ptbts_percpu_status st;
	int fd = kt_open();
	unsigned int cpu;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(pc_start(fd, 3, 64 * KT_PAGE), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(pc_status(fd, cpu, &st), 0);
		EXPECT_EQ(st.state, (unsigned)PTBTS_PERCPU_RECORDING);
		EXPECT_GT(st.head + st.wraps, 0u);
	}
	close(fd);
}

/* The calling thread (and the children it starts) on @cpu only. */
static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin_self(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A kmod-bts thread on vCPU @cpu records the loop's user branches exactly:
 * the DS area and DEBUGCTL there are as the module needs them.
 */
static void kmod_bts_exact_on(int cpu)
{
	static struct ptbts_record want[64], user[256];
	size_t n = kt_loop_expect(want, 64, 10, kt_loop_call, kt_loop_after,
				  kt_loop_jnz);
	const struct ptbts_record *got;
	size_t i, nrec, nuser = 0;
	struct kt_run r;
	int st;

	ASSERT_EQ(pin_self(cpu), 0);
	ASSERT_EQ(kt_run_start_source(&r, kt_seq_loop, 10, 16 * KT_PAGE,
				      PTBTS_MODE_RING, 0, PTBTS_SOURCE_KMOD_BTS), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	got = kt_run_recs(&r);
	nrec = r.st.head / REC;
	ASSERT_LE(nrec, 256u);
	for (i = 0; i < nrec; i++)
		if (!kaddr(got[i].from) && !kaddr(got[i].to))
			user[nuser++] = got[i];
	ASSERT_EQ(nuser, n);
	EXPECT_EQ(kt_records_diff(user, want, n), 0u);
	kt_run_end(&r);
}

/*
 * A start that fails on vCPU 1 leaves nothing: once in the allocation
 * (the test build's percpu_fail_alloc), once in vCPU 1's own start after
 * vCPU 0 started (percpu_busy: someone else's BTS), both on the CPU's real
 * MSRs: no buffer, no charge, no mode; vCPU 0's DS area and DEBUGCTL are
 * given back (a kmod-bts thread there then records exactly).  With
 * Linux's intel_bts really on vCPU 1 the start is refused before anything
 * is allocated (PTBTS_UNAVAIL_PERF_BUSY), and perf's event records on.
 */
KT_GUARDED_TEST(vcpu, percpu_failed_start_leaves_nothing)
{
	struct ptbts_percpu_status st;
	struct baseline b;
	void *base, *aux;
	pid_t pid;
	int fd, pfd, status;

	ASSERT_EQ(system("rmmod ptrace_bts && insmod /ptrace_bts-test.ko"), 0);
	baseline_take(&b);
	fd = kt_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(knob("percpu_fail_alloc", 1), 0);
	EXPECT_EQ(pc_start(fd, 3, PC_BUF), -ENOMEM);
	ASSERT_EQ(knob("percpu_fail_alloc", -1), 0);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
	EXPECT_EQ(kt_vmpin_kb(), b.vmpin);
	EXPECT_EQ(pc_status(fd, 0, &st), -ENODEV);

	ASSERT_EQ(knob("percpu_busy", 1), 0);
	EXPECT_EQ(pc_start(fd, 3, PC_BUF), -EBUSY);
	EXPECT_EQ(pc_unavail, (unsigned)PTBTS_OK);
	ASSERT_EQ(knob("percpu_busy", -1), 0);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
	EXPECT_EQ(kt_vmpin_kb(), b.vmpin);
	EXPECT_EQ(pc_status(fd, 0, &st), -ENODEV);
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_PERCPU_STOP, NULL), -ENODEV);
	kmod_bts_exact_on(0);
	unpin_self();

	pfd = intel_bts_on_cpu(1, &base, &aux);
	ASSERT_GE(pfd, 0);
	EXPECT_EQ(pc_start(fd, 3, PC_BUF), -EOPNOTSUPP);
	EXPECT_EQ(pc_unavail, (unsigned)PTBTS_UNAVAIL_PERF_BUSY);
	EXPECT_EQ(kt_sysfs_long("percpu_pages"), 0);
	EXPECT_EQ(kt_vmpin_kb(), b.vmpin);
	pid = pinned_loop(1, LOOP_ITERS);	/* something for perf to record */
	ASSERT_GT(pid, 0);
	status = run_to_exit(pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_GE(((struct perf_event_mmap_page *)base)->aux_head,
		  3 * LOOP_ITERS * REC);
	munmap(aux, AUX_SIZE);
	munmap(base, 3 * KT_PAGE);
	close(pfd);
	close(fd);
	both_record();
	EXPECT_EQ(system("rmmod ptrace_bts && insmod /ptrace_bts.ko"), 0);
	baseline_check(&b);
}
