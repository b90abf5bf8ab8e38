// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Branch sources: the table of those that drive a recording session, their
 * names, and which of them work on this machine.
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
#include "session/source.h"
#include "util/opts.h"

/*
 * The sources that drive a recording session, in the order `auto` takes
 * them (fastest first); ptrace-step, which works wherever ptrace does,
 * last.  qemu-user, faster than ptrace-step but an emulation (QEMU's
 * CPU model, not the machine's), is never taken by auto.
 */
const struct bts_source_ops *const bts_source_table[] = {
	&bts_kmod_bts_ops,
	&bts_kmod_pebs_ops,
	&bts_kmod_step_ops,
	&bts_perf_bts_ops,
	&bts_ptrace_step_ops,
	&bts_qemu_user_ops,	/* only by name: emulated */
	NULL,
};

const struct bts_source_ops *bts_source_ops_of(int id)
{
	for (size_t i = 0; bts_source_table[i]; i++)
		if (bts_source_table[i]->id == id)
			return bts_source_table[i];
	return NULL;
}

static const char *const names[] = {
	[PTBTS_SOURCE_KMOD_BTS]		= "kmod-bts",
	[PTBTS_SOURCE_KMOD_PEBS]	= "kmod-pebs",
	[PTBTS_SOURCE_KMOD_STEP]	= "kmod-step",
	[PTBTS_SOURCE_PERF_BTS]		= "perf-bts",
	[PTBTS_SOURCE_PTRACE_STEP]	= "ptrace-step",
	[PTBTS_SOURCE_QEMU_USER]	= "qemu-user",
};

/* Fastest first: `auto` takes the first available. */
static const int order[] = {
	PTBTS_SOURCE_KMOD_BTS, PTBTS_SOURCE_KMOD_PEBS, PTBTS_SOURCE_KMOD_STEP,
	PTBTS_SOURCE_PERF_BTS, PTBTS_SOURCE_PTRACE_STEP, PTBTS_SOURCE_QEMU_USER,
};

const char *bts_source_name(int source)
{
	if (source == BTS_SOURCE_AUTO)
		return "auto";
	if (source < 0 || (size_t)source >= ARRAY_SIZE(names) || !names[source])
		return "none";
	return names[source];
}

int bts_source_parse(const char *name, int *source)
{
	size_t i;

	if (!name || !source)
		return bts_fail(BTS_E_INVAL, "no source name");
	if (!strcmp(name, "auto")) {
		*source = BTS_SOURCE_AUTO;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i] && !strcmp(name, names[i])) {
			*source = (int)i;
			return 0;
		}
	return bts_fail(BTS_E_INVAL, "unknown source '%s' (auto, kmod-bts, kmod-pebs, "
			"kmod-step, perf-bts, ptrace-step, qemu-user)", name);
}

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
