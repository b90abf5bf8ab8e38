// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: reading and checking an attach configuration.
 *
 * Everything that can be judged from the struct alone is judged here,
 * before any thread is looked up or any memory touched: a bad config gets
 * the same errno whoever asks.
 */
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/overflow.h>
#include <linux/uaccess.h>

#include "hw.h"
#include "ptbts.h"

static bool ptbts_config_reserved_clear(const struct ptbts_config *cfg)
{
	size_t i;

	if ((cfg->flags & ~PTBTS_CONFIG_PEBS_EVENT) || cfg->__reserved0)
		return false;
	for (i = 0; i < ARRAY_SIZE(cfg->__reserved); i++)
		if (cfg->__reserved[i])
			return false;
	return true;
}

/*
 * The buffer is whole pages of user space.  The end is computed with an
 * overflow check: a wrapped end would make a huge range look small.
 */
static int ptbts_config_check_buffer(u64 start, u64 size)
{
	u64 end;

	if (!size || !PAGE_ALIGNED(start) || !PAGE_ALIGNED(size))
		return -EINVAL;
	if (check_add_overflow(start, size, &end))
		return -EINVAL;
	if (end > TASK_SIZE)
		return -EFAULT;
	return 0;
}

/*
 * Both regions are pinned and charged together: a pair that the limit
 * could never cover is refused before either is pinned (the charge itself,
 * in pin.c, also counts what the caller holds already).
 */
static int ptbts_config_check_memlock(const struct ptbts_config *cfg)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pages = (cfg->buffer_size >> PAGE_SHIFT) +
		    (cfg->buffer2_size >> PAGE_SHIFT);

	if (pages > limit && !capable(CAP_IPC_LOCK))
		return -ENOMEM;
	return 0;
}

/* Whether the regions share a byte, with no sum that could wrap. */
static bool ptbts_config_overlap(const struct ptbts_config *cfg)
{
	if (cfg->buffer2 >= cfg->buffer)
		return cfg->buffer2 - cfg->buffer < cfg->buffer_size;
	return cfg->buffer - cfg->buffer2 < cfg->buffer2_size;
}

/*
 * A second region is judged from the struct, before the source's
 * availability, so that a bad one gets its errno on any machine; a source
 * that needs one and got none is told once it could record.
 */
static int ptbts_config_check_buffer2(const struct ptbts_config *cfg)
{
	int err;

	if (!cfg->buffer2 && !cfg->buffer2_size)
		return 0;
	err = ptbts_config_check_buffer(cfg->buffer2, cfg->buffer2_size);
	if (err)
		return err;
	if (ptbts_config_overlap(cfg))
		return -EINVAL;
	return ptbts_config_check_memlock(cfg);
}

/*
 * kmod-pebs's event: given (the flag) and valid, or not given and 0, in
 * which case it samples retired branches at the default period.  Judged
 * from the struct, so that a bad one gets its errno on any machine.
 */
static int ptbts_config_pebs_event(struct ptbts_config *cfg)
{
	if (!(cfg->flags & PTBTS_CONFIG_PEBS_EVENT)) {
		if (cfg->pebs_event || cfg->pebs_period)
			return -EINVAL;
		cfg->pebs_event = PTBTS_PEBS_EVENT_BRANCHES;
		cfg->pebs_period = PTBTS_PEBS_PERIOD_DEFAULT;
		return 0;
	}
	if (cfg->source != PTBTS_SOURCE_KMOD_PEBS)
		return -EINVAL;
	return ds_pebs_event_check(cfg->pebs_event, cfg->pebs_period);
}

static int ptbts_config_check(struct ptbts_config *cfg)
{
	const struct ptbts_source_ops *ops;
	int err = 0;

	if (!ptbts_config_reserved_clear(cfg))
		return -EINVAL;
	err = ptbts_config_pebs_event(cfg);
	if (err)
		return err;
	if (cfg->mode > PTBTS_MODE_BLOCK)
		return -EINVAL;
	if (!ptbts_source_uses_buffer2(cfg->source) &&
	    (cfg->buffer2 || cfg->buffer2_size))
		return -EINVAL;
	err = ptbts_config_check_buffer2(cfg);
	if (err)
		return err;
	ops = ptbts_source_get(cfg->source, &err);
	if (!ops)
		return err;
	if (ops->has_buffer2 && !cfg->buffer2_size)
		return -EINVAL;
	/* Only kmod-step's BLOCK producer can wait at a record of its own. */
	if (cfg->limit && (cfg->mode != PTBTS_MODE_BLOCK ||
			   cfg->source != PTBTS_SOURCE_KMOD_STEP))
		return -EINVAL;
	if (cfg->wakeup > cfg->buffer_size)
		return -EINVAL;
	return ptbts_config_check_buffer(cfg->buffer, cfg->buffer_size);
}

/**
 * ptbts_config_get() - copy an attach configuration in and check it
 * @cfg:  filled, with zeroes beyond the caller's size
 * @uarg: the user's &struct ptbts_config
 *
 * Without %PTBTS_CONFIG_PEBS_EVENT, @cfg's PEBS event and period are set
 * to the defaults (retired branches, every 1000).
 *
 * Return: 0; -EFAULT; -EINVAL for a size below the first version, a
 * reserved field that is not zero, a PEBS event or period given without
 * the flag, or with it for another source than kmod-pebs, or out of
 * range (ds_pebs_event_check()), an unknown mode or source, an unaligned
 * or empty buffer, a buffer whose end overflows, a second region the source
 * does not use (or, for kmod-pebs, none), a second region that overlaps the
 * first, or a wakeup beyond the buffer; -ENOMEM when the two regions
 * together exceed RLIMIT_MEMLOCK (without CAP_IPC_LOCK); -E2BIG for a size
 * past a page or an unknown tail that is not zero; -EOPNOTSUPP for a module
 * source that cannot record here; -EPERM for kmod-pebs and a caller without
 * CAP_PERFMON or CAP_SYS_ADMIN.
 */
int ptbts_config_get(struct ptbts_config *cfg, const void __user *uarg)
{
	u32 usize;
	int err;

	err = ptbts_get_usize(&usize, uarg, PTBTS_CONFIG_SIZE_VER0);
	if (err)
		return err;
	err = copy_struct_from_user(cfg, sizeof(*cfg), uarg, usize);
	if (err)
		return err;
	return ptbts_config_check(cfg);
}
