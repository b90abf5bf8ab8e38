// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hardware sources on the virtual CPU with BTS (scripts/vcpu: Debian's
 * QEMU with the patches of tests/vcpu).  Only "make test-vcpu" boots that CPU, and
 * tests/kernel/qemu-run runs these tests only there.  Here the CPU itself
 * stores each record in the tracer's pages: the records of a program whose
 * branches are known (kt_seq.S) must be exactly those branches.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define REC sizeof(struct ptbts_record)

static int read_int(const char *path)
{
	char line[64];

	if (kt_read_line(path, line, sizeof(line)))
		return -1;
	return atoi(line);
}

/* Linux's own detection: init_intel() and perf's Intel PMU driver. */
KT_GUARDED_TEST(vcpu, linux_sees_ds_bts_and_the_pmu)
{
	static const char *const flags[] = { "dts", "dtes64", "pdcm", "bts",
					     "pebs", "arch_perfmon" };
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!kt_cpuinfo_has(flags[i]))
			harness_fail(__FILE__, __LINE__, "no %s in /proc/cpuinfo",
				     flags[i]);
	EXPECT_FALSE(kt_cpuinfo_has("pti"));
	ASSERT_EQ(kt_read_line("/sys/bus/event_source/devices/cpu/caps/pmu_name",
			       name, sizeof(name)), 0);
	EXPECT_STREQ(name, "skylake");
	EXPECT_GT(read_int("/sys/bus/event_source/devices/intel_bts/type"), 0);
}

KT_GUARDED_TEST(vcpu, caps_offer_kmod_bts)
{
	struct ptbts_caps c;

	ASSERT_EQ(kt_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], (unsigned)PTBTS_OK);
	EXPECT_NE(c.sources & (1u << PTBTS_SOURCE_KMOD_BTS), 0u);
}

/* kt_seq_loop's exit_group: jnz (2 bytes), two movs (5 each), syscall. */
static uint64_t loop_exit_syscall(void)
{
	return KT_ADDR(kt_loop_jnz) + 2 + 5 + 5;
}

static int bts_start(struct kt_run *r, long iters, uint64_t size,
		     uint32_t mode)
{
	return kt_run_start_source(r, kt_seq_loop, iters, size, mode, 0,
				   PTBTS_SOURCE_KMOD_BTS);
}

/*
 * The CPU stores every record, the module only points it at the pages:
 * the loop's 29 branches exactly, then the exit_group syscall entering the
 * kernel (with an interrupt's entry wherever one arrived).
 */
KT_GUARDED_TEST(vcpu, kmod_bts_loop_records_exactly)
{
	static struct ptbts_record want[64], user[256];
	size_t n = kt_loop_expect(want, 64, 10, kt_loop_call, kt_loop_after,
				  kt_loop_jnz);
	const struct ptbts_record *got;
	size_t nrec, nuser, entries;
	struct kt_run r;
	int st;

	ASSERT_EQ(n, 29u);
	ASSERT_EQ(bts_start(&r, 10, 16 * KT_PAGE, PTBTS_MODE_RING), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.state, (unsigned)PTBTS_STATE_EXITED);
	EXPECT_EQ(r.st.source, (unsigned)PTBTS_SOURCE_KMOD_BTS);
	EXPECT_EQ(r.st.wraps, 0u);
	EXPECT_EQ(r.st.lost, 0u);
	got = kt_run_recs(&r);
	nrec = r.st.head / REC;
	ASSERT_LE(nrec, 256u);
	entries = kt_split_user(got, nrec, user, &nuser);
	ASSERT_NE(entries, ~(size_t)0);
	EXPECT_GE(entries, 1u);
	ASSERT_EQ(nuser, n);
	EXPECT_EQ(kt_records_diff(user, want, n), 0u);
	ASSERT_GE(nrec, 1u);
	EXPECT_EQ(got[nrec - 1].from, loop_exit_syscall());
	EXPECT_TRUE(kt_kernel_addr(got[nrec - 1].to));
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * The position of each of @got in @want, in order: how many of @want
 * were skipped, or ~0 when a record is not there (out of order, twice, or
 * foreign).
 */
static size_t skipped_in_order(const struct ptbts_record *got, size_t ngot,
			       const struct ptbts_record *want, size_t nwant)
{
	size_t i, j = 0;

	for (i = 0; i < ngot; i++, j++) {
		while (j < nwant && memcmp(&got[i], &want[j], sizeof(got[i])))
			j++;
		if (j == nwant) {
			fprintf(stderr, "record %zu {%#llx, %#llx} out of order\n",
				i, (unsigned long long)got[i].from,
				(unsigned long long)got[i].to);
			return ~(size_t)0;
		}
	}
	return nwant - ngot;
}

/*
 * BLOCK with a one-page buffer: a threshold PMI every few dozen records,
 * hundreds of them, and the thread waits for room each time.  Nothing is
 * lost: every user branch arrives, once and in order, with the entries
 * into the kernel from user mode between them (the threshold PMI's own
 * NMI among them, as the SDM says of interrupts), no marker at all, and
 * the exit_group entry last.
 */
static void block_under_pmis(bool migrate)
{
	const long iters = 3000;
	const uint64_t slots = KT_PAGE / REC;
	size_t cap = 4 * iters, n, nuser = 0, entries = 0, gaps = 0, skipped;
	struct ptbts_record *want = calloc(cap, sizeof(*want));
	struct ptbts_record *user = calloc(cap, sizeof(*user));
	uint64_t tail = 0, count, waits = 0, last_from = 0, last_to = 0;
	uint64_t lost_marked = 0, moves = 0, last_flags = 0;
	struct ptbts_status st;
	struct kt_run r;
	int status = 0, done = 0;

	ASSERT_TRUE(want != NULL && user != NULL);
	n = kt_loop_expect(want, cap, iters, kt_loop_call, kt_loop_after,
			   kt_loop_jnz);
	ASSERT_EQ(bts_start(&r, iters, KT_PAGE, PTBTS_MODE_BLOCK), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, r.pid, 0, 0), 0);
	while (!done) {
		long w = kt_wait(r.fd, r.pid, 1000000000ull, &st);

		if (w == -ETIMEDOUT)
			continue;
		ASSERT_EQ(w, 0);
		waits++;
		if (migrate) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(waits % 2, &set);
			ASSERT_EQ(sched_setaffinity(r.pid, sizeof(set), &set), 0);
			moves++;
		}
		count = kt_count(&st, KT_PAGE);
		ASSERT_LE(count - tail, slots);
		for (; tail < count; tail++) {
			const struct ptbts_record *rec =
				&kt_run_recs(&r)[tail % slots];

			if (PTBTS_KIND(rec->flags) == PTBTS_KIND_LOST)
				lost_marked += rec->to;
			else if (PTBTS_KIND(rec->flags) == PTBTS_KIND_GAP)
				gaps++;
			else if (kt_kernel_addr(rec->to) &&
				 !kt_kernel_addr(rec->from))
				entries++;
			else if (nuser < cap)
				user[nuser++] = *rec;
			last_from = rec->from;
			last_to = rec->to;
			last_flags = rec->flags;
		}
		ASSERT_EQ(kt_ack(r.fd, r.pid, tail), 0);
		if (st.state == PTBTS_STATE_STOPPED)
			ASSERT_EQ(waitpid(r.pid, &status, WNOHANG), 0);
		done = st.state == PTBTS_STATE_EXITED;
	}
	ASSERT_EQ(waitpid(r.pid, &status, 0), r.pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	skipped = skipped_in_order(user, nuser, want, n);
	fprintf(stderr, "%zu of %zu user branches, %zu entries, %llu lost, "
		"%zu gaps, %llu PMI wakeups, %llu moves\n", nuser, n, entries,
		(unsigned long long)st.lost, gaps, (unsigned long long)waits,
		(unsigned long long)moves);
	EXPECT_EQ(skipped, 0u);
	EXPECT_EQ(st.lost, 0u);
	EXPECT_EQ(lost_marked, 0u);
	EXPECT_EQ(gaps, 0u);
	EXPECT_GE(waits, n / slots);
	EXPECT_GE(entries, 1u);
	EXPECT_EQ(PTBTS_KIND(last_flags), (uint32_t)PTBTS_KIND_BRANCH);
	EXPECT_EQ(last_from, loop_exit_syscall());
	EXPECT_TRUE(kt_kernel_addr(last_to));
	kt_run_end(&r);
	free(want);
	free(user);
	EXPECT_EQ(kt_pinned(), 0);
}

KT_GUARDED_TEST(vcpu, kmod_bts_block_under_pmis_in_order_and_counted)
{
	block_under_pmis(false);
}

/* The same while the tracer moves the thread from vCPU to vCPU (taskset). */
KT_GUARDED_TEST(vcpu, kmod_bts_block_exact_across_migrations)
{
	block_under_pmis(true);
}

/*
 * A second kmod-bts thread is attached while the first one runs on the
 * other vCPU: that vCPU has BTS on for the module's own slice, which is
 * not perf's use of BTS (the attach is not refused for it).
 */
KT_GUARDED_TEST(vcpu, kmod_bts_second_thread_while_the_first_runs)
{
	struct kt_run a, b;
	cpu_set_t set;
	int st;

	ASSERT_EQ(bts_start(&a, 100000000, 16 * KT_PAGE, PTBTS_MODE_RING), 0);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	ASSERT_EQ(sched_setaffinity(a.pid, sizeof(set), &set), 0);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, a.pid, 0, 0), 0);
	/* It records on vCPU 1 by now: its records grow. */
	for (st = 0; st < 100; st++) {
		ASSERT_EQ(kt_status(a.fd, a.pid, &a.st), 0);
		if (a.st.head || a.st.wraps)
			break;
		usleep(10000);
	}
	EXPECT_TRUE(a.st.head || a.st.wraps);
	EXPECT_EQ(bts_start(&b, 10, 16 * KT_PAGE, PTBTS_MODE_RING), 0);
	st = kt_run_finish(&b);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	kt_run_end(&b);
	kill(a.pid, SIGKILL);
	EXPECT_EQ(waitpid(a.pid, &st, 0), a.pid);
	kt_run_end(&a);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * RING with a one-page buffer: the newest records, exactly, end with the
 * exit_group entry (with an interrupt's entry wherever one arrived).
 */
KT_GUARDED_TEST(vcpu, kmod_bts_ring_keeps_the_newest)
{
	static struct ptbts_record want[3000], newest[256], user[256];
	const uint64_t slots = KT_PAGE / REC;
	size_t n = kt_loop_expect(want, 3000, 1000, kt_loop_call,
				  kt_loop_after, kt_loop_jnz);
	size_t nuser, entries;
	uint64_t count, k;
	struct kt_run r;

	ASSERT_EQ(n, 2999u);
	ASSERT_EQ(bts_start(&r, 1000, KT_PAGE, PTBTS_MODE_RING), 0);
	kt_run_finish(&r);
	count = kt_count(&r.st, KT_PAGE);
	EXPECT_GT(count, (uint64_t)n);
	EXPECT_EQ(r.st.wraps, count / slots);
	EXPECT_EQ(r.st.lost, 0u);
	for (k = count - slots; k < count; k++)
		newest[k - (count - slots)] = kt_run_recs(&r)[k % slots];
	entries = kt_split_user(newest, slots, user, &nuser);
	ASSERT_NE(entries, ~(size_t)0);
	EXPECT_GE(entries, 1u);
	EXPECT_EQ(kt_records_diff(user, &want[n - nuser], nuser), 0u);
	EXPECT_EQ(newest[slots - 1].from, loop_exit_syscall());
	EXPECT_TRUE(kt_kernel_addr(newest[slots - 1].to));
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * Linux's own consumer of BTS: the intel_bts AUX PMU, user mode only, on
 * the same program.  Returns the number of records copied to @out, or -1.
 */
static long intel_bts_run(void (*fn)(long), long arg,
			  struct ptbts_record *out, size_t max)
{
	struct kt_intel_bts b;
	long n = -1;
	pid_t pid;

	pid = kt_seq_start(fn, arg);
	if (pid < 0)
		return -1;
	if (kt_intel_bts_open(&b, pid, -1)) {
		kt_intel_bts_close(&b);
		kt_reap(pid);
		return -1;
	}
	if (WIFEXITED(kt_seq_finish(pid)))
		n = (long)kt_intel_bts_read(&b, out, max);
	kt_intel_bts_close(&b);
	return n;
}

/*
 * Linux's intel_bts and kmod-bts on the same program, on the same CPU:
 * the same user branches, record for record, and the same exit into the
 * kernel.
 */
KT_GUARDED_TEST(vcpu, intel_bts_agrees_with_kmod_bts)
{
	static struct ptbts_record linux_recs[1024], linux_user[1024];
	static struct ptbts_record ours_user[1024];
	size_t nlinux_user, nours_user, nours;
	long nlinux = intel_bts_run(kt_seq_loop, 100, linux_recs, 1024);
	struct kt_run r;
	int st;

	ASSERT_GT(nlinux, 0);
	ASSERT_NE(kt_split_user(linux_recs, (size_t)nlinux, linux_user,
				&nlinux_user), ~(size_t)0);
	ASSERT_EQ(bts_start(&r, 100, 16 * KT_PAGE, PTBTS_MODE_RING), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	nours = r.st.head / REC;
	ASSERT_LE(nours, 1024u);
	ASSERT_NE(kt_split_user(kt_run_recs(&r), nours, ours_user,
				&nours_user), ~(size_t)0);
	EXPECT_EQ(nlinux_user, 299u);
	ASSERT_EQ(nours_user, nlinux_user);
	EXPECT_EQ(kt_records_diff(ours_user, linux_user, nours_user), 0u);
	ASSERT_GE(nours, 1u);
	EXPECT_EQ(kt_run_recs(&r)[nours - 1].from,
		  linux_recs[nlinux - 1].from);
	EXPECT_EQ(kt_run_recs(&r)[nours - 1].to, linux_recs[nlinux - 1].to);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
}

/*
 * The second boot, PTI on (vcpu-run): the CPU has BTS, but the vmap alias
 * of the tracer's pages is absent from the user page tables, so kmod-bts
 * refuses for PTI, as Linux's intel_bts does (it does not register).
 */
KT_GUARDED_TEST(vcpu_pti, kmod_bts_refused_as_intel_bts_is)
{
	struct ptbts_caps c;

	EXPECT_TRUE(kt_cpuinfo_has("pti"));
	EXPECT_TRUE(kt_cpuinfo_has("bts"));
	ASSERT_EQ(kt_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], (unsigned)PTBTS_UNAVAIL_PTI);
	EXPECT_EQ(c.percpu_unavail, (unsigned)PTBTS_UNAVAIL_PTI);
	EXPECT_EQ(c.sources & (1u << PTBTS_SOURCE_KMOD_BTS), 0u);
	EXPECT_NE(access("/sys/bus/event_source/devices/intel_bts", F_OK), 0);
}
