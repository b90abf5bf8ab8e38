// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hardware sources on the virtual CPU with BTS (scripts/vcpu: Debian's
 * QEMU with the patches of tests/vcpu).  Only "make test-vcpu" boots that CPU, and
 * tests/kernel/qemu-run runs these tests only there.  Here the CPU itself
 * stores each record in the tracer's pages: the records of a program whose
 * branches are known (kt_seq.S) must be exactly those branches.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_step.h"

#define REC sizeof(struct ptbts_record)

static int read_int(const char *path)
{
	char line[64];

	if (kt_read_line(path, line, sizeof(line)))
		return -1;
	return atoi(line);
}

static int get_caps(struct ptbts_caps *c)
{
	int fd = kt_open();
	long r;

	if (fd < 0)
		return -1;
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	r = kt_ioctl(fd, PTBTS_IOC_CAPS, c);
	close(fd);
	return (int)r;
}

static bool cpuinfo_has(const char *flag)
{
	char line[4096], word[64];
	FILE *f = fopen("/proc/cpuinfo", "r");
	bool found = false;

	if (!f)
		return false;
	snprintf(word, sizeof(word), " %s", flag);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = ' ';
		if (!strncmp(line, "flags", 5)) {
			strcat(word, " ");
			found = strstr(line, word) != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Linux's own detection: init_intel() and perf's Intel PMU driver. */
TEST(vcpu, linux_sees_ds_bts_and_the_pmu)
{
	static const char *const flags[] = { "dts", "dtes64", "pdcm", "bts",
					     "pebs", "arch_perfmon" };
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!cpuinfo_has(flags[i]))
			harness_fail(__FILE__, __LINE__, "no %s in /proc/cpuinfo",
				     flags[i]);
	EXPECT_FALSE(cpuinfo_has("pti"));
	ASSERT_EQ(kt_read_line("/sys/bus/event_source/devices/cpu/caps/pmu_name",
			       name, sizeof(name)), 0);
	EXPECT_STREQ(name, "skylake");
	EXPECT_GT(read_int("/sys/bus/event_source/devices/intel_bts/type"), 0);
}

TEST(vcpu, caps_offer_kmod_bts)
{
	struct ptbts_caps c;

	ASSERT_EQ(get_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_BTS], (unsigned)PTBTS_OK);
	EXPECT_NE(c.sources & (1u << PTBTS_SOURCE_KMOD_BTS), 0u);
}

/* The kernel half of x86-64 (canonical addresses with bit 63 set). */
static bool kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/*
 * BTS with BTS_OFF_OS records what user mode executes, entries into the
 * kernel included: the syscall instructions, and any interrupt or exception
 * that arrives in user mode ({user address -> kernel entry}).  The user
 * branches (both ends in user space) go to @user; returns how many records
 * were entries, or ~0 when one is neither.
 */
static size_t split(const struct ptbts_record *r, size_t n,
		    struct ptbts_record *user, size_t *nuser)
{
	size_t i, entries = 0;

	*nuser = 0;
	for (i = 0; i < n; i++) {
		if (!kernel_addr(r[i].from) && !kernel_addr(r[i].to))
			user[(*nuser)++] = r[i];
		else if (!kernel_addr(r[i].from) && kernel_addr(r[i].to))
			entries++;
		else
			return ~(size_t)0;
	}
	return entries;
}

/* kt_seq_loop's exit_group: jnz (2 bytes), two movs (5 each), syscall. */
static uint64_t loop_exit_syscall(void)
{
	return KT_ADDR(kt_loop_jnz) + 2 + 5 + 5;
}

static int bts_start(struct kt_run *r, long iters, uint64_t size,
		     uint32_t mode)
{
	struct ptbts_config c;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->size = size;
	r->pid = kt_seq_start(kt_seq_loop, iters);
	if (r->pid < 0)
		return r->pid;
	r->buf = kt_map(size);
	r->fd = kt_open();
	if (!r->buf || r->fd < 0)
		return -ENOMEM;
	c = kt_step_config(r->pid, r->buf, size, mode, 0);
	c.source = PTBTS_SOURCE_KMOD_BTS;
	return (int)kt_ioctl(r->fd, PTBTS_IOC_ATTACH, &c);
}

/*
 * The CPU stores every record, the module only points it at the pages:
 * the loop's 29 branches exactly, then the exit_group syscall entering the
 * kernel (with an interrupt's entry wherever one arrived).
 */
TEST(vcpu, kmod_bts_loop_records_exactly)
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
	entries = split(got, nrec, user, &nuser);
	ASSERT_NE(entries, ~(size_t)0);
	EXPECT_GE(entries, 1u);
	ASSERT_EQ(nuser, n);
	EXPECT_EQ(kt_records_diff(user, want, n), 0u);
	ASSERT_GE(nrec, 1u);
	EXPECT_EQ(got[nrec - 1].from, loop_exit_syscall());
	EXPECT_TRUE(kernel_addr(got[nrec - 1].to));
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
	const size_t page = KT_PAGE, data = 2 * page, aux = 64 * page;
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	void *base, *auxp;
	pid_t pid;
	long n;
	int fd, st;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = read_int("/sys/bus/event_source/devices/intel_bts/type");
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	pid = kt_seq_start(fn, arg);
	if (pid < 0)
		return -1;
	fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "perf_event_open(intel_bts): %s\n", strerror(errno));
		kt_reap(pid);
		return -1;
	}
	base = mmap(NULL, page + data, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -1;
	pc = base;
	pc->aux_offset = page + data;
	pc->aux_size = aux;
	auxp = mmap(NULL, aux, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)pc->aux_offset);
	if (auxp == MAP_FAILED) {
		fprintf(stderr, "mmap(aux): %s\n", strerror(errno));
		return -1;
	}
	st = kt_seq_finish(pid);
	if (!WIFEXITED(st))
		return -1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	n = (long)(pc->aux_head / REC);
	if ((size_t)n > max)
		n = (long)max;
	memcpy(out, auxp, (size_t)n * REC);
	munmap(auxp, aux);
	munmap(base, page + data);
	close(fd);
	return n;
}

/*
 * Linux's intel_bts and kmod-bts on the same program, on the same CPU:
 * the same user branches, record for record, and the same exit into the
 * kernel.
 */
TEST(vcpu, intel_bts_agrees_with_kmod_bts)
{
	static struct ptbts_record linux_recs[1024], linux_user[1024];
	static struct ptbts_record ours_user[1024];
	size_t nlinux_user, nours_user, nours;
	long nlinux = intel_bts_run(kt_seq_loop, 100, linux_recs, 1024);
	struct kt_run r;
	int st;

	ASSERT_GT(nlinux, 0);
	ASSERT_NE(split(linux_recs, (size_t)nlinux, linux_user, &nlinux_user),
		  ~(size_t)0);
	ASSERT_EQ(bts_start(&r, 100, 16 * KT_PAGE, PTBTS_MODE_RING), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	nours = r.st.head / REC;
	ASSERT_LE(nours, 1024u);
	ASSERT_NE(split(kt_run_recs(&r), nours, ours_user, &nours_user),
		  ~(size_t)0);
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
