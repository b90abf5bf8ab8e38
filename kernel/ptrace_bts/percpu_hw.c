// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the per-CPU mode on the CPUs themselves.
 *
 *  - A CPU's buffer is vmalloc_user() memory: zeroed, mappable into the
 *    tracer (remap_vmalloc_range()), and, without page-table isolation
 *    (refused before anything is allocated), mapped in every address
 *    space, as the hardware needs: it stores through whatever CR3 is
 *    loaded, in the kernel and in every process.
 *  - Starting and stopping a CPU run on that CPU with interrupts off (an
 *    IPI, or locally from its hotplug callback): ds_task_sched_in() and
 *    ds_task_sched_out() over the CPU's own DS state, user and kernel
 *    branches both.  Coexistence with perf is ds_task_sched_in()'s: the
 *    installed DS area's BTS fields are borrowed and given back, and a CPU
 *    whose BTS someone else has on refuses to start (-EBUSY), which rolls
 *    the whole start back.
 *  - The threshold PMI moves the CPU's window on (ds_task_pmi()); there is
 *    no consumer position in the per-CPU mode (no ACK): RING overwrites,
 *    STOP stops once the buffer is full and counts what it loses.
 *  - CPU hotplug (a dynamic AP state): a CPU of a running session coming
 *    online gets its buffer and joins; one going offline stops, which
 *    takes its last records in, and leaves; its buffer stays readable,
 *    and a GAP marker goes before its first record if it joins again.
 *
 * Like kmod-bts this has not run on silicon: its state machine is tested
 * against the simulated CPU (tests/sim), and it records on the emulated
 * CPU with BTS of "make test-vcpu" (tests/kernel/test_vcpu_percpu.c:
 * records, hotplug, a failed start); on QEMU's default CPU, which has no
 * DS, only the refusals and the hotplug callbacks without a session run.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "percpu.h"

/* The per-CPU mode's one owner at a time, and its start and stop. */
DEFINE_MUTEX(ptbts_percpu_lock);
static LIST_HEAD(ptbts_percpu_list);
static unsigned int ptbts_percpu_nmi_users;
static enum cpuhp_state ptbts_percpu_state;
static atomic_long_t ptbts_percpu_nr_pages = ATOMIC_LONG_INIT(0);

/* The CPU's recording, for its PMI; NULL when it records nothing. */
static DEFINE_PER_CPU(struct ptbts_pcpu *, ptbts_percpu_cur);
/* A CPU's recording is being switched: a PMI now is taken care of. */
static DEFINE_PER_CPU(bool, ptbts_percpu_switching);

/* The CPU (the test build may give simulated MSRs instead). */
static const struct ds_ops *ptbts_percpu_ds_ops(void)
{
	return ptbts_percpu_test_ops() ?: &ptbts_hw_ops;
}

/* -------------------------------------------------- buffers (any CPU) */

/*
 * The buffers are charged to the owner as the thread buffers are
 * (charge.c): one limit, RLIMIT_MEMLOCK, for both, with the owner's limit
 * and capability kept from the start, since a CPU that joins later is
 * charged in the hotplug callback's kthread, which has none of them.  The
 * charge takes no lock (a buffer is allocated under ptbts_percpu_lock,
 * which mmap() of the session takes with the mm's lock held).  Each
 * buffer is charged before it is allocated and refunded where it is freed
 * (a rollback, a failed join, a new start, the session's end: a mapping
 * holds the session's file, so that is the last munmap()).  A new start
 * while a buffer is mapped is refused (percpu.c): a mapping would keep
 * the freed pages, uncharged.
 */

/**
 * ptbts_percpu_set_owner() - charge the next buffers to the caller
 * @p: the mode, ptbts_percpu_lock held, no buffer held (none charged)
 *
 * Called at a start, by the session's owner (a user process: it has an mm).
 */
void ptbts_percpu_set_owner(struct ptbts_percpu *p)
{
	lockdep_assert_held(&ptbts_percpu_lock);
	if (p->owner.user)
		ptbts_owner_put(&p->owner);
	ptbts_owner_get(&p->owner);
}

static void ptbts_pcpu_free(struct ptbts_percpu *p, struct ptbts_pcpu *pc)
{
	if (!pc)
		return;
	/* A tracer's mapping holds its own references to the pages. */
	vfree(pc->buf);
	if (pc->buf)
		atomic_long_sub(pc->nr_pages, &ptbts_percpu_nr_pages);
	ptbts_owner_uncharge(&p->owner, pc->charged);
	kfree(pc->scratch);
	free_page((unsigned long)pc->own_area);
	kfree(pc);
}

static int ptbts_pcpu_alloc(void *ctx, unsigned int cpu)
{
	struct ptbts_percpu *p = ctx;
	u64 nslots = p->size / DS_BTS_RECORD;
	struct ds_win_cfg cfg = {
		.rec_size = DS_BTS_RECORD, .nslots = nslots, .mode = p->mode,
		.wakeup = nslots, .markers = true,
	};
	struct ptbts_pcpu *pc;
	int err;

	err = ptbts_percpu_test_alloc(cpu);
	if (err)
		return err;
	err = ptbts_owner_charge(&p->owner, p->size >> PAGE_SHIFT);
	if (err)
		return err;
	pc = kzalloc_node(sizeof(*pc), GFP_KERNEL, cpu_to_node(cpu));
	if (!pc) {
		ptbts_owner_uncharge(&p->owner, p->size >> PAGE_SHIFT);
		return -ENOMEM;
	}
	pc->charged = p->size >> PAGE_SHIFT;
	err = -ENOMEM;
	pc->nr_pages = p->size >> PAGE_SHIFT;
	pc->buf = vmalloc_user(p->size);
	if (!pc->buf)
		goto free;
	atomic_long_add(pc->nr_pages, &ptbts_percpu_nr_pages);
	/* A small buffer gets a smaller margin (the PMI latency it absorbs). */
	cfg.margin = min_t(u64, DS_MARGIN_DEFAULT, (nslots - 2) / 2);
	pc->scratch = kcalloc(DS_SCRATCH_RECS(cfg.margin), DS_BTS_RECORD,
			      GFP_KERNEL);
	pc->own_area = (struct ds_area *)get_zeroed_page(GFP_KERNEL);
	if (!pc->scratch || !pc->own_area)
		goto free;
	cfg.buf = pc->buf;
	cfg.scratch = pc->scratch;
	err = ds_win_init(&pc->ds.bts, &cfg);
	if (err)
		goto free;
	ds_task_init(&pc->ds, ds_debugctl_bts(true, true), pc->own_area);
	p->cpu[cpu] = pc;
	return 0;

free:
	ptbts_pcpu_free(p, pc);
	return err;
}

static void ptbts_pcpu_release(void *ctx, unsigned int cpu)
{
	struct ptbts_percpu *p = ctx;

	ptbts_pcpu_free(p, p->cpu[cpu]);
	p->cpu[cpu] = NULL;
}

/**
 * ptbts_percpu_pages() - pages of per-CPU buffers the module holds
 *
 * Return: the count, over every session (sysfs percpu_pages).
 */
long ptbts_percpu_pages(void)
{
	return atomic_long_read(&ptbts_percpu_nr_pages);
}

/* ---------------------------------------- on the CPU, interrupts off */

/**
 * struct ptbts_pcpu_call - an operation run on a CPU
 * @pc:  the CPU's recording
 * @err: what starting returned
 */
struct ptbts_pcpu_call {
	struct ptbts_pcpu *pc;
	int err;
};

static void ptbts_pcpu_in(struct ptbts_pcpu *pc, int *err)
{
	*err = ds_task_sched_in(ptbts_percpu_ds_ops(), &pc->ds, 0, 0);
	if (!*err)
		this_cpu_write(ptbts_percpu_cur, pc);
}

static void ptbts_pcpu_out(struct ptbts_pcpu *pc)
{
	this_cpu_write(ptbts_percpu_cur, NULL);
	ds_task_sched_out(ptbts_percpu_ds_ops(), &pc->ds, 0, 0);
	pc->count = pc->ds.bts.count;
	pc->lost = pc->ds.bts.lost;
}

static void ptbts_pcpu_start_here(void *arg)
{
	struct ptbts_pcpu_call *c = arg;

	c->err = ptbts_percpu_test_start(smp_processor_id());
	if (c->err)
		return;
	this_cpu_write(ptbts_percpu_switching, true);
	ptbts_pcpu_in(c->pc, &c->err);
	this_cpu_write(ptbts_percpu_switching, false);
}

static void ptbts_pcpu_stop_here(void *arg)
{
	struct ptbts_pcpu_call *c = arg;

	this_cpu_write(ptbts_percpu_switching, true);
	ptbts_pcpu_out(c->pc);
	this_cpu_write(ptbts_percpu_switching, false);
}

/*
 * Out and in again: the hardware's index is taken in, so that STATUS
 * reads what was stored up to now.  If someone else's BTS came on in the
 * meantime, the CPU stays out (ds_task_sched_in() owes a GAP marker).
 */
static void ptbts_pcpu_flush_here(void *arg)
{
	struct ptbts_pcpu_call *c = arg;

	this_cpu_write(ptbts_percpu_switching, true);
	if (this_cpu_read(ptbts_percpu_cur) == c->pc) {
		ptbts_pcpu_out(c->pc);
		ptbts_pcpu_in(c->pc, &c->err);
	}
	this_cpu_write(ptbts_percpu_switching, false);
}

/* Runs @fn on @cpu: an IPI, or directly from the CPU's hotplug callback. */
static int ptbts_pcpu_call(struct ptbts_percpu *p, unsigned int cpu,
			   smp_call_func_t fn)
{
	struct ptbts_pcpu_call c = { .pc = p->cpu[cpu] };
	int err;

	if (!c.pc)
		return -ENODEV;
	err = smp_call_function_single(cpu, fn, &c, 1);
	return err ?: c.err;
}

static int ptbts_pcpu_start(void *ctx, unsigned int cpu)
{
	return ptbts_pcpu_call(ctx, cpu, ptbts_pcpu_start_here);
}

static void ptbts_pcpu_stop(void *ctx, unsigned int cpu)
{
	ptbts_pcpu_call(ctx, cpu, ptbts_pcpu_stop_here);
}

/**
 * ptbts_percpu_flush() - take in what @cpu stored so far
 * @p:   the session's per-CPU mode, locked, hotplug held off
 * @cpu: a CPU that records
 */
void ptbts_percpu_flush(struct ptbts_percpu *p, unsigned int cpu)
{
	ptbts_pcpu_call(p, cpu, ptbts_pcpu_flush_here);
}

/**
 * ptbts_percpu_ops_init() - @p's callbacks for the DS state machine
 * @p: the session's per-CPU mode
 */
void ptbts_percpu_ops_init(struct ptbts_percpu *p)
{
	p->ops = (struct ds_percpu_ops){
		.ctx = p, .alloc = ptbts_pcpu_alloc,
		.release = ptbts_pcpu_release, .start = ptbts_pcpu_start,
		.stop = ptbts_pcpu_stop,
	};
}

/* ------------------------------------------------------------- the PMI */

/*
 * The threshold PMI of a recording CPU.  Whether it is ours is decided by
 * the index having reached the threshold (ds_task_pmi()), as for
 * kmod-bts, whose handler runs too and finds nothing of its own: its
 * threads' slices do not start on a CPU whose BTS is on.
 */
static int ptbts_percpu_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct ptbts_pcpu *pc;

	if (this_cpu_read(ptbts_percpu_switching)) {
		/* The switch takes the index as it is: the PMI is served. */
		apic_write(APIC_LVTPC, APIC_DM_NMI);
		return NMI_HANDLED;
	}
	pc = this_cpu_read(ptbts_percpu_cur);
	if (!pc)
		return NMI_DONE;
	if (!(ds_task_pmi(ptbts_percpu_ds_ops(), &pc->ds, 0, 0) & DS_PMI_OURS))
		return NMI_DONE;
	/* With no perf event active, perf's handler does not unmask it. */
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	return NMI_HANDLED;
}

/**
 * ptbts_percpu_nmi_get() - the PMI handler, for a session that starts
 *
 * Called with ptbts_percpu_lock held.
 *
 * Return: 0 or a negative errno.
 */
int ptbts_percpu_nmi_get(void)
{
	int err = 0;

	lockdep_assert_held(&ptbts_percpu_lock);
	if (!ptbts_percpu_nmi_users)
		err = register_nmi_handler(NMI_LOCAL, ptbts_percpu_nmi, 0,
					   "ptrace_bts_percpu");
	if (!err)
		ptbts_percpu_nmi_users++;
	return err;
}

/**
 * ptbts_percpu_nmi_put() - a session no longer records anywhere
 *
 * Called with ptbts_percpu_lock held, after its CPUs stopped.
 */
void ptbts_percpu_nmi_put(void)
{
	lockdep_assert_held(&ptbts_percpu_lock);
	if (!--ptbts_percpu_nmi_users)
		unregister_nmi_handler(NMI_LOCAL, "ptrace_bts_percpu");
}

/* ------------------------------------------------------------- hotplug */

/**
 * ptbts_percpu_add() - make a session's per-CPU mode seen by hotplug
 * @p: the mode, with ptbts_percpu_lock held
 */
void ptbts_percpu_add(struct ptbts_percpu *p)
{
	lockdep_assert_held(&ptbts_percpu_lock);
	list_add(&p->node, &ptbts_percpu_list);
}

/**
 * ptbts_percpu_del() - and no longer
 * @p: the mode, with ptbts_percpu_lock held
 */
void ptbts_percpu_del(struct ptbts_percpu *p)
{
	lockdep_assert_held(&ptbts_percpu_lock);
	list_del(&p->node);
}

/*
 * On the CPU coming online, in its hotplug thread.  A session that cannot
 * take it in (no memory, someone else's BTS) marks it failed; the CPU
 * comes online all the same.
 */
static int ptbts_percpu_cpu_online(unsigned int cpu)
{
	struct ptbts_percpu *p;

	if (cpu >= DS_PERCPU_MAX)
		return 0;
	mutex_lock(&ptbts_percpu_lock);
	list_for_each_entry(p, &ptbts_percpu_list, node)
		ds_percpu_online(&p->st, cpu);
	mutex_unlock(&ptbts_percpu_lock);
	return 0;
}

/*
 * On the CPU going offline, while it still runs code: flush and leave.
 * What it runs next is its reset and boot, unrecorded: if it joins again,
 * its stream goes on after a GAP marker (ds_task_sched_in() writes it),
 * so that no reader joins its last branch before leaving to its first
 * after coming back.
 */
static int ptbts_percpu_cpu_offline(unsigned int cpu)
{
	struct ptbts_percpu *p;

	if (cpu >= DS_PERCPU_MAX)
		return 0;
	mutex_lock(&ptbts_percpu_lock);
	list_for_each_entry(p, &ptbts_percpu_list, node) {
		ds_percpu_offline(&p->st, cpu);
		if ((p->st.left & (1ULL << cpu)) && p->cpu[cpu])
			p->cpu[cpu]->ds.gap = true;
	}
	mutex_unlock(&ptbts_percpu_lock);
	return 0;
}

/**
 * ptbts_percpu_hw_init() - the hotplug callbacks (no session yet)
 *
 * Registered whatever the CPU: a session can start at any time, and the
 * callbacks of a CPU without one cost a walk of an empty list.
 *
 * Return: 0 or a negative errno.
 */
int ptbts_percpu_hw_init(void)
{
	int ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					    "ptrace_bts/percpu:online",
					    ptbts_percpu_cpu_online,
					    ptbts_percpu_cpu_offline);

	if (ret < 0)
		return ret;
	ptbts_percpu_state = ret;
	return 0;
}

/**
 * ptbts_percpu_hw_exit() - remove them; no session is left
 */
void ptbts_percpu_hw_exit(void)
{
	cpuhp_remove_state_nocalls(ptbts_percpu_state);
}
