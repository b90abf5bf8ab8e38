/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptrace_bts: the module's internal interfaces.
 *
 * A session is an open file of /dev/ptrace_bts.  It belongs to the process
 * that opened it, which must be the ptrace tracer of every thread it
 * attaches.  Each attached thread has a buffer of the tracer's own pages,
 * pinned and charged to the tracer for as long as the thread is attached.
 */
#ifndef PTBTS_H
#define PTBTS_H

#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/ptrace_bts.h>

struct k_sigaction;
struct kernel_siginfo;
struct linux_binprm;
struct mm_struct;
struct page;
struct pid;
struct ptbts_percpu;
struct user_struct;
struct ptbts_step;
struct vm_area_struct;
struct task_struct;

/**
 * struct ptbts_owner - who pays for a buffer (charge.c)
 * @user:      the tracer's user, charged in @user->locked_vm (a reference)
 * @mm:        the tracer's mm at the charge, whose VmPin shows it
 *             (mmgrab'ed, so that the charge can be returned after the
 *             tracer has gone or exec'd)
 * @limit:     RLIMIT_MEMLOCK in pages, as of ptbts_owner_get()
 * @unlimited: the tracer had CAP_IPC_LOCK then
 */
struct ptbts_owner {
	struct user_struct *user;
	struct mm_struct *mm;
	unsigned long limit;
	bool unlimited;
};

/**
 * struct ptbts_buf - a record buffer: the tracer's pages, pinned and mapped
 * @pages:    the pinned pages, in address order
 * @nr_pages: how many
 * @vaddr:    the kernel's contiguous mapping of @pages (vmap)
 * @owner:    who @nr_pages are charged to
 */
struct ptbts_buf {
	struct page **pages;
	unsigned long nr_pages;
	void *vaddr;
	struct ptbts_owner owner;
};

/**
 * struct ptbts_ring - the positions in a record buffer, in kernel memory
 * @recs:      the slots (the buffer's kernel mapping)
 * @nslots:    how many records fit
 * @mode:      &enum ptbts_mode
 * @wakeup:    unread records that make the thread ready (at least 1)
 * @count:     records written since attach; the producer publishes it with
 *             smp_store_release() after the record, readers load it with
 *             smp_load_acquire()
 * @tail:      records acknowledged (ACK), the same way round: the consumer
 *             publishes, the producer acquires before reusing a slot
 * @lost:      records not written (STOP mode, a BLOCK wait cut short)
 * @slot:      producer only: the slot @count lands in (@count % @nslots,
 *             kept so that no record costs a division)
 * @lost_run:  producer only: records lost since the last LOST marker
 * @wq:        consumers waiting in WAIT
 * @room_wq:   a BLOCK-mode producer waiting for an ACK
 * @wake_work: wakes @wq and the session's poll queue from trap context
 *
 * See ring.c for the protocol between the producer and the consumer.
 */
struct ptbts_ring {
	struct ptbts_record *recs;
	u64 nslots;
	u32 mode;
	u64 wakeup;
	u64 count;
	u64 tail;
	u64 lost;
	u64 slot;
	u64 lost_run;
	u64 limit;	/* BLOCK, kmod-step: most records ever (0: none) */
	bool held;	/* the producer waits at @limit */
	wait_queue_head_t wq;
	wait_queue_head_t room_wq;
	struct irq_work wake_work;
};

/**
 * struct ptbts_session - the state behind one open file
 * @lock:    serialises the session's ioctls; protects @threads
 * @threads: the attached threads (&struct ptbts_thread.node)
 * @owner:   the process that opened the device, as a thread-group pid
 * @poll_wq: poll() waiters; woken when any thread becomes ready
 * @percpu:  its per-CPU mode, or NULL (under ptbts_percpu_lock, percpu.h)
 */
struct ptbts_session {
	struct mutex lock;	/* the session's ioctls, @threads */
	struct list_head threads;
	struct pid *owner;
	wait_queue_head_t poll_wq;
	struct ptbts_percpu *percpu;
};

/**
 * struct ptbts_thread - one attached thread
 * @node:         in &struct ptbts_session.threads, under its lock
 * @reg_node:     in the registry of live attachments, by @task
 *                (lifetime.c); unhashed once the attachment ended
 * @tracer_node:  in the registry, by @tracer
 * @ref:          one for the session, one for a queued release
 * @task:         the thread (a reference)
 * @tracer:       the thread that attached it, its ptrace tracer
 * @tid:          @task's id as the tracer sees it
 * @exec_id:      @task's self_exec_id at attach (ptbts_thread_linked())
 * @tracer_exec_id: @tracer's self_exec_id at attach
 * @source:       &enum ptbts_source
 * @mode:         &enum ptbts_mode
 * @gone:         0 while attached, else the final &enum ptbts_state
 *                (%PTBTS_STATE_EXITED or %PTBTS_STATE_DETACHED); set once,
 *                by cmpxchg(), by whoever ends the attachment
 * @session:      the session, which outlives the object's attachment
 * @ring:         the positions in @buf
 * @step:         the kmod-step state, or NULL
 * @buf:          the buffer; taken exactly once, by whoever releases it
 * @buf2:         the second region (kmod-pebs), or NULL; pinned and charged
 *                as @buf is, and released by whoever takes @buf, after the
 *                source stopped writing into it
 * @count2:       records written into @buf2 since attach (published as
 *                @ring.count is)
 * @nslots2:      records @buf2 holds, 0 until a source sets it
 * @rec_size2:    bytes per record of @buf2
 * @pebs_event:   kmod-pebs: the event it samples (event select, unit mask)
 * @pebs_period:  kmod-pebs: events per PEBS record
 * @release_work: releases @buf after the thread or its tracer exited
 * @chld_wait:    on the tracer's child-notification queue while @buf is
 *                held: the thread's ptrace stops wake WAIT and poll()
 *
 * The positions live here, in kernel memory: nothing the kernel reads back
 * from the buffer is trusted.
 */
struct ptbts_thread {
	struct list_head node;
	struct hlist_node reg_node;
	struct hlist_node tracer_node;
	refcount_t ref;
	struct task_struct *task;
	struct task_struct *tracer;
	pid_t tid;
	u64 exec_id;
	u64 tracer_exec_id;
	u32 source;
	u32 mode;
	u32 gone;
	struct ptbts_session *session;
	struct ptbts_ring ring;
	struct ptbts_step *step;
	struct ptbts_buf *buf;
	struct ptbts_buf *buf2;
	u64 count2;
	u64 nslots2;
	u32 rec_size2;
	u64 pebs_event;
	u64 pebs_period;
	struct work_struct release_work;
	struct wait_queue_entry chld_wait;
};

/**
 * struct ptbts_source_ops - what a recording source does for a thread
 * @has_buffer2: whether the source fills a second region
 * @start:       begin recording into @t's buffer (the thread is stopped)
 * @stop:        end recording; no write into the buffer may follow
 *
 * The attach calls @start once the buffer is pinned and the thread is
 * registered (attach.c); every source has both.
 */
struct ptbts_source_ops {
	bool has_buffer2;
	int (*start)(struct ptbts_thread *t);
	void (*stop)(struct ptbts_thread *t);
};

/* source.c */
u8 ptbts_source_unavail(u32 source);
const char *ptbts_unavail_name(u8 reason);
bool ptbts_source_uses_buffer2(u32 source);
const struct ptbts_source_ops *ptbts_source_get(u32 source, int *err);
bool ptbts_source_cut(struct ptbts_thread *t, u32 why);

/* caps.c */
long ptbts_ioctl_caps(void __user *uarg);
int ptbts_sysfs_init(void);
void ptbts_sysfs_exit(void);

/* ustruct.c */
int ptbts_get_usize(u32 *usize, const void __user *uarg, u32 min);
int ptbts_copy_out(void __user *uarg, u32 usize, const void *src,
		   size_t ksize);

/* config.c */
int ptbts_config_get(struct ptbts_config *cfg, const void __user *uarg);

/* charge.c */
void ptbts_owner_get(struct ptbts_owner *o);
void ptbts_owner_put(struct ptbts_owner *o);
int ptbts_owner_charge(const struct ptbts_owner *o, unsigned long nr);
void ptbts_owner_uncharge(const struct ptbts_owner *o, unsigned long nr);

/* pin.c */
int ptbts_buf_pin(struct ptbts_buf **out, unsigned long start,
		  unsigned long size);
void ptbts_buf_release(struct ptbts_buf *buf);
long ptbts_pinned_pages(void);

/* session.c */
struct ptbts_session *ptbts_session_new(void);
void ptbts_session_free(struct ptbts_session *s);
bool ptbts_session_is_owner(const struct ptbts_session *s);
struct ptbts_thread *ptbts_session_find(struct ptbts_session *s, pid_t tid);

/* thread.c */
struct ptbts_thread *ptbts_thread_new(struct ptbts_session *s,
				      struct task_struct *task,
				      const struct ptbts_config *cfg);
void ptbts_thread_watch(struct ptbts_thread *t);
void ptbts_thread_put(struct ptbts_thread *t);
void ptbts_thread_release(struct ptbts_thread *t);
void ptbts_thread_end(struct ptbts_thread *t);
void ptbts_thread_settle(struct ptbts_thread *t);
u32 ptbts_thread_state(const struct ptbts_thread *t);
bool ptbts_thread_ready(const struct ptbts_thread *t);

/* ring.c */
void ptbts_ring_init(struct ptbts_ring *r, const struct ptbts_config *cfg);
void ptbts_ring_start(struct ptbts_ring *r, struct ptbts_buf *buf);
void ptbts_ring_stop(struct ptbts_ring *r);
int ptbts_ring_put(struct ptbts_ring *r, u64 from, u64 to, u32 kind);
bool ptbts_ring_at_limit(const struct ptbts_ring *r);
void ptbts_ring_hold(struct ptbts_ring *r, bool on);
bool ptbts_ring_has_room(const struct ptbts_ring *r);
u64 ptbts_ring_unread(const struct ptbts_ring *r);
int ptbts_ring_ack(struct ptbts_ring *r, u64 tail);

/* wait.c */
long ptbts_ioctl_wait(struct ptbts_session *s, void __user *uarg);
long ptbts_ioctl_ack(struct ptbts_session *s, void __user *uarg);
__poll_t ptbts_poll_session(struct ptbts_session *s, struct file *file,
			    poll_table *pt);

/* step_table.c: the kmod-step source (its parts: step.h) */
int ptbts_step_init(void);
void ptbts_step_exit(void);
int ptbts_step_start(struct ptbts_thread *t);
void ptbts_step_stop(struct ptbts_thread *t);
void ptbts_step_task_exit(struct task_struct *p);
void ptbts_step_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			struct linux_binprm *bprm);
void ptbts_step_on_fork(void *data, struct task_struct *parent,
			struct task_struct *child);
void ptbts_step_on_signal(void *data, int sig, struct kernel_siginfo *info,
			  struct k_sigaction *ka);

/* attach.c */
long ptbts_ioctl_attach(struct ptbts_session *s, void __user *uarg);
long ptbts_ioctl_detach(struct ptbts_session *s, unsigned long tid);

/* status.c */
long ptbts_ioctl_status(struct ptbts_session *s, void __user *uarg);
void ptbts_status_fill(struct ptbts_status *st, const struct ptbts_thread *t,
		       u32 usize);

/* percpu.c: the per-CPU mode (percpu.h) */
long ptbts_ioctl_percpu_start(struct ptbts_session *s, void __user *uarg);
long ptbts_ioctl_percpu_stop(struct ptbts_session *s);
long ptbts_ioctl_percpu_status(struct ptbts_session *s, void __user *uarg);
int ptbts_percpu_mmap(struct ptbts_session *s, struct vm_area_struct *vma);
void ptbts_percpu_end(struct ptbts_session *s);
int ptbts_percpu_init(void);
void ptbts_percpu_exit(void);

/* hw_bts.c */
void ptbts_hw_exit(void);

/* lifetime.c */
int ptbts_lifetime_init(void);
void ptbts_lifetime_exit(void);
int ptbts_registry_add(struct ptbts_thread *t);
void ptbts_registry_del(struct ptbts_thread *t);
int ptbts_releases_queued(void);
void ptbts_release_work(struct work_struct *work);
bool ptbts_thread_linked(struct ptbts_thread *t);
bool ptbts_tracer_linked(const struct ptbts_thread *t);
bool ptbts_thread_unlink(struct ptbts_thread *t, u32 why);
bool ptbts_thread_cut(struct ptbts_thread *t, u32 why);
void ptbts_on_exit(void *data, struct task_struct *p);
void ptbts_on_exec(void *data, struct task_struct *p, pid_t old_pid,
		   struct linux_binprm *bprm);

/* tracepoints.c */
int ptbts_tracepoints_init(void);
void ptbts_tracepoints_exit(void);

#endif /* PTBTS_H */
