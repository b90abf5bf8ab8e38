// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the size rules of every struct that crosses the boundary.
 *
 * Each struct starts with its own size.  In: copy_struct_from_user() takes
 * a smaller (older) struct and zero-fills the rest, and a larger (newer) one
 * only when the tail it does not know is zero.  Out: the kernel writes up to
 * the caller's size and zeroes what lies beyond its own, so that no byte the
 * caller reads is stale or the kernel's.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "ptbts.h"

/**
 * ptbts_get_usize() - read and check the size at the start of a struct
 * @usize: where to store it
 * @uarg:  the user's struct
 * @min:   the size of the struct's first version
 *
 * A page is the limit, as for clone3(): enough for any growth, and it bounds
 * the zero check of the tail.
 *
 * Return: 0, -EFAULT, -EINVAL (below @min) or -E2BIG (past a page).
 */
int ptbts_get_usize(u32 *usize, const void __user *uarg, u32 min)
{
	if (get_user(*usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (*usize < min)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return 0;
}

/**
 * ptbts_copy_out() - copy a struct to the user by the size rules
 * @uarg:  the user's struct
 * @usize: its size, as ptbts_get_usize() checked it
 * @src:   the kernel's struct, fully initialised
 * @ksize: its size
 *
 * Return: 0 or -EFAULT.
 */
int ptbts_copy_out(void __user *uarg, u32 usize, const void *src,
		   size_t ksize)
{
	size_t n = min_t(size_t, usize, ksize);

	if (copy_to_user(uarg, src, n))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}
