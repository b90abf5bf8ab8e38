// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The names of the sources (PTBTS_SOURCE_*), as every message, option and
 * trace file spells them.
 */
#include <string.h>

#include "internal.h"

static const char *const names[] = {
	[PTBTS_SOURCE_KMOD_BTS]		= "kmod-bts",
	[PTBTS_SOURCE_KMOD_PEBS]	= "kmod-pebs",
	[PTBTS_SOURCE_KMOD_STEP]	= "kmod-step",
	[PTBTS_SOURCE_PERF_BTS]		= "perf-bts",
	[PTBTS_SOURCE_PTRACE_STEP]	= "ptrace-step",
	[PTBTS_SOURCE_QEMU_USER]	= "qemu-user",
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
