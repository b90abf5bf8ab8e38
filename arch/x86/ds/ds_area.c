// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The DS save area's fields, the DEBUGCTL bits that turn BTS on, and the
 * PEBS record sizes of each format.
 *
 * The four fields of a region (SDM vol. 3B, "DS Save Area"): the hardware
 * stores a record at index, advances index by the record size, raises a PMI
 * when index reaches the threshold (BTINT set, for BTS), and with BTINT
 * clear wraps index to base at the absolute maximum, which is one byte past
 * the last whole record.  A circular buffer needs the threshold beyond the
 * absolute maximum: clearing BTINT alone is not enough.
 */
#include "ds.h"

/**
 * ds_area_get_bts() - the BTS fields of a DS area
 * @ds: the area
 * @f:  filled
 */
void ds_area_get_bts(const struct ds_area *ds, struct ds_fields *f)
{
	f->base = ds->bts_base;
	f->index = ds->bts_index;
	f->abs_max = ds->bts_abs_max;
	f->threshold = ds->bts_threshold;
}

/**
 * ds_area_set_bts() - program the BTS fields of a DS area
 * @ds: the area
 * @f:  the values
 */
void ds_area_set_bts(struct ds_area *ds, const struct ds_fields *f)
{
	ds->bts_base = f->base;
	ds->bts_index = f->index;
	ds->bts_abs_max = f->abs_max;
	ds->bts_threshold = f->threshold;
}

/**
 * ds_area_get_pebs() - the PEBS fields of a DS area
 * @ds: the area
 * @f:  filled
 */
void ds_area_get_pebs(const struct ds_area *ds, struct ds_fields *f)
{
	f->base = ds->pebs_base;
	f->index = ds->pebs_index;
	f->abs_max = ds->pebs_abs_max;
	f->threshold = ds->pebs_threshold;
}

/**
 * ds_area_set_pebs() - program the PEBS fields of a DS area
 * @ds: the area
 * @f:  the values
 */
void ds_area_set_pebs(struct ds_area *ds, const struct ds_fields *f)
{
	ds->pebs_base = f->base;
	ds->pebs_index = f->index;
	ds->pebs_abs_max = f->abs_max;
	ds->pebs_threshold = f->threshold;
}

/**
 * ds_debugctl_bts() - the DEBUGCTL bits for BTS with a threshold PMI
 * @user:   store branches at CPL > 0
 * @kernel: store branches at CPL 0
 *
 * Per-thread tracing passes @user only; the hardware still stores the
 * branches that cross from the kernel into user mode, whose 'from' is a
 * kernel address (SDM; perf's comment in its BTS drain says the same).
 *
 * Return: the bits (TR, BTS, BTINT and the CPL filters).
 */
u64 ds_debugctl_bts(bool user, bool kernel)
{
	u64 ctl = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS | DS_DEBUGCTL_BTINT;

	if (!user)
		ctl |= DS_DEBUGCTL_BTS_OFF_USR;
	if (!kernel)
		ctl |= DS_DEBUGCTL_BTS_OFF_OS;
	return ctl;
}

/**
 * ds_pebs_record_size() - bytes per PEBS record of a format
 * @format: IA32_PERF_CAPABILITIES.PEBS_FORMAT
 *
 * Formats 4 and 5 are adaptive: the size depends on PEBS_DATA_CFG, and
 * this code programs the basic group only.
 *
 * Return: the size, or 0 for a format this code does not know.
 */
u32 ds_pebs_record_size(u32 format)
{
	static const u32 sizes[] = {
		[0] = 144,	/* Core: flags, ip, 16 GP registers */
		[1] = 176,	/* Nehalem: + status, dla, dse, latency */
		[2] = 192,	/* Haswell: + real ip, TSX tuning */
		[3] = 200,	/* Skylake: + TSC */
		[4] = DS_PEBS_BASIC_SIZE,	/* Ice Lake: adaptive */
		[5] = DS_PEBS_BASIC_SIZE,	/* format 4 with more counters */
	};

	if (format >= DS_ARRAY_SIZE(sizes))
		return 0;
	return sizes[format];
}

/**
 * ds_fields_circular() - fields for a circular region without a PMI
 * @f:        filled
 * @base:     first byte
 * @nrec:     records
 * @rec_size: bytes per record
 *
 * The threshold lies one record beyond the absolute maximum, where the
 * index never goes (perf's snapshot mode does the same).
 */
void ds_fields_circular(struct ds_fields *f, u64 base, u64 nrec, u32 rec_size)
{
	f->base = base;
	f->index = base;
	f->abs_max = base + nrec * rec_size;
	f->threshold = f->abs_max + rec_size;
}
