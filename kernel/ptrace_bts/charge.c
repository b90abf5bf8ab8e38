// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: what the tracer's buffers cost it, and the one limit on it.
 *
 * Every buffer the module holds for a tracer, its own pinned pages
 * (pin.c) and the per-CPU mode's kernel buffers (percpu_hw.c), is charged
 * to the tracer's user: user->locked_vm against RLIMIT_MEMLOCK, the
 * counter io_uring, AF_XDP and the RDMA pinning share.  The user, not the
 * mm: a charge to the mm would stay with an mm the tracer leaves at
 * exec(), whose successor starts at 0, while the buffers live on with
 * the session.  The charge holds a reference on the user it was made to,
 * whatever the tracer execs or becomes later.  A caller with
 * CAP_IPC_LOCK is charged with no limit, as mlock() would be.
 *
 * The pages are also shown in the tracer's VmPin (mm->pinned_vm, never
 * checked against a limit, as io_uring shows its registered buffers), and
 * not in VmLck: an mlock()ed buffer is locked memory once, by mlock().
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>

#include "ptbts.h"

/**
 * ptbts_owner_get() - the caller, as the payer of the next charges
 * @o: filled; ptbts_owner_put() when no charge is left
 *
 * The limit and the capability are taken now: a charge made later (a CPU
 * that joins the per-CPU mode, in a kthread) is judged by the owner's.
 * The caller is a user process (it has an mm).
 */
void ptbts_owner_get(struct ptbts_owner *o)
{
	o->user = get_current_user();
	mmgrab(current->mm);
	o->mm = current->mm;
	o->limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	o->unlimited = capable(CAP_IPC_LOCK);
}

/**
 * ptbts_owner_put() - drop what ptbts_owner_get() took
 * @o: the owner, nothing charged to it any more
 */
void ptbts_owner_put(struct ptbts_owner *o)
{
	free_uid(o->user);
	mmdrop(o->mm);
	o->user = NULL;
	o->mm = NULL;
}

/**
 * ptbts_owner_charge() - charge pages, before anything is allocated
 * @o:  the owner
 * @nr: pages
 *
 * The check and the charge are one atomic step, so that concurrent
 * charges of one user (from any process of it) cannot pass the limit
 * together.
 *
 * Return: 0, or -ENOMEM past the limit (nothing charged).
 */
int ptbts_owner_charge(const struct ptbts_owner *o, unsigned long nr)
{
	long cur = atomic_long_read(&o->user->locked_vm);
	unsigned long next;

	do {
		next = cur + nr;
		if (next < nr)
			return -ENOMEM;
		if (!o->unlimited && next > o->limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&o->user->locked_vm, &cur, next));
	atomic64_add(nr, &o->mm->pinned_vm);
	return 0;
}

/**
 * ptbts_owner_uncharge() - give back what ptbts_owner_charge() took
 * @o:  the owner
 * @nr: pages
 */
void ptbts_owner_uncharge(const struct ptbts_owner *o, unsigned long nr)
{
	atomic_long_sub(nr, &o->user->locked_vm);
	atomic64_sub(nr, &o->mm->pinned_vm);
}
