// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdicts of btrace selftest's report: a source's records against the
 * reference's, and the result line with the exit status it stands for.
 * Pure functions of the records, so that a test can make a source
 * disagree (tests/unit/test_selftest_report.c).
 */
#include <string.h>

#include "../btrace.h"
#include "selftest.h"

static void print_rec(FILE *f, const struct ptbts_record *r, size_t i, size_t n)
{
	if (i < n)
		fprintf(f, "{0x%llx, 0x%llx, 0x%llx}", (unsigned long long)r[i].from,
			(unsigned long long)r[i].to, (unsigned long long)r[i].flags);
	else
		fprintf(f, "{the end}");
}

int selftest_compare(FILE *f, const char *work, const char *name,
		     const char *ref_name, const struct selftest_trace *got,
		     const struct selftest_trace *ref)
{
	size_t i, n = got->n < ref->n ? got->n : ref->n;

	for (i = 0; i < n; i++)
		if (memcmp(&got->rec[i], &ref->rec[i], sizeof(got->rec[i])))
			break;
	if (i == n && got->n == ref->n) {
		fprintf(f, "%-10s %-12s agrees (%zu records)\n", work, name, got->n);
		return 0;
	}
	fprintf(f, "%-10s %-12s differs at record %zu of %zu (%zu): ", work, name,
		i, got->n, ref->n);
	print_rec(f, got->rec, i, got->n);
	fprintf(f, " where %s has ", ref_name);
	print_rec(f, ref->rec, i, ref->n);
	fprintf(f, "\n");
	return 1;
}

int selftest_result(FILE *f, int failed, int total)
{
	if (failed)
		fprintf(f, "result      %d of %d comparisons failed\n", failed, total);
	else if (!total)
		fprintf(f, "result      nothing to compare: ptrace-step is the only "
			"source here\n");
	else
		fprintf(f, "result      all agree (%d comparisons)\n", total);
	return failed ? EXIT_FAILED : 0;
}

int selftest_check_pebs(FILE *f, const char *work,
			const struct selftest_trace *t, uint64_t period)
{
	size_t want = t->nall / period, k, at;
	uint64_t ip;

	for (k = 0; k < t->nsamples && (k + 1) * period <= t->nall; k++) {
		at = (k + 1) * period - 1;
		ip = t->exact ? t->all[at].from : t->all[at].to;
		if (t->samples[k] == ip)
			continue;
		fprintf(f, "%-10s %-12s PEBS sample %zu of %zu at 0x%llx where "
			"branch %zu is {0x%llx, 0x%llx}\n", work, "kmod-pebs", k,
			t->nsamples, (unsigned long long)t->samples[k], at,
			(unsigned long long)t->all[at].from,
			(unsigned long long)t->all[at].to);
		return 1;
	}
	if (t->nsamples != want || t->lost_samples) {
		fprintf(f, "%-10s %-12s PEBS %zu samples (%llu lost) of %zu branches, "
			"want %zu\n", work, "kmod-pebs", t->nsamples,
			(unsigned long long)t->lost_samples, t->nall, want);
		return 1;
	}
	fprintf(f, "%-10s %-12s PEBS %zu samples, one every %llu of %zu branches\n",
		work, "kmod-pebs", t->nsamples, (unsigned long long)period, t->nall);
	return 0;
}
