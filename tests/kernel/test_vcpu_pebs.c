// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-pebs on the virtual CPU (tests/vcpu/0003: the PMU counts branch
 * events, PEBS records the overflows).  The program is kt_seq_loop(n),
 * whose user-mode branch instructions are known one by one:
 *
 *	[call, ret, jnz] * n (the last jnz not taken), then the exit_group
 *	syscall: 3n + 1 for BR_INST_RETIRED.ALL_BRANCHES, 3n - 1 near taken.
 *
 * kmod-pebs counts user mode only, from -period, and the CPU stores one
 * record at each overflow: record k is the branch number (k + 1) * period
 * of that sequence, so that its eventing IP and its RBX (the loop counter)
 * are known exactly, and there are branches / period records.  Each record
 * is decoded by libbts's bts_pebs_decode() (/pebs-decode), and each IP is
 * a branch of the BTS stream kmod-pebs recorded in its first region in
 * the same run.  None of this can pass on a CPU without PEBS: the module
 * refuses kmod-pebs there.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"
#include "kt_step.h"

#define REC		sizeof(struct ptbts_record)
#define BTS_SIZE	(64 * KT_PAGE)
#define NEAR_TAKEN	0x20c4ULL	/* BR_INST_RETIRED.NEAR_TAKEN */

/* kt_seq_loop's exit_group: jnz (2 bytes), two movs (5 each), syscall. */
static uint64_t exit_syscall(void)
{
	return KT_ADDR(kt_loop_jnz) + 2 + 5 + 5;
}

/*
 * Branch instruction @j (from 0) of kt_seq_loop(@n): its address and RBX
 * once it retired (for the near taken ones, @j never reaches 3n - 1).
 */
static void branch_at(long n, uint64_t j, uint64_t *ip, uint64_t *rbx)
{
	const uint64_t at[3] = { KT_ADDR(kt_loop_call), KT_ADDR(kt_leaf),
				 KT_ADDR(kt_loop_jnz) };
	uint64_t i = j / 3;

	if (i >= (uint64_t)n) {		/* the exit syscall */
		*ip = exit_syscall();
		*rbx = 0;
		return;
	}
	*ip = at[j % 3];
	*rbx = (uint64_t)n - i - (j % 3 == 2);
}

static uint64_t branches(uint64_t event, long n)
{
	return event == NEAR_TAKEN ? 3 * (uint64_t)n - 1 : 3 * (uint64_t)n + 1;
}

struct pebs_run {
	struct ptbts_status st;
	struct ptbts_record *bts;
	uint8_t *pebs;
	uint64_t pebs_size;
	uint32_t fmt, size;
	int status;
};

static int pebs_record(struct pebs_run *r, long n, uint64_t event,
		       uint64_t period, uint64_t pebs_size)
{
	struct ptbts_caps caps;
	struct ptbts_config c;
	pid_t pid;
	int fd;

	memset(r, 0, sizeof(*r));
	if (kt_caps(&caps) || caps.unavail[PTBTS_SOURCE_KMOD_PEBS] != PTBTS_OK)
		return -ENODEV;
	r->fmt = caps.pebs_format;
	r->size = caps.pebs_record_size;
	r->pebs_size = pebs_size;
	r->bts = kt_map(BTS_SIZE);
	r->pebs = kt_map(pebs_size);
	pid = kt_seq_start(kt_seq_loop, n);
	fd = kt_open();
	if (!r->bts || !r->pebs || pid < 0 || fd < 0)
		return -ENOMEM;
	c = kt_config(pid, r->bts, BTS_SIZE);
	c.source = PTBTS_SOURCE_KMOD_PEBS;
	c.buffer2 = (uintptr_t)r->pebs;
	c.buffer2_size = pebs_size;
	c.flags = PTBTS_CONFIG_PEBS_EVENT;
	c.pebs_event = event;
	c.pebs_period = period;
	if (kt_ioctl(fd, PTBTS_IOC_ATTACH, &c)) {
		kt_reap(pid);
		close(fd);
		return -EIO;
	}
	r->status = kt_seq_finish(pid);
	kt_status(fd, pid, &r->st);
	close(fd);
	return 0;
}

static void pebs_run_end(struct pebs_run *r)
{
	kt_unmap(r->bts, BTS_SIZE);
	kt_unmap(r->pebs, r->pebs_size);
}

/* Whether @ip is the 'from' of a record of the BTS stream. */
static bool on_bts_branch(const struct pebs_run *r, uint64_t ip)
{
	uint64_t i, n = r->st.head / REC;

	for (i = 0; i < n; i++)
		if (r->bts[i].from == ip && !PTBTS_KIND(r->bts[i].flags))
			return true;
	return false;
}

/*
 * The @nrec records from record @first on (the region is a ring of
 * whole records), through /pebs-decode: "IP EXACT APPLICABLE RBX SIZE"
 * lines.
 */
static char *pebs_decode(const struct pebs_run *r, uint64_t first,
			 uint64_t nrec)
{
	uint64_t nslots = r->pebs_size / r->size, k;
	size_t len = nrec * r->size;
	uint8_t *lin = malloc(len ? len : 1);
	char path[] = "/tmp/pebs.XXXXXX", fmt[16];
	char *argv[] = { "/pebs-decode", fmt, path, NULL };
	struct harness_cmd c;
	char *out = NULL;
	int fd = mkstemp(path);

	if (fd < 0 || !lin) {
		free(lin);
		return NULL;
	}
	for (k = 0; k < nrec; k++)
		memcpy(lin + k * r->size,
		       r->pebs + ((first + k) % nslots) * r->size, r->size);
	if (write(fd, lin, len) == (ssize_t)len) {
		snprintf(fmt, sizeof(fmt), "%u", r->fmt);
		if (!harness_run(argv, 60, &c)) {
			if (harness_exit_code(&c) == 0)
				out = strdup(c.out);
			else
				fprintf(stderr, "pebs-decode: %s%s", c.out, c.err);
			harness_cmd_free(&c);
		}
	}
	close(fd);
	unlink(path);
	free(lin);
	return out;
}

static void pebs_exact(long n, uint64_t event, uint64_t period,
		       uint64_t pebs_size)
{
	uint64_t want = branches(event, n) / period, k, bad = 0, total, nslots;
	unsigned long long ip, applicable, rbx;
	struct pebs_run r;
	char *out, *line;
	int exact, wd;
	size_t size;

	wd = kt_watchdog_set("0");
	ASSERT_GE(wd, 0);
	ASSERT_EQ(pebs_record(&r, n, event, period, pebs_size), 0);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	EXPECT_EQ(r.st.state, (unsigned)PTBTS_STATE_EXITED);
	EXPECT_EQ(r.st.source, (unsigned)PTBTS_SOURCE_KMOD_PEBS);
	EXPECT_EQ(r.st.lost, 0u);
	EXPECT_EQ(r.st.wraps, 0u);
	ASSERT_GT(r.size, 0u);
	EXPECT_EQ(r.st.head2 % r.size, 0u);
	/* branches / period records, exactly; a ring keeps the newest. */
	nslots = pebs_size / r.size;
	total = r.st.wraps2 * nslots + r.st.head2 / r.size;
	EXPECT_EQ(total, want);
	k = total > nslots ? total - nslots : 0;
	out = pebs_decode(&r, k, total - k);
	ASSERT_TRUE(out != NULL);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), k++) {
		uint64_t want_ip, want_rbx;

		ASSERT_EQ(sscanf(line, "%llx %d %llx %llx %zu", &ip, &exact,
				 &applicable, &rbx, &size), 5);
		branch_at(n, (k + 1) * period - 1, &want_ip, &want_rbx);
		/* Formats 0, 1: the IP after the branch; 4, 5: no registers. */
		if (size != r.size || applicable != 1 ||
		    (r.fmt >= 2 && (ip != want_ip || !exact ||
				    !on_bts_branch(&r, ip))) ||
		    (r.fmt < 4 && rbx != want_rbx)) {
			if (bad++ < 5)
				fprintf(stderr, "record %llu: ip %#llx rbx %llu "
					"applicable %#llx size %zu, want ip "
					"%#llx rbx %llu\n",
					(unsigned long long)k, ip, rbx,
					applicable, size,
					(unsigned long long)want_ip,
					(unsigned long long)want_rbx);
		}
	}
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(k, total);
	free(out);
	pebs_run_end(&r);
	if (wd)
		kt_watchdog_set("1");
}

/* PEBS format 3 (Skylake's), 200-byte records, once perf holds no counter. */
KT_GUARDED_TEST(vcpu, caps_offer_kmod_pebs)
{
	struct ptbts_caps c;
	int wd = kt_watchdog_set("0");

	ASSERT_GE(wd, 0);
	ASSERT_EQ(kt_caps(&c), 0);
	EXPECT_EQ(c.unavail[PTBTS_SOURCE_KMOD_PEBS], (unsigned)PTBTS_OK);
	EXPECT_NE(c.sources & (1u << PTBTS_SOURCE_KMOD_PEBS), 0u);
	EXPECT_EQ(c.pebs_format, 3u);
	EXPECT_EQ(c.pebs_record_size, 200u);
	if (wd)
		kt_watchdog_set("1");
}

/* The module's default event, every 7th branch: 428 records. */
KT_GUARDED_TEST(vcpu, kmod_pebs_all_branches_exact)
{
	pebs_exact(1000, PTBTS_PEBS_EVENT_BRANCHES, 7, 64 * KT_PAGE);
}

/* The default period, 1000: six records of 6001 branches. */
KT_GUARDED_TEST(vcpu, kmod_pebs_default_period_exact)
{
	pebs_exact(2000, PTBTS_PEBS_EVENT_BRANCHES, PTBTS_PEBS_PERIOD_DEFAULT,
		   4 * KT_PAGE);
}

/* Near taken branches only: every record on a BTS record's branch. */
KT_GUARDED_TEST(vcpu, kmod_pebs_near_taken_exact)
{
	pebs_exact(1000, NEAR_TAKEN, 5, 64 * KT_PAGE);
}

/*
 * Period 1 into a ring of 81 records: a record for every branch, eleven
 * laps, each ended by the PEBS threshold PMI; the newest 81 are exact.
 */
KT_GUARDED_TEST(vcpu, kmod_pebs_ring_under_threshold_pmis)
{
	pebs_exact(300, PTBTS_PEBS_EVENT_BRANCHES, 1, 4 * KT_PAGE);
}

/* A hardware event of perf's, counting this process's instructions. */
static int perf_hw_event(void)
{
	return kt_perf_counter(0, PERF_TYPE_HARDWARE,
			       PERF_COUNT_HW_INSTRUCTIONS);
}

/*
 * kmod-pebs holds counter 0 through the kernel's reservation, which perf
 * goes through before its first hardware event: while an attachment
 * lives, perf creates none (EBUSY), so that nothing else programs the
 * counter or drains the PEBS buffer.  Once the last one is released
 * (after its thread is gone: 10 s at most), perf has the counters back.
 */
KT_GUARDED_TEST(vcpu, kmod_pebs_keeps_perf_off_its_counter)
{
	int wd = kt_watchdog_set("0"), fd, err, ws, i;
	struct kt_run r;

	ASSERT_GE(wd, 0);
	ASSERT_EQ(kt_run_start_source(&r, kt_seq_loop, 100, 16 * KT_PAGE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_PEBS), 0);
	fd = perf_hw_event();
	err = errno;
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(err, EBUSY);
	if (fd >= 0)
		close(fd);
	fd = -1;
	ws = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	kt_run_end(&r);
	EXPECT_EQ(kt_pinned(), 0);
	for (i = 0; i < 1000 && fd < 0; i++) {
		fd = perf_hw_event();
		if (fd < 0)
			usleep(10000);
	}
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	if (wd)
		kt_watchdog_set("1");
}
