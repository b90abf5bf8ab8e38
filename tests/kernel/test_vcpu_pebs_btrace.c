// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `btrace record --source kmod-pebs` on the virtual CPU: the samples reach
 * the trace file, `btrace dump --pebs` shows them, and each is where the
 * same run's branch records say it must be.  static-oracle (a static
 * program without libc) is recorded; its trace holds every user branch the
 * CPU's BTS stored, and kmod-pebs counts user mode only, from the first
 * instruction the trace holds:
 *
 *  - BR_INST_RETIRED.NEAR_TAKEN counts the near taken branches, which are
 *    the BTS stream's branch records (the entries into the kernel, far
 *    transfers, are dropped by libbts and not counted): sample k is the
 *    branch record number (k + 1) * period - 1, at its 'from';
 *  - BR_INST_RETIRED.ALL_BRANCHES counts every branch instruction that
 *    retired, taken or not, syscalls included: the instruction history
 *    (`dump --insns`) holds them, each with a class other than "other";
 *    sample k is branch instruction number (k + 1) * period - 1.
 *
 * Either way there are branches / period samples, exactly.  The NMI
 * watchdog is a perf event on the PMU, which makes the module refuse
 * kmod-pebs: the tests turn it off (and back on), since the guest boots
 * as a user's machine does, with it on, and the refusal it causes is a
 * test of its own.  These run on both PEBS formats the virtual CPU is
 * booted with (vcpu-run: 3, and 4, adaptive, without registers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_hw.h"

#define RUN_TIMEOUT	240

struct addrs {
	unsigned long long *v;
	size_t n;
};

static void addrs_add(struct addrs *a, unsigned long long x)
{
	a->v = harness_grow(a->v, a->n, sizeof(*a->v));
	a->v[a->n++] = x;
}

/* static-oracle recorded by kmod-pebs into @file, with @opts (NULL-ended). */
static void record(const char *file, const char *const *opts)
{
	const char *args[16] = { "record", "--source", "kmod-pebs", "-o", file };
	char *prog = PROG_PATH("static-oracle");
	struct harness_cmd c;
	size_t n = 5;
	int code;

	while (*opts)
		args[n++] = *opts++;
	args[n++] = "--";
	args[n++] = prog;
	args[n] = NULL;
	code = harness_btrace_argv(&c, RUN_TIMEOUT, args);
	if (code)
		FAIL("btrace record --source kmod-pebs: exit %d: %s", code, c.err);
	EXPECT_STREQ(c.out, "static-oracle ok\n");
	EXPECT_TRUE(strstr(c.err, " 0 lost (kmod-pebs)") != NULL);
	harness_cmd_free(&c);
	free(prog);
}

/* The branch records' 'from', from `dump --raw`. */
static struct addrs branch_froms(const char *file)
{
	struct addrs a = { 0 };
	unsigned long long from, to;
	struct harness_cmd c;
	char *line, *save = NULL;

	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "dump", "--raw", file, NULL), 0);
	for (line = strtok_r(c.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "0x%llx 0x%llx", &from, &to) == 2)
			addrs_add(&a, from);
	harness_cmd_free(&c);
	return a;
}

/* The branch instructions' addresses, from `dump --insns --json`. */
static struct addrs branch_insns(const char *file)
{
	struct addrs a = { 0 };
	struct harness_cmd c;
	char *line, *save = NULL, *ip;

	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "dump", "--insns", "--json",
				 file, NULL), 0);
	for (line = strtok_r(c.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		ip = strstr(line, "\"ip\":\"0x");
		if (ip && strstr(line, "\"class\":") &&
		    !strstr(line, "\"class\":\"other\""))
			addrs_add(&a, strtoull(ip + 8, NULL, 16));
	}
	harness_cmd_free(&c);
	return a;
}

/*
 * `dump --pebs`: its first line must be @header; the samples' IPs (each
 * line "TID N 0xIP ...", N counting from 0) into the result.
 */
static struct addrs samples(const char *file, const char *header)
{
	struct addrs a = { 0 };
	unsigned long long ip, n;
	struct harness_cmd c;
	char *line, *save = NULL;
	int tid;

	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "dump", "--pebs", file, NULL), 0);
	/* Its first two lines, for the log. */
	line = strchr(c.out, '\n');
	line = line ? strchr(line + 1, '\n') : NULL;
	fprintf(stderr, "%.*s\n", line ? (int)(line - c.out) : (int)c.out_len, c.out);
	line = strtok_r(c.out, "\n", &save);
	EXPECT_STREQ(line ? line : "", header);
	while ((line = strtok_r(NULL, "\n", &save))) {
		ASSERT_EQ(sscanf(line, "%d %llu 0x%llx", &tid, &n, &ip), 3);
		EXPECT_EQ(n, (unsigned long long)a.n);
		addrs_add(&a, ip);
	}
	harness_cmd_free(&c);
	return a;
}

/* Sample k at branch (k + 1) * @period - 1 of @br, and no other sample. */
static void at_every_period(const struct addrs *s, const struct addrs *br,
			    unsigned long long period)
{
	size_t k, bad = 0;

	EXPECT_GT(br->n, (size_t)1000);
	EXPECT_EQ(s->n, br->n / period);
	for (k = 0; k < s->n && (k + 1) * period <= br->n; k++) {
		if (s->v[k] == br->v[(k + 1) * period - 1])
			continue;
		if (bad++ < 5)
			fprintf(stderr, "sample %zu: ip %#llx, want %#llx\n", k,
				s->v[k], br->v[(k + 1) * period - 1]);
	}
	EXPECT_EQ(bad, (size_t)0);
}

static unsigned int pebs_format(void)
{
	struct ptbts_caps c;

	if (kt_caps(&c))
		FAIL("capabilities");
	return c.pebs_format;
}

KT_GUARDED_TEST(vcpu, kmod_pebs_record_near_taken_on_the_bts_stream)
{
	char *file = harness_path(harness_tmpdir(), "near.btr"), header[128];
	struct addrs s, br;
	int wd = kt_watchdog_set("0");

	ASSERT_GE(wd, 0);
	record(file, (const char *[]){ "--pebs-event", "near-taken",
				       "--pebs-period", "7", NULL });
	br = branch_froms(file);
	snprintf(header, sizeof(header), "# pebs: %zu records, 0 lost; event "
		 "0x20c4 every 7 events, format %u", br.n / 7, pebs_format());
	s = samples(file, header);
	at_every_period(&s, &br, 7);
	free(s.v);
	free(br.v);
	free(file);
	if (wd)
		kt_watchdog_set("1");
}

KT_GUARDED_TEST(vcpu, kmod_pebs_record_all_branches_on_the_history)
{
	char *file = harness_path(harness_tmpdir(), "all.btr"), header[128];
	struct addrs s, br;
	struct harness_cmd c;
	int wd = kt_watchdog_set("0");

	ASSERT_GE(wd, 0);
	record(file, (const char *[]){ "--pebs-period", "97", NULL });
	br = branch_insns(file);
	snprintf(header, sizeof(header), "# pebs: %zu records, 0 lost; event "
		 "0xc4 every 97 events, format %u", br.n / 97, pebs_format());
	s = samples(file, header);
	at_every_period(&s, &br, 97);
	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "stats", file, NULL), 0);
	snprintf(header, sizeof(header), "\n    pebs          %zu\n", br.n / 97);
	EXPECT_TRUE(strstr(c.out, header) != NULL);
	harness_cmd_free(&c);
	free(s.v);
	free(br.v);
	free(file);
	if (wd)
		kt_watchdog_set("1");
}

/* With the NMI watchdog on, perf holds the counters: refused, no file. */
KT_GUARDED_TEST(vcpu, kmod_pebs_record_refused_while_the_watchdog_counts)
{
	char *file = harness_path(harness_tmpdir(), "wd.btr");
	char *prog = PROG_PATH("static-oracle");
	struct harness_cmd c;
	int wd = kt_watchdog_set("1");

	ASSERT_GE(wd, 0);
	EXPECT_EQ(harness_btrace(&c, RUN_TIMEOUT, "record", "--source", "kmod-pebs",
				 "-o", file, "--", prog, NULL), 125);
	EXPECT_STREQ(c.err, "btrace: record: source kmod-pebs is not available: "
		     "perf is using BTS or the PMU on a CPU\n");
	EXPECT_NE(access(file, F_OK), 0);
	harness_cmd_free(&c);
	if (!wd)
		kt_watchdog_set("0");
	free(prog);
	free(file);
}
