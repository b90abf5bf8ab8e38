// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * PEBS records in the hardware's own formats (kmod-pebs's second region):
 * the format id comes from the module's capabilities
 * (IA32_PERF_CAPABILITIES.PEBS_FORMAT).
 *
 *   0 Core         flags, ip, ax bx cx dx si di bp sp r8-r15    144 bytes
 *   1 Nehalem      + status (applicable counters), dla, dse, lat 176
 *   2 Haswell      + real ip (the eventing instruction), tsx      192
 *   3 Skylake      + tsc                                          200
 *   4, 5 adaptive  basic group: format_size (size in bits 63:48, groups
 *                  in the low bits), ip, applicable counters, tsc; then the
 *                  groups PEBS_DATA_CFG chose: memory info 32, GP registers
 *                  (flags ip ax cx dx bx sp bp si di r8-r15) 144, XMM 256,
 *                  LBR entries 24 each
 *
 * Formats 0 and 1 report the instruction after the eventing one (a trap);
 * the rest report the eventing instruction itself.
 */
#include <stdlib.h>

#include "internal.h"
#include "util/opts.h"

#define PEBS_GRP_MEMINFO	(1ULL << 0)
#define PEBS_GRP_GPRS		(1ULL << 1)
#define PEBS_GRP_XMMS		(1ULL << 2)
#define PEBS_GRP_LBRS		(1ULL << 3)
#define PEBS_LBR_SHIFT		24
#define PEBS_BASIC_SIZE		32

size_t bts_pebs_record_size(unsigned int format)
{
	static const size_t sizes[] = { 144, 176, 192, 200, PEBS_BASIC_SIZE,
					PEBS_BASIC_SIZE };

	return format < ARRAY_SIZE(sizes) ? sizes[format] : 0;
}

/* ax bx cx dx si di bp sp r8-r15, from the legacy layout. */
static void pebs_legacy(const uint64_t *r, struct bts_pebs *out)
{
	out->flags = r[0];
	memcpy(out->regs, &r[2], sizeof(out->regs));
	out->has_regs = true;
}

/* The adaptive GP group: flags ip ax cx dx bx sp bp si di r8-r15. */
static void pebs_gprs(const uint64_t *g, struct bts_pebs *out)
{
	static const int order[8] = { 2, 5, 3, 4, 8, 9, 7, 6 };
	int i;

	out->flags = g[0];
	for (i = 0; i < 8; i++)
		out->regs[i] = g[order[i]];
	memcpy(&out->regs[8], &g[10], 8 * sizeof(uint64_t));
	out->has_regs = true;
}

static size_t pebs_adaptive_size(uint64_t groups)
{
	size_t size = PEBS_BASIC_SIZE;

	if (groups & PEBS_GRP_MEMINFO)
		size += 32;
	if (groups & PEBS_GRP_GPRS)
		size += 18 * 8;
	if (groups & PEBS_GRP_XMMS)
		size += 16 * 2 * 8;
	if (groups & PEBS_GRP_LBRS)
		size += (((groups >> PEBS_LBR_SHIFT) & 0xff) + 1) * 24;
	return size;
}

static int pebs_adaptive(const uint64_t *r, size_t len, struct bts_pebs *out)
{
	size_t size = r[0] >> 48;
	uint64_t groups = r[0] & 0xffffffffffffULL;

	if (size != pebs_adaptive_size(groups))
		return bts_fail(BTS_E_FORMAT, "adaptive PEBS record of %zu bytes "
				"with groups 0x%llx", size,
				(unsigned long long)groups);
	if (size > len)
		return bts_fail(BTS_E_FORMAT, "adaptive PEBS record of %zu bytes "
				"in %zu", size, len);
	out->ip = r[1];
	out->ip_exact = true;
	out->applicable = r[2];
	out->tsc = r[3];
	out->size = size;
	if (groups & PEBS_GRP_GPRS)
		pebs_gprs(&r[(PEBS_BASIC_SIZE + (groups & PEBS_GRP_MEMINFO ?
						  32 : 0)) / 8], out);
	return (int)size;
}

static int pebs_decode(unsigned int format, const void *rec, size_t len,
		       struct bts_pebs *out)
{
	size_t size = bts_pebs_record_size(format);
	uint64_t r[25];

	if (!rec || !out)
		return bts_fail(BTS_E_INVAL, "no record");
	memset(out, 0, sizeof(*out));
	if (!size)
		return bts_fail(BTS_E_FORMAT, "PEBS format %u is not known",
				format);
	if (len < size)
		return bts_fail(BTS_E_FORMAT, "PEBS record of format %u needs "
				"%zu bytes, has %zu", format, size, len);
	if (format >= 4) {
		/* Aligned copies: the caller's buffer may be any bytes. */
		uint64_t *a = malloc(len);
		int ret;

		if (!a)
			return bts_fail(BTS_E_NOMEM, "PEBS record");
		memcpy(a, rec, len);
		ret = pebs_adaptive(a, len, out);
		free(a);
		return ret;
	}
	memcpy(r, rec, size);
	pebs_legacy(r, out);
	out->ip = r[1];
	out->size = size;
	if (format >= 1)
		out->applicable = r[18];
	if (format >= 2) {
		out->ip = r[22];
		out->ip_exact = true;
	}
	if (format >= 3)
		out->tsc = r[24];
	return (int)size;
}

int bts_pebs_decode(unsigned int format, const void *rec, size_t len,
		    struct bts_pebs *out, size_t size)
{
	struct bts_pebs p;
	int ret;

	if (!rec || !out || !size)
		return bts_fail(BTS_E_INVAL, "no record");
	ret = pebs_decode(format, rec, len, &p);
	BTS_OUT_FILL(out, size, &p, "PEBS record");
	return ret;
}

/* kmod-pebs's rules for its event (arch/x86/ds/ds_pebs_event.c's). */
const char *bts_pebs_event_problem(uint64_t event, uint64_t period)
{
	if (event & ~0xffffULL)
		return "an event has an event select (bits 0-7) and a unit mask "
		       "(bits 8-15) only";
	if (!(event & 0xff))
		return "an event select (bits 0-7) of 0 is no event";
	if (!period || period > PTBTS_PEBS_PERIOD_MAX)
		return "a period is 1 to 2147483647 events";
	return NULL;
}
