// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: reading and checking an attach configuration.
 *
 * Everything that can be judged from the struct alone is judged here,
 * before any thread is looked up or any memory touched: a bad config gets
 * the same errno whoever asks.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/uaccess.h>

#include "ptbts.h"

static bool ptbts_config_reserved_clear(const struct ptbts_config *cfg)
{
	size_t i;

	if (cfg->flags || cfg->__reserved0)
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

static int ptbts_config_check(const struct ptbts_config *cfg)
{
	const struct ptbts_source_ops *ops;
	int err = 0;

	if (!ptbts_config_reserved_clear(cfg))
		return -EINVAL;
	if (cfg->mode > PTBTS_MODE_BLOCK)
		return -EINVAL;
	ops = ptbts_source_get(cfg->source, &err);
	if (!ops)
		return err;
	if (!ops->has_buffer2 && (cfg->buffer2 || cfg->buffer2_size))
		return -EINVAL;
	if (cfg->wakeup > cfg->buffer_size)
		return -EINVAL;
	err = ptbts_config_check_buffer(cfg->buffer, cfg->buffer_size);
	if (err)
		return err;
	if (ops->has_buffer2)
		err = ptbts_config_check_buffer(cfg->buffer2, cfg->buffer2_size);
	return err;
}

/**
 * ptbts_config_get() - copy an attach configuration in and check it
 * @cfg:  filled, with zeroes beyond the caller's size
 * @uarg: the user's &struct ptbts_config
 *
 * Return: 0; -EFAULT; -EINVAL for a size below the first version, a
 * reserved field that is not zero, an unknown mode or source, an unaligned
 * or empty buffer, a buffer whose end overflows, a second region the source
 * does not use, or a wakeup beyond the buffer; -E2BIG for a size past a page
 * or an unknown tail that is not zero; -EOPNOTSUPP for a module source that
 * cannot record here.
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
