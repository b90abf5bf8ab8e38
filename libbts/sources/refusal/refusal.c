// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The refusal checks' public side: names, one check, the refusal of a source. */
#include <stdio.h>

#include "sources/refusal/refusal.h"
#include "util/opts.h"

static const char *const names[BTS_REFUSAL_MAX] = {
	[BTS_REFUSAL_YAMA]	= "yama",
	[BTS_REFUSAL_POLICY]	= "policy",
	[BTS_REFUSAL_PARANOID]	= "paranoid",
	[BTS_REFUSAL_PTI]	= "pti",
	[BTS_REFUSAL_LOCKDOWN]	= "lockdown",
	[BTS_REFUSAL_MODULE]	= "module",
};

const char *bts_refusal_name(int check)
{
	if (check < 0 || check >= BTS_REFUSAL_MAX)
		return NULL;
	return names[check];
}

int bts_refusal_check(int check, struct bts_refusal *out, size_t size)
{
	struct bts_refusal_facts f;
	struct bts_refusal r;

	if (check < 0 || check >= BTS_REFUSAL_MAX || !out)
		return bts_fail(BTS_E_INVAL, "unknown refusal check %d", check);
	bts_refusal_probe(check, &f);
	bts_refusal_decide(check, &f, &r);
	return BTS_OUT_FILL(out, size, &r, "refusal");
}

int bts_refusal_for(int source, bool attach, struct bts_refusal *out,
		    size_t size)
{
	struct bts_refusal r;
	int found = bts_refusal_find(source, attach, 0, &r);

	if (found && out)
		BTS_OUT_FILL(out, size, &r, "refusal");
	return found;
}

int bts_refusal_find(int source, bool attach, uint32_t skip,
		     struct bts_refusal *out)
{
	struct bts_refusal_facts f;
	struct bts_refusal r;
	int check;

	/* Every source needs ptrace: auto is refused when ptrace-step is. */
	if (source == BTS_SOURCE_AUTO)
		source = PTBTS_SOURCE_PTRACE_STEP;
	if (source <= PTBTS_SOURCE_NONE || source >= PTBTS_SOURCE_MAX)
		return 0;
	bts_refusal_probe(-1, &f);
	for (check = 0; check < BTS_REFUSAL_MAX; check++) {
		bts_refusal_decide(check, &f, &r);
		if (!(r.sources & (1u << source)) || (r.attach_only && !attach) ||
		    (skip & (1u << check)))
			continue;
		if (out)
			*out = r;
		return 1;
	}
	return 0;
}
