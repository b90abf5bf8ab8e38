// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: STATUS, where the producer of a thread's records is.
 *
 * The positions come from the kernel's own memory, never from the buffer,
 * which the tracer can write.
 */
#include <linux/string.h>
#include <linux/uaccess.h>

#include "ptbts.h"

/* The second region (kmod-pebs): its records are the CPU's size. */
static void ptbts_status_fill2(struct ptbts_status *st,
			       const struct ptbts_thread *t)
{
	/* Pairs with WRITE_ONCE(@nslots2) in ptbts_pebs_setup(). */
	u64 nslots = READ_ONCE(t->nslots2);
	/* C, matches B of ptbts_hw_publish() (ring.c's protocol). */
	u64 count = smp_load_acquire(&t->count2);

	if (!nslots)
		return;
	st->head2 = (count % nslots) * t->rec_size2;
	st->wraps2 = count / nslots;
}

/**
 * ptbts_status_fill() - the status of a thread, every byte set
 * @st:    filled
 * @t:     the thread object
 * @usize: the caller's struct size
 */
void ptbts_status_fill(struct ptbts_status *st, const struct ptbts_thread *t,
		       u32 usize)
{
	/* C, matches B (ring.c's protocol). */
	u64 count = smp_load_acquire(&t->ring.count);

	memset(st, 0, sizeof(*st));
	st->size = min_t(u32, usize, sizeof(*st));
	st->tid = t->tid;
	st->state = ptbts_thread_state(t);
	st->source = t->source;
	st->head = (count % t->ring.nslots) * sizeof(struct ptbts_record);
	st->wraps = count / t->ring.nslots;
	/*
	 * Pairs with the producer's WRITE_ONCE(@lost): ptbts_ring_put(),
	 * ptbts_hw_publish(), ptbts_step_emit(), ptbts_step_drain().
	 */
	st->lost = READ_ONCE(t->ring.lost);
	ptbts_status_fill2(st, t);
}

/**
 * ptbts_ioctl_status() - %PTBTS_IOC_STATUS
 * @s:    the session, owned by the caller's process
 * @uarg: a &struct ptbts_status with @size and @tid set
 *
 * The struct follows the rules of every struct the kernel reads: a tail
 * it does not know must be zero, and so must the reserved fields.  A
 * thread whose exit queued the release of its buffer is reported once
 * that release is done: EXITED means the pages are back.
 *
 * Return: 0; -EFAULT; -EINVAL for a reserved field set or a size below
 * the first version; -E2BIG for a size past a page or a non-zero tail;
 * -ESRCH when the session holds no such thread.
 */
long ptbts_ioctl_status(struct ptbts_session *s, void __user *uarg)
{
	struct ptbts_status in, st;
	struct ptbts_thread *t;
	u32 usize;
	int err;

	err = ptbts_get_usize(&usize, uarg, PTBTS_STATUS_SIZE_VER0);
	if (err)
		return err;
	err = copy_struct_from_user(&in, sizeof(in), uarg, usize);
	if (err)
		return err;
	if (in.__reserved[0] || in.__reserved[1])
		return -EINVAL;

	mutex_lock(&s->lock);
	t = ptbts_session_find(s, in.tid);
	if (t) {
		ptbts_thread_settle(t);
		ptbts_status_fill(&st, t, usize);
	}
	mutex_unlock(&s->lock);
	if (!t)
		return -ESRCH;
	return ptbts_copy_out(uarg, usize, &st, sizeof(st));
}
