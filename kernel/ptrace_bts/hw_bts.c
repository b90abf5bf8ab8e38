// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the kmod-bts source.  The CPU's BTS stores each branch record
 * of the traced thread straight into the tracer's pinned pages, through
 * their vmap alias; no software is on the path of a record.
 *
 *  - Preempt notifiers of the thread (registered by the thread itself, from
 *    a task_work run before it next returns to user mode) point the DS
 *    area's BTS fields at the thread's window and turn BTS on, user mode
 *    only, at sched-in; at sched-out they turn it off, publish the position
 *    and give the DS area back (arch/x86/ds/ds_task.c).
 *  - The threshold PMI (an NMI) moves the window on, publishes, and wakes
 *    the tracer through irq_work; in BLOCK mode it makes the thread wait
 *    for room, in a task_work, before it runs user code again.
 *  - A fork or clone never inherits any of it: preempt notifiers are not
 *    copied to a child (__sched_fork() starts its list empty), DEBUGCTL is
 *    a per-CPU register this code turns off at every sched-out of the
 *    traced thread, and the DS fields are restored at the same moment, so
 *    the child's first slice starts with BTS off.
 *
 * The vmap alias is valid in every address space only without page-table
 * isolation, which is why ptbts_hw_unavail() refuses under PTI.
 *
 * Coexistence with perf, which owns IA32_DS_AREA whenever it has an event:
 * the choice is made in ds_task_sched_in() (arch/x86/ds/ds_task.c): the
 * installed DS area's BTS fields are borrowed for the slice and given back,
 * the MSR is never moved away from perf's area, and a slice that finds
 * someone else's BTS on is skipped (a GAP marker) rather than disturb it.
 * Attaching is refused while perf uses BTS on any CPU (hw_detect.c).
 *
 * This has not run on a real CPU with BTS.  Its logic (the DS code) is
 * tested against a simulated CPU (tests/sim/), and the module records on
 * QEMU's emulated CPU with BTS (tests/vcpu/, make test-vcpu); on QEMU's
 * default CPU only the refusals run.
 */
#include <linux/freezer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "hw.h"

/**
 * struct ptbts_hw - one thread recorded by the hardware
 * @node:       in ptbts_hw_list
 * @ref:        the attachment, the registered notifier, each queued
 *              task_work
 * @t:          the attachment
 * @task:       the thread (a reference)
 * @ds:         the DS state of its slices
 * @pn:         its preempt notifier
 * @reg_work:   registers @pn from the thread itself
 * @unreg_work: unregisters it, from the thread itself
 * @block_work: BLOCK: waits for room before user mode
 * @kick:       an interrupt after the NMI, so that @block_work runs soon
 * @block_queued: @block_work is queued
 * @registered: @pn is registered (only the thread changes it)
 * @stopping:   the attachment ends: no new slice may turn BTS on
 * @active:     a slice is running: BTS may be writing
 * @final:      the final GAP marker is written (ptbts_hw_final())
 * @scratch:    the DS code's scratch records
 * @scratch2:   the same for the PEBS region (kmod-pebs), or NULL
 * @own_area:   a DS area for CPUs where perf installed none
 * @reap:       unregisters @pn once an exiting thread is gone for good
 *
 * Each object holds a module reference until it is freed: its notifier
 * and its task_works are module code that a stopped thread can run long
 * after its attachment ended, so rmmod fails (EBUSY) until then instead of
 * waiting for the thread.
 */
struct ptbts_hw {
	struct list_head node;
	refcount_t ref;
	struct ptbts_thread *t;
	struct task_struct *task;
	struct ds_task ds;
	struct preempt_notifier pn;
	struct callback_head reg_work;
	struct callback_head unreg_work;
	struct callback_head block_work;
	struct irq_work kick;
	unsigned long block_queued;
	bool registered;
	bool stopping;
	bool active;
	bool final;
	u8 *scratch;
	u8 *scratch2;
	struct ds_area *own_area;
	struct delayed_work reap;
};

static DEFINE_PER_CPU(struct ptbts_hw *, ptbts_hw_cur);
/* The thread whose slice is being switched on this CPU, or NULL. */
static DEFINE_PER_CPU(struct ptbts_hw *, ptbts_hw_switching);
static LIST_HEAD(ptbts_hw_list);
static DEFINE_SPINLOCK(ptbts_hw_lock);
static DEFINE_MUTEX(ptbts_hw_nmi_lock);
static unsigned int ptbts_hw_nmi_users;
/* Preempt notifiers turned on by the first thread, off at the unload. */
static bool ptbts_hw_pn_on;

/*
 * The BTS region's acknowledged records.  The PEBS region (kmod-pebs) is a
 * ring with no ACK: the DS calls get 0 for its tail, which a ring ignores.
 */
static u64 ptbts_hw_tail(const struct ptbts_hw *hw)
{
	/* A, matches D of ptbts_ring_ack() (ring.c's protocol). */
	return smp_load_acquire(&hw->t->ring.tail);
}

/* The producer position, for STATUS, WAIT and poll (ring.c's protocol). */
static void ptbts_hw_publish(struct ptbts_hw *hw)
{
	struct ptbts_ring *r = &hw->t->ring;

	/* Pairs with READ_ONCE(@lost) in ptbts_status_fill(). */
	WRITE_ONCE(r->lost, hw->ds.bts.lost);
	/* B, matches C: BTS stored the records before DEBUGCTL went off. */
	smp_store_release(&r->count, hw->ds.bts.count);
	if (hw->ds.has_pebs)	/* B, matches C of ptbts_status_fill2() */
		smp_store_release(&hw->t->count2, hw->ds.pebs.count);
	/* @tail from D in ptbts_ring_ack(); only the wakeup depends on it. */
	if (hw->ds.bts.count - READ_ONCE(r->tail) >= r->wakeup)
		irq_work_queue(&r->wake_work);
}

/**
 * ptbts_hw_slice_here() - whether a thread of ours records on this CPU now
 *
 * Called with interrupts off (an IPI).  BTS on in DEBUGCTL is then the
 * module's own, not perf's.
 *
 * Return: true in a kmod-bts or kmod-pebs thread's slice.
 */
bool ptbts_hw_slice_here(void)
{
	return !!this_cpu_read(ptbts_hw_cur);
}

/*
 * The ptrace link ended (or the thread's exec left it non-dumpable): a GAP
 * marker (disabled) ends the stream, as kmod-step's does, once, before the
 * state reads DETACHED and the release wakes the tracer.  No slice runs
 * and none can start, so the region is the caller's alone: either the
 * thread itself between slices, with interrupts off, or ptbts_hw_cut()
 * after its IPI, which waits for that thread's section to end (and so
 * sees its @final).  Records BLOCK still held go in first, or count as
 * lost (ds_win_end()).  Where STOP and BLOCK have no room for it, the
 * marker is counted as lost, as every marker is (ds_win_marker()).
 */
static void ptbts_hw_final(struct ptbts_hw *hw)
{
	if (hw->final)
		return;
	hw->final = true;
	ds_win_end(&hw->ds.bts, ptbts_hw_tail(hw));
	ds_win_marker(&hw->ds.bts, ptbts_hw_tail(hw), PTBTS_KIND_GAP,
		      PTBTS_GAP_DISABLED);
	ptbts_hw_publish(hw);
}

static void ptbts_hw_in(struct ptbts_hw *hw)
{
	unsigned long flags;

	local_irq_save(flags);
	/*
	 * Already running: a wait for room that slept (ptbts_hw_block()) was
	 * switched back in by the notifier, which started the slice.  A
	 * second start would find BTS on, take it for someone else's and
	 * owe a GAP marker that no slice was missing.
	 */
	if (READ_ONCE(hw->active)) {
		local_irq_restore(flags);
		return;
	}
	this_cpu_write(ptbts_hw_switching, hw);
	/* Read on this CPU only: ptbts_hw_nmi(), ptbts_hw_out(). */
	WRITE_ONCE(hw->active, true);
	/*
	 * Pairs with smp_mb() in ptbts_hw_end(): this sees @stopping, or its
	 * IPI the slice.
	 */
	smp_mb();
	if (READ_ONCE(hw->stopping)) {
		WRITE_ONCE(hw->active, false);
	} else if (current->flags & PF_EXITING) {
		/*
		 * No user code runs again, and the exit probe ends the
		 * attachment (EXITED).  Past exit_mm() the check below would
		 * take the missing mm for a lost link and write a final GAP
		 * marker that no detach asked for.
		 */
		WRITE_ONCE(hw->active, false);
	} else if (!ptbts_thread_linked(hw->t)) {
		/* Every slice starts here: none starts past the ptrace link. */
		WRITE_ONCE(hw->active, false);
		ptbts_hw_final(hw);
		ptbts_thread_unlink(hw->t, PTBTS_STATE_DETACHED);
	} else {
		ds_task_sched_in(&ptbts_hw_ops, &hw->ds, ptbts_hw_tail(hw), 0);
		this_cpu_write(ptbts_hw_cur, hw);
	}
	this_cpu_write(ptbts_hw_switching, NULL);
	local_irq_restore(flags);
}

static void ptbts_hw_out(struct ptbts_hw *hw)
{
	unsigned long flags;

	local_irq_save(flags);
	if (READ_ONCE(hw->active)) {
		this_cpu_write(ptbts_hw_switching, hw);
		this_cpu_write(ptbts_hw_cur, NULL);
		ds_task_sched_out(&ptbts_hw_ops, &hw->ds, ptbts_hw_tail(hw), 0);
		ptbts_hw_publish(hw);
		this_cpu_write(ptbts_hw_switching, NULL);
		/*
		 * The slice's records are published before it reads as over.
		 * No acquire pairs with it: @active is read on this CPU only
		 * (ptbts_hw_nmi(), ptbts_hw_out()), and ptbts_hw_end() learns
		 * that the slice is over from on_each_cpu()'s wait.
		 */
		smp_store_release(&hw->active, false);
	}
	local_irq_restore(flags);
}

static void ptbts_hw_sched_in(struct preempt_notifier *pn, int cpu)
{
	ptbts_hw_in(container_of(pn, struct ptbts_hw, pn));
}

static void ptbts_hw_sched_out(struct preempt_notifier *pn,
			       struct task_struct *next)
{
	ptbts_hw_out(container_of(pn, struct ptbts_hw, pn));
}

static struct preempt_ops ptbts_hw_preempt_ops = {
	.sched_in	= ptbts_hw_sched_in,
	.sched_out	= ptbts_hw_sched_out,
};

static void ptbts_hw_free(struct ptbts_hw *hw)
{
	kfree(hw->scratch);
	kfree(hw->scratch2);
	free_page((unsigned long)hw->own_area);
	put_task_struct(hw->task);
	kfree(hw);
	/* main.c's synchronize_rcu_tasks() waits for the rest of this. */
	module_put(THIS_MODULE);
}

/* The last reference: nothing of the thread can reach the object. */
static void ptbts_hw_put(struct ptbts_hw *hw)
{
	if (!refcount_dec_and_test(&hw->ref))
		return;
	ptbts_hw_free(hw);
}

/* In the thread, before user mode: its notifier, and its first slice. */
static void ptbts_hw_register(struct callback_head *cb)
{
	struct ptbts_hw *hw = container_of(cb, struct ptbts_hw, reg_work);

	/* Pairs with WRITE_ONCE(@stopping) in ptbts_hw_end(). */
	if (!READ_ONCE(hw->stopping) && !(current->flags & PF_EXITING)) {
		refcount_inc(&hw->ref);
		preempt_disable();
		preempt_notifier_register(&hw->pn);
		/* Pairs with READ_ONCE(@registered) in ptbts_hw_reap(). */
		WRITE_ONCE(hw->registered, true);
		ptbts_hw_in(hw);
		preempt_enable();
	}
	ptbts_hw_put(hw);
}

/* In the thread: the end of recording, from its own context. */
static void ptbts_hw_unregister(struct callback_head *cb)
{
	struct ptbts_hw *hw = container_of(cb, struct ptbts_hw, unreg_work);
	bool was;

	preempt_disable();
	ptbts_hw_out(hw);
	was = hw->registered;
	if (was) {
		preempt_notifier_unregister(&hw->pn);
		WRITE_ONCE(hw->registered, false);
	}
	preempt_enable();
	if (was)
		ptbts_hw_put(hw);
	ptbts_hw_put(hw);
}

/*
 * BLOCK: the buffer is full; wait for the tracer's ACK, then go on.  The
 * wait is freezable and ends at any signal, PTRACE_INTERRUPT or group
 * stop, so that nothing that needs the thread first waits for the
 * tracer.  The held records stay in the scratch region: back in user
 * mode, the next threshold PMI finds no room and queues this wait again.
 */
static void ptbts_hw_block(struct callback_head *cb)
{
	struct ptbts_hw *hw = container_of(cb, struct ptbts_hw, block_work);
	struct ptbts_ring *r = &hw->t->ring;

	clear_bit(0, &hw->block_queued);
	/*
	 * Pairs with WRITE_ONCE(@stopping) in ptbts_hw_end(); in the wait,
	 * its wake_up_all() of @room_wq orders the store before the wakeup.
	 */
	if (!READ_ONCE(hw->stopping)) {
		/* Off while waiting; the records stay held (ds_win_arm()). */
		preempt_disable();
		ptbts_hw_out(hw);
		preempt_enable();
		wait_event_freezable(r->room_wq,
				     READ_ONCE(hw->stopping) ||
				     ds_win_room(&hw->ds.bts, ptbts_hw_tail(hw)));
		/* Unless the switch back in after a sleep started it. */
		preempt_disable();
		ptbts_hw_in(hw);
		preempt_enable();
	}
	ptbts_hw_put(hw);
}

static void ptbts_hw_kick(struct irq_work *work)
{
	/* Nothing: returning from this interrupt runs the thread's task_work. */
}

/*
 * The threshold PMI.  Only the thread's own CPU, while its slice runs,
 * has @ptbts_hw_cur set; whether the NMI is ours is decided by the index
 * having reached the threshold (ds_task_pmi()).  perf's handler runs too
 * and ignores it: its own BTS is off whenever ours is on.
 */
static int ptbts_hw_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct ptbts_hw *hw = this_cpu_read(ptbts_hw_switching);
	int res;

	if (hw) {
		/*
		 * The switch takes the index as it is: a PMI of this
		 * thread's is served by it.  Anyone else's (perf's, the
		 * watchdog's) is left to its handler, and LVTPC to it.
		 */
		if (!ds_task_pmi_pending(&hw->ds))
			return NMI_DONE;
		apic_write(APIC_LVTPC, APIC_DM_NMI);
		return NMI_HANDLED;
	}
	hw = this_cpu_read(ptbts_hw_cur);
	/* Pairs with WRITE_ONCE(@active) in ptbts_hw_in(), on this CPU. */
	if (!hw || !READ_ONCE(hw->active))
		return NMI_DONE;
	res = ds_task_pmi(&ptbts_hw_ops, &hw->ds, ptbts_hw_tail(hw), 0);
	if (!(res & DS_PMI_OURS))
		return NMI_DONE;
	ptbts_hw_publish(hw);
	if ((res & DS_PMI_BLOCK) && !test_and_set_bit(0, &hw->block_queued)) {
		/* The notifier's reference keeps @hw: this one is the work's. */
		refcount_inc(&hw->ref);
		if (task_work_add(hw->task, &hw->block_work, TWA_RESUME)) {
			clear_bit(0, &hw->block_queued);
			refcount_dec(&hw->ref);
		} else {
			irq_work_queue(&hw->kick);
		}
	}
	/* With no perf event active, perf's handler does not unmask it. */
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	return NMI_HANDLED;
}

/*
 * Also turns preempt notifiers on, once: their static key stays on until
 * the unload (ptbts_hw_exit()).  Each turn of the key patches the
 * scheduler's context switch with an int3 under every CPU
 * (text_poke_bp()); once per attachment, every attach and every end paid
 * for it.  QEMU's TCG (the tests' virtual CPU) can even keep the int3 of
 * a patch another CPU finished, and then loops on it for good.
 */
static int ptbts_hw_nmi_get(void)
{
	int err = 0;

	mutex_lock(&ptbts_hw_nmi_lock);
	if (!ptbts_hw_nmi_users)
		err = register_nmi_handler(NMI_LOCAL, ptbts_hw_nmi, 0,
					   "ptrace_bts");
	if (!err) {
		ptbts_hw_nmi_users++;
		if (!ptbts_hw_pn_on)
			preempt_notifier_inc();
		ptbts_hw_pn_on = true;
	}
	mutex_unlock(&ptbts_hw_nmi_lock);
	return err;
}

static void ptbts_hw_nmi_put(void)
{
	mutex_lock(&ptbts_hw_nmi_lock);
	if (!--ptbts_hw_nmi_users)
		unregister_nmi_handler(NMI_LOCAL, "ptrace_bts");
	mutex_unlock(&ptbts_hw_nmi_lock);
}

/* An IPI: if @arg's slice runs on this CPU, end it now. */
static void ptbts_hw_end_here(void *arg)
{
	struct ptbts_hw *hw = arg;

	if (this_cpu_read(ptbts_hw_cur) == hw)
		ptbts_hw_out(hw);
}

/**
 * ptbts_hw_cut() - no record of @t's thread from now on
 * @t:     the thread object, whose ptrace link (or dumpability) just ended,
 *         or whose thread exits
 * @final: the link ended: write the final GAP marker
 *
 * The moment the link ends, not at the thread's next slice: the thread may
 * be running on another CPU, where nothing else would end its slice.  As
 * in ptbts_hw_end(), @stopping keeps any new slice from turning BTS on and
 * an IPI ends the running one where it runs; then the marker goes after
 * the last record of that slice.  An exiting thread gets none: its
 * exit_group entry ends the stream.  Either way, records BLOCK still held
 * go in or count as lost (ds_win_end()).  Any context with interrupts on (the
 * exit and exec probes included); ptbts_hw_end() still ends the
 * attachment, from its release, which takes @hw off the list under
 * ptbts_hw_lock and so never overlaps this.
 */
void ptbts_hw_cut(struct ptbts_thread *t, bool final)
{
	struct ptbts_hw *hw;

	spin_lock(&ptbts_hw_lock);
	list_for_each_entry(hw, &ptbts_hw_list, node) {
		if (hw->t != t)
			continue;
		WRITE_ONCE(hw->stopping, true);
		/* Matches ptbts_hw_in()'s: it sees @stopping, or the IPI its slice. */
		smp_mb();
		on_each_cpu(ptbts_hw_end_here, hw, 1);
		if (final) {
			ptbts_hw_final(hw);
		} else {
			ds_win_end(&hw->ds.bts, ptbts_hw_tail(hw));
			ptbts_hw_publish(hw);
		}
		wake_up_all(&t->ring.room_wq);
		break;
	}
	spin_unlock(&ptbts_hw_lock);
}

/*
 * An exiting thread past its last task_works still switches until it is
 * dead, through its notifier: that is unregistered only once the thread
 * can no longer switch (task_gone.c), which takes kernel code only, no
 * user space.  A workqueue waits for it, not the tracer's close().
 */
static void ptbts_hw_reap(struct work_struct *work)
{
	struct ptbts_hw *hw = container_of(to_delayed_work(work),
					   struct ptbts_hw, reap);

	/* Pairs with WRITE_ONCE(@registered) in ptbts_hw_register(). */
	if (READ_ONCE(hw->registered) && !ptbts_task_gone(hw->task)) {
		schedule_delayed_work(&hw->reap, 1);
		return;
	}
	if (hw->registered) {
		preempt_notifier_unregister(&hw->pn);
		WRITE_ONCE(hw->registered, false);
		ptbts_hw_put(hw);
	}
	ptbts_hw_put(hw);
}

static int ptbts_hw_setup(struct ptbts_hw *hw, struct ptbts_thread *t)
{
	struct ptbts_ring *r = &t->ring;
	struct ds_win_cfg cfg = {
		.buf = t->buf->vaddr, .rec_size = DS_BTS_RECORD,
		.nslots = r->nslots, .mode = r->mode, .wakeup = r->wakeup,
		.markers = true,
	};

	/* A small buffer gets a smaller margin (the PMI latency it absorbs). */
	cfg.margin = min_t(u64, DS_MARGIN_DEFAULT, (r->nslots - 2) / 2);
	hw->scratch = kcalloc(DS_SCRATCH_RECS(cfg.margin), DS_BTS_RECORD,
			      GFP_KERNEL);
	hw->own_area = (struct ds_area *)get_zeroed_page(GFP_KERNEL);
	if (!hw->scratch || !hw->own_area)
		return -ENOMEM;
	cfg.scratch = hw->scratch;
	if (ds_win_init(&hw->ds.bts, &cfg))
		return -EINVAL;
	ds_task_init(&hw->ds, ds_debugctl_bts(true, false), hw->own_area);
	if (t->buf2)
		return ptbts_pebs_setup(&hw->ds, t, &hw->scratch2);
	return 0;
}

/* Also kmod-pebs's: PEBS is on as well when @t has a second region. */
int ptbts_hw_start(struct ptbts_thread *t)
{
	struct ptbts_hw *hw;
	u8 why;
	int err;

	why = ptbts_hw_unavail(t->source, true);
	if (why != PTBTS_OK)
		return ptbts_hw_errno(why);
	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	/* The caller's session holds a reference: the module is live. */
	__module_get(THIS_MODULE);
	/* The attachment's reference and the queued registration's. */
	refcount_set(&hw->ref, 2);
	hw->t = t;
	hw->task = t->task;
	get_task_struct(hw->task);
	init_irq_work(&hw->kick, ptbts_hw_kick);
	init_task_work(&hw->reg_work, ptbts_hw_register);
	init_task_work(&hw->unreg_work, ptbts_hw_unregister);
	init_task_work(&hw->block_work, ptbts_hw_block);
	INIT_DELAYED_WORK(&hw->reap, ptbts_hw_reap);
	preempt_notifier_init(&hw->pn, &ptbts_hw_preempt_ops);
	err = ptbts_hw_setup(hw, t);
	if (err)
		goto free;
	err = ptbts_hw_nmi_get();
	if (err)
		goto free;
	/* The thread is in a ptrace stop: this runs when it is resumed. */
	err = task_work_add(hw->task, &hw->reg_work, TWA_RESUME);
	if (err)
		goto nmi_put;
	spin_lock(&ptbts_hw_lock);
	list_add(&hw->node, &ptbts_hw_list);
	spin_unlock(&ptbts_hw_lock);
	return 0;

nmi_put:
	ptbts_hw_nmi_put();
free:
	ptbts_hw_free(hw);
	return err;
}

static struct ptbts_hw *ptbts_hw_take(struct ptbts_thread *t)
{
	struct ptbts_hw *hw, *found = NULL;

	spin_lock(&ptbts_hw_lock);
	list_for_each_entry(hw, &ptbts_hw_list, node) {
		if (hw->t == t) {
			list_del(&hw->node);
			found = hw;
			break;
		}
	}
	spin_unlock(&ptbts_hw_lock);
	return found;
}

/*
 * Ends recording, without waiting for the thread, which may be anywhere:
 * stopped, running, sleeping, exiting.  @stopping keeps any new slice
 * from turning BTS on, and an IPI to every CPU ends the running slice, if
 * there is one, on the CPU that runs it (ptbts_hw_in() and ptbts_hw_out()
 * run with interrupts off, so a slice is either over before the IPI or
 * started after @stopping was seen).  When this returns, BTS no longer
 * writes into the buffer.  The notifier is unregistered by the thread
 * itself (its unregister task_work) whenever it next goes to user mode or
 * exits; the object and the module live until then (their references).
 * A thread already past its task_works at exit is left to ptbts_hw_reap().
 *
 * Return: whether @t was recording (a second call finds nothing).
 */
bool ptbts_hw_end(struct ptbts_thread *t)
{
	struct ptbts_hw *hw = ptbts_hw_take(t);

	if (!hw)
		return false;
	WRITE_ONCE(hw->stopping, true);
	/*
	 * Pairs with smp_mb() in ptbts_hw_in(): it sees @stopping, or the
	 * IPI its slice.
	 */
	smp_mb();
	wake_up_all(&t->ring.room_wq);
	refcount_inc(&hw->ref);
	if (task_work_add(hw->task, &hw->unreg_work, TWA_RESUME)) {
		/* The work's reference goes to the reaper. */
		schedule_delayed_work(&hw->reap, 0);
	}
	on_each_cpu(ptbts_hw_end_here, hw, 1);
	ptbts_hw_publish(hw);
	irq_work_sync(&hw->kick);
	ptbts_hw_nmi_put();
	ptbts_hw_put(hw);
	return true;
}

void ptbts_hw_stop(struct ptbts_thread *t)
{
	ptbts_hw_end(t);
}

/**
 * ptbts_hw_exit() - the unload: preempt notifiers off, if they were on
 *
 * Every object is freed by then (each holds a module reference), so no
 * notifier of ours is registered.
 */
void ptbts_hw_exit(void)
{
	if (ptbts_hw_pn_on)
		preempt_notifier_dec();
}

const struct ptbts_source_ops ptbts_bts_ops = {
	.has_buffer2	= false,
	.start		= ptbts_hw_start,
	.stop		= ptbts_hw_stop,
};
