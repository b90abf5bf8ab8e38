// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Branch sources: the table of those that drive a recording session, the
 * pick of one for a session, and which of them work on this machine.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sources/kmod/kmod.h"
#include "sources/perf-bts/perf_bts.h"
#include "sources/qemu-user/qemu_user.h"
#include "sources/refusal/refusal.h"
#include "sources/sources.h"
#include "util/opts.h"

/*
 * The sources that drive a recording session, in the order `auto` takes
 * them (fastest first); ptrace-step, which works wherever ptrace does,
 * last.  qemu-user, faster than ptrace-step but an emulation (QEMU's
 * CPU model, not the machine's), is never taken by auto.
 */
static const struct bts_source_ops *const table[] = {
	&bts_kmod_bts_ops,
	&bts_kmod_pebs_ops,
	&bts_kmod_step_ops,
	&bts_perf_bts_ops,
	&bts_ptrace_step_ops,
	&bts_qemu_user_ops,	/* only by name: emulated */
	NULL,
};

/* Fastest first: `auto` takes the first available. */
static const int order[] = {
	PTBTS_SOURCE_KMOD_BTS, PTBTS_SOURCE_KMOD_PEBS, PTBTS_SOURCE_KMOD_STEP,
	PTBTS_SOURCE_PERF_BTS, PTBTS_SOURCE_PTRACE_STEP, PTBTS_SOURCE_QEMU_USER,
};

/*
 * The kmod sources: the module's own answer, unless a refusal check (not
 * loaded, another ABI, lockdown, ptrace refused) explains it in the words
 * every command uses.
 */
static void probe_kmod(int source, struct bts_source_info *si)
{
	struct bts_refusal r;

	bts_kmod_probe(source, si);
	/* Where the module answers about PTI itself, its answer stands. */
	if (!si->available &&
	    bts_refusal_find(source, false, 1u << BTS_REFUSAL_PTI, &r))
		snprintf(si->why, sizeof(si->why), "%s", r.line);
}

/* ptrace-step works wherever ptrace does; refusal.c tries it. */
static bool ptrace_works(int source, char *why, size_t len)
{
	struct bts_refusal r;

	if (!bts_refusal_find(source, false, 0, &r))
		return true;
	snprintf(why, len, "%s", r.line);
	return false;
}

static void probe_one(int source, struct bts_source_info *si)
{
	si->source = source;
	si->available = false;
	si->why[0] = '\0';
	switch (source) {
	case PTBTS_SOURCE_KMOD_BTS:
	case PTBTS_SOURCE_KMOD_PEBS:
	case PTBTS_SOURCE_KMOD_STEP:
		probe_kmod(source, si);
		break;
	case PTBTS_SOURCE_PERF_BTS:
		bts_perf_probe(si);
		break;
	case PTBTS_SOURCE_PTRACE_STEP:
		si->available = ptrace_works(source, si->why, sizeof(si->why));
		break;
	case PTBTS_SOURCE_QEMU_USER:
		/* QEMU is traced as any program is. */
		si->available = ptrace_works(source, si->why, sizeof(si->why));
		if (si->available)
			bts_qemu_probe(si);
		break;
	}
}

int bts_probe_sources(struct bts_source_info *out, size_t n, size_t size)
{
	struct bts_source_info si;
	size_t i;

	if (out && n && !size)
		return bts_fail(BTS_E_INVAL, "source info: no room to fill");
	for (i = 0; i < ARRAY_SIZE(order) && out && i < n; i++) {
		probe_one(order[i], &si);
		BTS_OUT_FILL((char *)out + i * size, size, &si, "source info");
	}
	return (int)ARRAY_SIZE(order);
}

/*
 * The first source of the table (fastest first) that takes @want in
 * @mode; else why the one asked for cannot record.  ptrace-step, whose
 * working shows when the tracee is seized, is last and probes nothing.
 */
int bts_source_pick(int want, int mode, const struct bts_source_ops **ops)
{
	struct bts_source_info info[8];
	int i, n;

	for (i = 0; table[i]; i++) {
		n = table[i]->pick(want, mode);
		if (n > 0)
			*ops = table[i];
		if (n)
			return n;
	}
	n = bts_probe_sources(info, ARRAY_SIZE(info), sizeof(info[0]));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(info); i++)
		if (info[i].source == want)
			return bts_fail(BTS_E_NOSOURCE, "%s: %s", bts_source_name(want),
					info[i].available ? "cannot drive a recording yet"
							  : info[i].why);
	return bts_fail(BTS_E_INVAL, "unknown source %d", want);
}
