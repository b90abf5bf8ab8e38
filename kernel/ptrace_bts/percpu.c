// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the per-CPU mode, the session's side.
 *
 * PERCPU_START checks the struct (-EINVAL, the same for every caller and
 * machine), then whether the mode can record here and for this caller, in
 * the header's order (the first reason is written back in @unavail), and
 * only then allocates: one kernel buffer per CPU, all or none
 * (ds_percpu_start()).  PERCPU_STOP ends recording; the buffers stay
 * readable until the next start or the session's close (a next start
 * while one is mapped is -EBUSY: its pages must not outlive their charge).  PERCPU_STATUS
 * gives one CPU's position; mmap() of the session fd maps one CPU's
 * buffer, read-only: the pages are the kernel's, written by the CPU and by
 * the module (markers, the bounce copies of ds_win.c), and no process may
 * change what they hold.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "percpu.h"

static bool ptbts_percpu_reserved_clear(const struct ptbts_percpu_config *c)
{
	size_t i;

	if (c->flags || c->__reserved0)
		return false;
	for (i = 0; i < ARRAY_SIZE(c->__reserved); i++)
		if (c->__reserved[i])
			return false;
	return true;
}

/*
 * One word of the user's mask, CPUs @base to @base + 63: every CPU named
 * must be one this machine can ever have (-EINVAL); the module records on
 * the first DS_PERCPU_MAX only (-EOPNOTSUPP).
 */
static int ptbts_percpu_mask_word(u64 word, unsigned int base, u64 *cpus)
{
	unsigned int bit, cpu;

	for (bit = 0; bit < 64; bit++) {
		if (!(word & (1ULL << bit)))
			continue;
		cpu = base + bit;
		if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
			return -EINVAL;
		if (cpu >= DS_PERCPU_MAX)
			return -EOPNOTSUPP;
		*cpus |= 1ULL << cpu;
	}
	return 0;
}

/* The CPUs of @c's mask, in the user's memory, as the module's mask. */
static int ptbts_percpu_read_cpus(const struct ptbts_percpu_config *c,
				  u64 *cpus)
{
	u32 i, words = c->cpu_mask_size / sizeof(u64);
	int err = 0, e;
	u64 *mask;

	if (!words || c->cpu_mask_size % sizeof(u64) ||
	    c->cpu_mask_size > PTBTS_CPU_MASK_MAX)
		return -EINVAL;
	mask = memdup_user(u64_to_user_ptr(c->cpu_mask), c->cpu_mask_size);
	if (IS_ERR(mask))
		return PTR_ERR(mask);
	*cpus = 0;
	/* A CPU that is not possible is -EINVAL wherever it stands. */
	for (i = 0; i < words && err != -EINVAL; i++) {
		e = ptbts_percpu_mask_word(mask[i], i * 64, cpus);
		if (e)
			err = e;
	}
	kfree(mask);
	if (!err && !*cpus)
		err = -EINVAL;
	return err;
}

static int ptbts_percpu_check(const struct ptbts_percpu_config *c,
			      u64 *cpus)
{
	if (!ptbts_percpu_reserved_clear(c))
		return -EINVAL;
	if (c->mode != PTBTS_MODE_RING && c->mode != PTBTS_MODE_STOP)
		return -EINVAL;
	if (!c->buffer_size || !PAGE_ALIGNED(c->buffer_size) ||
	    c->buffer_size > PTBTS_PERCPU_BUFFER_MAX)
		return -EINVAL;
	return ptbts_percpu_read_cpus(c, cpus);
}

static u64 ptbts_percpu_online_mask(void)
{
	unsigned int cpu;
	u64 mask = 0;

	for_each_online_cpu(cpu)
		if (cpu < DS_PERCPU_MAX)
			mask |= 1ULL << cpu;
	return mask;
}

/* The session's mode object, made on first use; ptbts_percpu_lock held. */
static struct ptbts_percpu *ptbts_percpu_get(struct ptbts_session *s)
{
	struct ptbts_percpu *p = s->percpu;

	if (p)
		return p;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	ptbts_percpu_ops_init(p);
	ptbts_percpu_add(p);
	s->percpu = p;
	return p;
}

static int ptbts_percpu_run(struct ptbts_session *s,
			    const struct ptbts_percpu_config *c, u64 cpus)
{
	struct ptbts_percpu *p;
	int err;

	cpus_read_lock();
	mutex_lock(&ptbts_percpu_lock);
	p = ptbts_percpu_get(s);
	err = -ENOMEM;
	if (!p)
		goto unlock;
	err = -EBUSY;
	/*
	 * The last run's buffers are freed and refunded here: while one is
	 * mapped its pages would live on uncharged (percpu_hw.c).  They stay
	 * as they are, readable.
	 */
	if (p->st.running || atomic_read(&p->mapped))
		goto keep;
	ds_percpu_release(&p->st);
	ptbts_percpu_set_owner(p);
	p->mode = c->mode;
	p->size = c->buffer_size;
	ds_percpu_init(&p->st, &p->ops, cpus);
	err = ptbts_percpu_nmi_get();
	if (err)
		goto unlock;
	err = ds_percpu_start(&p->st, ptbts_percpu_online_mask());
	if (err)
		ptbts_percpu_nmi_put();
	else
		p->nmi = true;
unlock:
	/* A failed start leaves no mode: STATUS and mmap() say -ENODEV. */
	if (err && p && !p->st.running)
		p->size = 0;
keep:
	mutex_unlock(&ptbts_percpu_lock);
	cpus_read_unlock();
	return err;
}

/**
 * ptbts_ioctl_percpu_start() - %PTBTS_IOC_PERCPU_START
 * @s:    the session, its owner calling
 * @uarg: the user's &struct ptbts_percpu_config
 *
 * Return: 0 or a negative errno (the uapi header lists them).
 */
long ptbts_ioctl_percpu_start(struct ptbts_session *s, void __user *uarg)
{
	struct ptbts_percpu_config __user *ucfg = uarg;
	struct ptbts_percpu_config cfg;
	u32 usize;
	u64 cpus;
	int err;
	u8 why;

	err = ptbts_get_usize(&usize, uarg, PTBTS_PERCPU_CONFIG_SIZE_VER0);
	if (err)
		return err;
	err = copy_struct_from_user(&cfg, sizeof(cfg), uarg, usize);
	if (err)
		return err;
	err = ptbts_percpu_check(&cfg, &cpus);
	if (err == -EOPNOTSUPP && put_user(0U, &ucfg->unavail))
		return -EFAULT;
	if (err)
		return err;
	/* What kmod-bts needs, for the same reasons, in the same order. */
	why = ptbts_hw_unavail(PTBTS_SOURCE_KMOD_BTS, true);
	/* The test build's simulated MSRs: only the caller's reason is left. */
	if (ptbts_percpu_test_ops())
		why = ptbts_hw_caller_unavail();
	if (put_user((u32)why, &ucfg->unavail))
		return -EFAULT;
	if (why != PTBTS_OK)
		return ptbts_hw_errno(why);
	return ptbts_percpu_run(s, &cfg, cpus);
}

/**
 * ptbts_ioctl_percpu_stop() - %PTBTS_IOC_PERCPU_STOP
 * @s: the session, its owner calling
 *
 * Return: 0, or -ENODEV when its per-CPU mode is not running.
 */
long ptbts_ioctl_percpu_stop(struct ptbts_session *s)
{
	struct ptbts_percpu *p;
	int err = -ENODEV;

	cpus_read_lock();
	mutex_lock(&ptbts_percpu_lock);
	p = s->percpu;
	if (p && p->st.running) {
		ds_percpu_stop(&p->st);
		ptbts_percpu_nmi_put();
		p->nmi = false;
		err = 0;
	}
	mutex_unlock(&ptbts_percpu_lock);
	cpus_read_unlock();
	return err;
}

static u32 ptbts_percpu_state_of(const struct ds_percpu *st, unsigned int cpu)
{
	u64 bit = cpu < DS_PERCPU_MAX ? 1ULL << cpu : 0;

	if (!(st->want & bit))
		return PTBTS_PERCPU_OFF;
	if (st->on & bit)
		return PTBTS_PERCPU_RECORDING;
	if (st->failed & bit)
		return PTBTS_PERCPU_FAILED;
	if (st->left & bit)
		return PTBTS_PERCPU_LEFT;
	if (st->running)
		return PTBTS_PERCPU_WAITING;
	return st->have & bit ? PTBTS_PERCPU_STOPPED : PTBTS_PERCPU_OFF;
}

/* @st->cpu in, everything else out; ptbts_percpu_lock held. */
static void ptbts_percpu_fill(struct ptbts_percpu *p,
			      struct ptbts_percpu_status *st)
{
	unsigned int cpu = st->cpu;
	struct ptbts_pcpu *pc;
	u64 nslots;

	st->state = ptbts_percpu_state_of(&p->st, cpu);
	st->offset = cpu * p->size;
	if (cpu >= DS_PERCPU_MAX)
		return;		/* never asked for: OFF */
	pc = p->cpu[cpu];
	if (!pc)
		return;
	if (p->st.on & (1ULL << cpu))
		ptbts_percpu_flush(p, cpu);
	nslots = pc->ds.bts.cfg.nslots;
	st->head = (pc->count % nslots) * DS_BTS_RECORD;
	st->wraps = pc->count / nslots;
	st->lost = pc->lost;
	st->buffer_size = p->size;
}

/**
 * ptbts_ioctl_percpu_status() - %PTBTS_IOC_PERCPU_STATUS
 * @s:    the session, its owner calling
 * @uarg: the user's &struct ptbts_percpu_status, @cpu set
 *
 * A recording CPU is flushed first (an IPI), so that the position is the
 * hardware's as of the call.
 *
 * Return: 0; -EINVAL for a reserved field set or a CPU that is not below
 * nr_cpu_ids; -ENODEV when no per-CPU mode was started here.
 */
long ptbts_ioctl_percpu_status(struct ptbts_session *s, void __user *uarg)
{
	struct ptbts_percpu_status in, st = { 0 };
	struct ptbts_percpu *p;
	u32 usize;
	int err;

	err = ptbts_get_usize(&usize, uarg, PTBTS_PERCPU_STATUS_SIZE_VER0);
	if (err)
		return err;
	err = copy_struct_from_user(&in, sizeof(in), uarg, usize);
	if (err)
		return err;
	if (in.__pad || in.__reserved[0] || in.__reserved[1] ||
	    in.cpu >= nr_cpu_ids)
		return -EINVAL;
	/* Only @cpu is input: the rest is filled from nothing. */
	st.cpu = in.cpu;
	cpus_read_lock();
	mutex_lock(&ptbts_percpu_lock);
	p = s->percpu;
	err = -ENODEV;
	if (p && p->size) {
		ptbts_percpu_fill(p, &st);
		err = 0;
	}
	mutex_unlock(&ptbts_percpu_lock);
	cpus_read_unlock();
	if (err)
		return err;
	st.size = min_t(u32, usize, sizeof(st));
	return ptbts_copy_out(uarg, usize, &st, sizeof(st));
}

/*
 * The mappings are counted, so that a new start does not free buffers
 * that are still mapped.  The session (@p) outlives them: each mapping
 * holds the session's file.
 */
static void ptbts_percpu_vm_open(struct vm_area_struct *vma)
{
	struct ptbts_percpu *p = vma->vm_private_data;

	atomic_inc(&p->mapped);
}

static void ptbts_percpu_vm_close(struct vm_area_struct *vma)
{
	struct ptbts_percpu *p = vma->vm_private_data;

	atomic_dec(&p->mapped);
}

static const struct vm_operations_struct ptbts_percpu_vm_ops = {
	.open	= ptbts_percpu_vm_open,
	.close	= ptbts_percpu_vm_close,
};

/* The buffer behind @vma, or an errno; ptbts_percpu_lock held. */
static int ptbts_percpu_map(struct ptbts_percpu *p, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long pages = p->size >> PAGE_SHIFT;
	unsigned long cpu, first;
	int err;

	if (!pages || vma->vm_pgoff >= pages * DS_PERCPU_MAX)
		return -ENODEV;
	cpu = vma->vm_pgoff / pages;
	first = vma->vm_pgoff % pages;
	if (!p->cpu[cpu])
		return -ENODEV;
	if (len > (pages - first) << PAGE_SHIFT)
		return -EINVAL;
	err = remap_vmalloc_range(vma, p->cpu[cpu]->buf, first);
	if (err)
		return err;
	vma->vm_private_data = p;
	vma->vm_ops = &ptbts_percpu_vm_ops;
	ptbts_percpu_vm_open(vma);
	return 0;
}

/**
 * ptbts_percpu_mmap() - map one CPU's buffer, read-only
 * @s:   the session, its owner calling
 * @vma: the mapping: offset CPU * buffer size (+ whole pages within it)
 *
 * Writable mappings are refused, and VM_MAYWRITE is cleared so that
 * mprotect() cannot make one later; the mapping is not inherited by a
 * child's fork (VM_DONTCOPY) and cannot grow (VM_DONTEXPAND).
 *
 * Return: 0; -EPERM for a writable mapping; -EINVAL for one past the end
 * of the CPU's buffer; -ENODEV when there is no buffer at that offset.
 */
int ptbts_percpu_mmap(struct ptbts_session *s, struct vm_area_struct *vma)
{
	int err = -ENODEV;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND;
	mutex_lock(&ptbts_percpu_lock);
	if (s->percpu)
		err = ptbts_percpu_map(s->percpu, vma);
	mutex_unlock(&ptbts_percpu_lock);
	return err;
}

/**
 * ptbts_percpu_end() - the session closes: stop, free the buffers
 * @s: the session
 */
void ptbts_percpu_end(struct ptbts_session *s)
{
	struct ptbts_percpu *p = s->percpu;

	if (!p)
		return;
	cpus_read_lock();
	mutex_lock(&ptbts_percpu_lock);
	ds_percpu_release(&p->st);
	if (p->nmi)
		ptbts_percpu_nmi_put();
	ptbts_percpu_del(p);
	s->percpu = NULL;
	mutex_unlock(&ptbts_percpu_lock);
	cpus_read_unlock();
	/* Every buffer is refunded: the owner is no longer needed. */
	if (p->owner.user)
		ptbts_owner_put(&p->owner);
	kfree(p);
}

/**
 * ptbts_percpu_init() - at module load
 *
 * Return: 0 or a negative errno.
 */
int ptbts_percpu_init(void)
{
	return ptbts_percpu_hw_init();
}

/**
 * ptbts_percpu_exit() - at module unload; every session is closed
 */
void ptbts_percpu_exit(void)
{
	ptbts_percpu_hw_exit();
}
