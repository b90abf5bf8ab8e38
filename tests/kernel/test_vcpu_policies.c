// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-bts's overflow policies and slices on the virtual CPU, under real
 * PMIs and real scheduling:
 *
 *  - STOP counts exactly what it lost.  The CPU stores, from user mode,
 *    the program's known branches, its exit_group entry, and one entry for
 *    each interrupt or exception that arrives in user mode; the last two
 *    are counted by perf for the tracee alone (HW_INTERRUPTS.RECEIVED,
 *    which the virtual CPU's PMU counts, and page faults), so the number
 *    of records the CPU produced is known, and what the buffer did not
 *    take must be exactly STATUS's lost;
 *  - two traced processes pinned to one vCPU, switched against each other
 *    by the scheduler every few milliseconds, each get exactly their own
 *    stream (the loops differ in length, so a record in the wrong stream,
 *    or one missing, shows); and the same for two threads of one process,
 *    which share an address space and the code they run.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define REC		sizeof(struct ptbts_record)
#define HW_INTERRUPTS	0x01cbULL	/* HW_INTERRUPTS.RECEIVED */

static bool kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/* kt_seq_loop's exit_group: jnz (2 bytes), two movs (5 each), syscall. */
static uint64_t exit_syscall(void)
{
	return KT_ADDR(kt_loop_jnz) + 2 + 5 + 5;
}

static uint64_t count_read(int fd)
{
	uint64_t v = ~0ULL;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = ~0ULL;
	close(fd);
	return v;
}

KT_GUARDED_TEST(vcpu, kmod_bts_stop_counts_exactly_what_was_lost)
{
	const long iters = 1000;
	const uint64_t slots = KT_PAGE / REC;
	static struct ptbts_record want[3 * 1000];
	size_t n = kt_loop_expect(want, 3 * 1000, iters, kt_loop_call,
				  kt_loop_after, kt_loop_jnz);
	uint64_t i, nuser = 0, produced, irqs, faults;
	const struct ptbts_record *got;
	struct kt_run r;
	int irq_fd, pf_fd, st;

	ASSERT_EQ(n, 2999u);
	ASSERT_EQ(kt_run_start_source(&r, kt_seq_loop, iters, KT_PAGE,
				      PTBTS_MODE_STOP, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	irq_fd = kt_perf_counter(r.pid, PERF_TYPE_RAW, HW_INTERRUPTS);
	pf_fd = kt_perf_counter(r.pid, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	ASSERT_GE(irq_fd, 0);
	ASSERT_GE(pf_fd, 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	irqs = count_read(irq_fd);
	faults = count_read(pf_fd);
	ASSERT_NE(irqs, ~0ULL);
	ASSERT_NE(faults, ~0ULL);
	/* The branches, the exit_group entry, an entry per interrupt. */
	produced = n + 1 + irqs + faults;
	fprintf(stderr, "%llu records produced (%llu interrupts, %llu faults), "
		"%llu lost\n", (unsigned long long)produced,
		(unsigned long long)irqs, (unsigned long long)faults,
		(unsigned long long)r.st.lost);
	ASSERT_EQ(kt_count(&r.st, KT_PAGE), slots);
	got = kt_run_recs(&r);
	for (i = 0; i < slots; i++) {
		EXPECT_EQ(PTBTS_KIND(got[i].flags), 0u);
		if (!kernel_addr(got[i].from) && !kernel_addr(got[i].to)) {
			EXPECT_EQ(kt_records_diff(&got[i], &want[nuser], 1), 0u);
			nuser++;
		} else {
			EXPECT_TRUE(!kernel_addr(got[i].from) &&
				    kernel_addr(got[i].to));
		}
	}
	EXPECT_EQ(r.st.lost, produced - slots);
	kt_run_end(&r);
}

/* The tracer's side of two runs at once: each to its exit. */
struct pair {
	pid_t pid[2];
	int status[2];
	long switches[2];	/* involuntary context switches */
};

static int pair_finish(struct pair *p)
{
	int left = 2, st, i;
	struct rusage ru;
	pid_t w;

	for (i = 0; i < 2; i++)
		if (ptrace(PTRACE_CONT, p->pid[i], 0, 0))
			return -1;
	while (left) {
		int sig = 0;

		w = wait4(-1, &st, __WALL, &ru);
		if (w < 0)
			return -1;
		i = w == p->pid[1];
		if (w != p->pid[0] && w != p->pid[1])
			continue;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			p->status[i] = st;
			p->switches[i] = ru.ru_nivcsw;
			left--;
			continue;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGSTOP &&
		    WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st);
		ptrace(PTRACE_CONT, w, 0, sig);
	}
	return 0;
}

/*
 * Runs both to their exit, switched against each other, and reads their
 * STATUS into @r.
 */
static void pair_run(struct pair *p, struct kt_run r[2])
{
	int i;

	ASSERT_EQ(pair_finish(p), 0);
	fprintf(stderr, "involuntary switches: %ld and %ld\n", p->switches[0],
		p->switches[1]);
	/* The scheduler did switch them against each other. */
	EXPECT_GT(p->switches[0] + p->switches[1], 2);
	for (i = 0; i < 2; i++) {
		EXPECT_TRUE(WIFEXITED(p->status[i]) &&
			    !WEXITSTATUS(p->status[i]));
		ASSERT_EQ(kt_status(r[i].fd, r[i].pid, &r[i].st), 0);
		EXPECT_EQ(r[i].st.state, (unsigned)PTBTS_STATE_EXITED);
	}
}

/*
 * The user records of one stream are exactly @want's @n, and it ends
 * with the entry of the syscall at @exit_from.
 */
static void stream_is(const struct kt_run *r, const struct ptbts_record *want,
		      size_t n, uint64_t exit_from)
{
	struct ptbts_record *user = calloc(n, sizeof(*user));
	const struct ptbts_record *got = kt_run_recs(r);
	uint64_t i, count = r->st.head / REC;
	size_t nuser = 0;

	ASSERT_TRUE(user != NULL);
	EXPECT_EQ(r->st.wraps, 0u);
	EXPECT_EQ(r->st.lost, 0u);
	for (i = 0; i < count; i++) {
		EXPECT_EQ(PTBTS_KIND(got[i].flags), 0u);
		if (!kernel_addr(got[i].from) && !kernel_addr(got[i].to)) {
			if (nuser < n)
				user[nuser] = got[i];
			nuser++;
		} else if (kernel_addr(got[i].from) || !kernel_addr(got[i].to)) {
			harness_fail(__FILE__, __LINE__, "record %llu {%#llx, "
				     "%#llx} is neither a user branch nor an "
				     "entry", (unsigned long long)i,
				     (unsigned long long)got[i].from,
				     (unsigned long long)got[i].to);
		}
	}
	ASSERT_EQ(nuser, n);
	EXPECT_EQ(kt_records_diff(user, want, n), 0u);
	ASSERT_GE(count, 1u);
	EXPECT_EQ(got[count - 1].from, exit_from);
	free(user);
}

/* The user records of one stream, exactly kt_seq_loop(@iters)'s. */
static void stream_exact(const struct kt_run *r, long iters)
{
	size_t cap = 3 * (size_t)iters, n;
	struct ptbts_record *want = calloc(cap, sizeof(*want));

	ASSERT_TRUE(want != NULL);
	n = kt_loop_expect(want, cap, iters, kt_loop_call, kt_loop_after,
			   kt_loop_jnz);
	stream_is(r, want, n, exit_syscall());
	free(want);
}

KT_GUARDED_TEST(vcpu, kmod_bts_two_threads_on_one_vcpu_exact_and_separate)
{
	static const long iters[2] = { 40000, 60000 };
	const uint64_t size = 2048 * KT_PAGE;
	struct kt_run r[2];
	struct pair p;
	cpu_set_t one;
	int i;

	CPU_ZERO(&one);
	CPU_SET(1, &one);
	memset(&p, 0, sizeof(p));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(kt_run_start_source(&r[i], kt_seq_loop, iters[i], size,
					      PTBTS_MODE_RING, 0,
					      PTBTS_SOURCE_KMOD_BTS), 0);
		ASSERT_EQ(sched_setaffinity(r[i].pid, sizeof(one), &one), 0);
		p.pid[i] = r[i].pid;
	}
	pair_run(&p, r);
	for (i = 0; i < 2; i++) {
		stream_exact(&r[i], iters[i]);
		kt_run_end(&r[i]);
	}
}

/* A kmod-bts attachment of thread @tid, in a ptrace stop. */
static int attach_thread(struct kt_run *r, pid_t tid, uint64_t size)
{
	struct ptbts_config c;

	memset(r, 0, sizeof(*r));
	r->pid = tid;
	r->size = size;
	r->buf = kt_map(size);
	r->fd = kt_open();
	if (!r->buf || r->fd < 0)
		return -ENOMEM;
	c = kt_step_config(tid, r->buf, size, PTBTS_MODE_RING, 0);
	c.source = PTBTS_SOURCE_KMOD_BTS;
	return (int)kt_ioctl(r->fd, PTBTS_IOC_ATTACH, &c);
}

#define TWO_A	40000L
#define TWO_B	60000L

static void two_threads(long unused)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));

	(void)unused;
	kt_seq_two(TWO_A, TWO_B, stack + sizeof(stack));
}

/*
 * Two threads of one process pinned to one vCPU, each attached: the
 * caller's thread at its clone event, the new one at its first stop.
 * Each stream holds exactly its own thread's loop.
 */
KT_GUARDED_TEST(vcpu, kmod_bts_two_threads_of_one_process_on_one_vcpu)
{
	const uint64_t size = 2048 * KT_PAGE;
	size_t cap = 3 * TWO_B + 1, n;
	struct ptbts_record *want = calloc(cap, sizeof(*want));
	unsigned long tid = 0;
	struct kt_run r[2];
	struct pair p;
	cpu_set_t one;
	pid_t pid;
	int st, i;

	ASSERT_TRUE(want != NULL);
	memset(&p, 0, sizeof(p));
	pid = kt_seq_start(two_threads, 0);
	ASSERT_GT(pid, 0);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ASSERT_EQ(sched_setaffinity(pid, sizeof(one), &one), 0);
	ASSERT_EQ(ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACECLONE), 0);
	ASSERT_EQ(ptrace(PTRACE_CONT, pid, 0, 0), 0);
	ASSERT_EQ(waitpid(pid, &st, __WALL), pid);
	ASSERT_TRUE(WIFSTOPPED(st));
	ASSERT_EQ(st >> 8, SIGTRAP | (PTRACE_EVENT_CLONE << 8));
	ASSERT_EQ(ptrace(PTRACE_GETEVENTMSG, pid, 0, &tid), 0);
	ASSERT_EQ(waitpid((pid_t)tid, &st, __WALL), (pid_t)tid);
	ASSERT_TRUE(WIFSTOPPED(st));
	ASSERT_EQ(attach_thread(&r[0], pid, size), 0);
	ASSERT_EQ(attach_thread(&r[1], (pid_t)tid, size), 0);
	p.pid[0] = pid;
	p.pid[1] = (pid_t)tid;
	pair_run(&p, r);
	/* The caller's thread: its jz is not taken, so the loop only. */
	n = kt_loop_expect(want, cap, TWO_A, kt_two_a_call, kt_two_a_after,
			   kt_two_a_jnz);
	stream_is(&r[0], want, n, KT_ADDR(kt_two_a_exit));
	/* The new thread: its taken jz, then its loop. */
	want[0] = kt_rec(KT_ADDR(kt_two_jz), KT_ADDR(kt_two_b), 0);
	n = 1 + kt_loop_expect(want + 1, cap - 1, TWO_B, kt_two_b_call,
			       kt_two_b_after, kt_two_b_jnz);
	stream_is(&r[1], want, n, KT_ADDR(kt_two_b_exit));
	for (i = 0; i < 2; i++)
		kt_run_end(&r[i]);
	free(want);
	EXPECT_EQ(kt_pinned(), 0);
}
