// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What a record means: its kind, from the software half of its flags
 * (include/uapi/linux/ptrace_bts.h).  The hardware half (bits 0-31) is the
 * CPU's business and never checked here.
 */
#include "trace/trace_format.h"

static bool kind_is_marker(int kind)
{
	return kind >= PTBTS_KIND_EXEC && kind <= PTBTS_KIND_FILTERED;
}

static bool kind_is_branch(int kind)
{
	return kind >= PTBTS_KIND_BRANCH && kind <= PTBTS_KIND_SIGRETURN;
}

const char *bts_record_problem(const struct ptbts_record *rec, int *kind)
{
	*kind = PTBTS_KIND(rec->flags);
	/* A decoder that guessed at unknown bits could misread the trace. */
	if (rec->flags & PTBTS_FLAG_SW_RESERVED)
		return "reserved flag bits are set";
	if (kind_is_branch(*kind))
		return rec->from ? NULL : "a branch record with from == 0";
	if (kind_is_marker(*kind))
		return rec->from ? "a marker record with from != 0" : NULL;
	return "unknown record kind";
}

int bts_record_kind(const struct ptbts_record *rec)
{
	const char *why;
	int kind;

	if (!rec)
		return bts_fail(BTS_E_INVAL, "no record");
	why = bts_record_problem(rec, &kind);
	if (why)
		return bts_fail(BTS_E_FORMAT, "record flags 0x%llx: %s",
				(unsigned long long)rec->flags, why);
	return kind;
}

const char *bts_kind_name(int kind)
{
	static const char *const names[] = {
		[PTBTS_KIND_BRANCH]	= "branch",
		[PTBTS_KIND_SIGNAL]	= "signal",
		[PTBTS_KIND_SIGRETURN]	= "sigreturn",
		[PTBTS_KIND_EXEC]	= "exec",
		[PTBTS_KIND_LOST]	= "lost",
		[PTBTS_KIND_GAP]	= "gap",
		[PTBTS_KIND_FILTERED]	= "filtered",
	};

	if (kind < 0 || (size_t)kind >= ARRAY_SIZE(names) || !names[kind])
		return "unknown";
	return names[kind];
}
