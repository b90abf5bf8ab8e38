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

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/ptrace_bts.h>

struct mm_struct;
struct page;
struct pid;
struct task_struct;

/**
 * struct ptbts_buf - a record buffer: the tracer's pages, pinned and mapped
 * @pages:    the pinned pages, in address order
 * @nr_pages: how many
 * @vaddr:    the kernel's contiguous mapping of @pages (vmap)
 * @mm:       the tracer's mm, which @nr_pages are charged to (mmgrab'ed, so
 *            that the charge can be returned after the tracer is gone)
 */
struct ptbts_buf {
	struct page **pages;
	unsigned long nr_pages;
	void *vaddr;
	struct mm_struct *mm;
};

/**
 * struct ptbts_session - the state behind one open file
 * @lock:    serialises the session's ioctls; protects @threads
 * @threads: the attached threads (&struct ptbts_thread.node)
 * @owner:   the process that opened the device, as a thread-group pid
 */
struct ptbts_session {
	struct mutex lock;
	struct list_head threads;
	struct pid *owner;
};

/**
 * struct ptbts_thread - one attached thread
 * @node:         in &struct ptbts_session.threads, under its lock
 * @reg_node:     in the registry of live attachments (lifetime.c); empty
 *                once the thread or its tracer has gone
 * @ref:          one for the session, one for a queued release
 * @task:         the thread (a reference)
 * @tracer:       the thread that attached it, its ptrace tracer
 * @tid:          @task's id as the tracer sees it
 * @source:       &enum ptbts_source
 * @mode:         &enum ptbts_mode
 * @gone:         0 while attached, else the final &enum ptbts_state
 *                (%PTBTS_STATE_EXITED or %PTBTS_STATE_DETACHED)
 * @wakeup:       bytes of unread records that wake a waiter
 * @head:         producer position, a byte offset in the buffer
 * @wraps:        times @head went back to 0
 * @lost:         records not written
 * @buf:          the buffer; taken exactly once, by whoever releases it
 * @release_work: releases @buf after the thread or its tracer exited
 *
 * The positions live here, in kernel memory: nothing the kernel reads back
 * from the buffer is trusted.
 */
struct ptbts_thread {
	struct list_head node;
	struct list_head reg_node;
	refcount_t ref;
	struct task_struct *task;
	struct task_struct *tracer;
	pid_t tid;
	u32 source;
	u32 mode;
	u32 gone;
	u64 wakeup;
	u64 head;
	u64 wraps;
	u64 lost;
	struct ptbts_buf *buf;
	struct work_struct release_work;
};

/**
 * struct ptbts_source_ops - what a recording source does for a thread
 * @has_buffer2: whether the source fills a second region
 * @start:       begin recording into @t's buffer (the thread is stopped)
 * @stop:        end recording; no write into the buffer may follow
 *
 * A source whose @start is NULL is accepted and records nothing (kmod-step
 * until its recorder lands).
 */
struct ptbts_source_ops {
	bool has_buffer2;
	int (*start)(struct ptbts_thread *t);
	void (*stop)(struct ptbts_thread *t);
};

/* source.c */
u8 ptbts_source_unavail(u32 source);
const char *ptbts_unavail_name(u8 reason);
const struct ptbts_source_ops *ptbts_source_get(u32 source, int *err);

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
struct ptbts_thread *ptbts_thread_new(struct task_struct *task,
				      const struct ptbts_config *cfg);
void ptbts_thread_put(struct ptbts_thread *t);
void ptbts_thread_release(struct ptbts_thread *t);
void ptbts_thread_end(struct ptbts_thread *t);
u32 ptbts_thread_state(const struct ptbts_thread *t);

/* attach.c */
long ptbts_ioctl_attach(struct ptbts_session *s, void __user *uarg);
long ptbts_ioctl_detach(struct ptbts_session *s, unsigned long tid);

/* status.c */
long ptbts_ioctl_status(struct ptbts_session *s, void __user *uarg);

/* lifetime.c */
int ptbts_lifetime_init(void);
void ptbts_lifetime_exit(void);
int ptbts_registry_add(struct ptbts_thread *t);
void ptbts_registry_del(struct ptbts_thread *t);
void ptbts_flush_releases(void);
void ptbts_release_work(struct work_struct *work);

#endif /* PTBTS_H */
