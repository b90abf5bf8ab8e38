// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace selftest: every branch source that works here records the same
 * workloads, and each is compared, record for record, with ptrace-step
 * (which works wherever ptrace does and decodes instructions itself).
 * One report, to paste into a bug report.
 */
#include <stdio.h>

#include <bts.h>

#include "../btrace.h"
#include "../options.h"
#include "selftest.h"

#define MAX_SOURCES 16
#define PTRACE_SOURCE PTBTS_SOURCE_PTRACE_STEP

static const struct command_help selftest_help = {
	.name = "selftest",
	.usage = { "" },
	.summary = "Records a fixed set of workloads with every branch source that\n"
		   "works on this machine and compares them with ptrace-step, record\n"
		   "for record; prints one report to paste into a bug report.",
	.details =
	"The workloads run in btrace's own code, in a child it forks and attaches\n"
	"to: 'branches' (calls, returns, a loop, a switch, recursion) and\n"
	"'signal' (a signal handler); qemu-user, which runs programs from their\n"
	"files, is not run.  Each record from the call of the workload\n"
	"to its exit is compared; signal and sigreturn records, which only the\n"
	"software sources (kmod-step, ptrace-step) write, are left out of the\n"
	"comparison and counted.  The hardware sources need the ptrace_bts module\n"
	"and CAP_PERFMON (kmod-bts, kmod-pebs), or perf (perf-bts): run it as\n"
	"root with the module loaded to check them all (and for kmod-pebs, with\n"
	"the NMI watchdog off: echo 0 > /proc/sys/kernel/nmi_watchdog).\n"
	"kmod-pebs samples near taken branches (BR_INST_RETIRED.NEAR_TAKEN) every\n"
	"7: besides its records, its samples are checked against its own\n"
	"branch records, from the attach on: sample k at branch (k + 1) * 7 - 1,\n"
	"branches / 7 of them, none lost.\n"
	"\n"
	"Output: the machine (cpu, microcode, cpu-flags, perf-caps, pmu, perf,\n"
	"kernel, module, hw-verified), then per source 'NAME  available' or\n"
	"'NAME  not run: WHY', then per workload and source\n"
	"  WORKLOAD  NAME  agrees (N records)\n"
	"  WORKLOAD  NAME  differs at record I of N (M): {FROM, TO, FLAGS} where\n"
	"                  ptrace-step has {FROM, TO, FLAGS}\n"
	"  WORKLOAD  NAME  failed: WHY\n"
	"  WORKLOAD  kmod-pebs  PEBS N samples, one every 7 of B branches\n"
	"  WORKLOAD  kmod-pebs  PEBS sample K of N at IP where branch J is {FROM, TO}\n"
	"  WORKLOAD  kmod-pebs  PEBS N samples (L lost) of B branches, want W\n"
	"and last 'result  all agree (M comparisons)', 'result  N of M comparisons\n"
	"failed' or 'result  nothing to compare: ...'.\n"
	"\n"
	"Exit status: 0 when every source that ran agrees; 1 otherwise; 2 for a\n"
	"bad command line.\n",
};

/* The sources that record here, ptrace-step first; their count. */
static int sources(int *src)
{
	struct bts_source_info info[MAX_SOURCES];
	int n = bts_probe_sources(info, MAX_SOURCES, sizeof(*info)), i, k = 1;

	if (n < 0) {
		error_bts(n, "selftest: cannot probe the branch sources");
		return -1;
	}
	src[0] = PTRACE_SOURCE;
	for (i = 0; i < n && i < MAX_SOURCES; i++) {
		const char *name = bts_source_name(info[i].source);

		/* QEMU runs a program from its file, not a fork of ours. */
		if (info[i].source == PTBTS_SOURCE_QEMU_USER)
			info[i] = (struct bts_source_info){
				.source = info[i].source,
				.why = "runs programs from their files, not a fork of btrace",
			};
		if (info[i].available)
			printf("%-11s available\n", name);
		else
			printf("%-11s not run: %s\n", name, info[i].why);
		if (info[i].available && info[i].source != PTRACE_SOURCE)
			src[k++] = info[i].source;
	}
	return k;
}

/* Adds the workload's comparisons to *@total, those that failed to *@failed. */
static void run_workload(const struct selftest_workload *w, const int *src,
			 int nsrc, int *failed, int *total)
{
	struct selftest_trace ref, got;
	int i;

	if (selftest_record(w, src[0], &ref)) {
		printf("%-10s %-12s failed: %s\n", w->name, bts_source_name(src[0]),
		       ref.err);
		selftest_trace_free(&ref);
		*failed += nsrc;
		*total += nsrc;
		return;
	}
	printf("%-10s %-12s %zu records, %zu signal and sigreturn (the reference)\n",
	       w->name, bts_source_name(src[0]), ref.n, ref.async);
	for (i = 1; i < nsrc; i++) {
		const char *name = bts_source_name(src[i]);

		if (selftest_record(w, src[i], &got)) {
			printf("%-10s %-12s failed: %s\n", w->name, name, got.err);
			(*failed)++;
		} else {
			*failed += selftest_compare(stdout, w->name, name,
						    bts_source_name(src[0]),
						    &got, &ref);
		}
		/* kmod-pebs's samples: a comparison of their own. */
		if (src[i] == PTBTS_SOURCE_KMOD_PEBS && !got.err[0]) {
			*failed += selftest_check_pebs(stdout, w->name, &got,
						       SELFTEST_PEBS_PERIOD);
			(*total)++;
		}
		selftest_trace_free(&got);
	}
	selftest_trace_free(&ref);
	*total += nsrc - 1;
}

int cmd_selftest(int argc, char **argv)
{
	const struct option opts[] = { OPT_END() };
	int first = parse_options(argc, argv, &selftest_help, opts, 0);
	int src[MAX_SOURCES], nsrc, failed = 0, total = 0;
	size_t i;

	if (first == PARSE_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (first != argc) {
		error("selftest: takes no arguments (see 'btrace selftest --help')");
		return EXIT_USAGE;
	}
	printf("btrace selftest, libbts %u.%u.%u\n", bts_version() >> 16,
	       (bts_version() >> 8) & 0xff, bts_version() & 0xff);
	selftest_machine(stdout);
	nsrc = sources(src);
	if (nsrc < 0)
		return EXIT_FAILED;
	for (i = 0; i < selftest_nworkloads; i++)
		run_workload(&selftest_workloads[i], src, nsrc, &failed, &total);
	return selftest_result(stdout, failed, total);
}
