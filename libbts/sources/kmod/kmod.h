/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The kmod sources (kmod-step, kmod-bts, kmod-pebs): the ptrace_bts module records
 * while libbts keeps the ptrace side (seize, events, threads, exit).  Threads run with PTRACE_CONT;
 * their records arrive in pages of ours that the module pinned, and are
 * taken from there to the writer.
 *
 * kmod_probe.c   is the device there, and does it offer a source
 * kmod_source.c  one thread: its buffer, attach, reading its records;
 *                the source's operations (bts_kmod_step_ops)
 * kmod_pebs.c    kmod-pebs: kmod-bts and a second region of PEBS records
 * ../producer/   the event loop's wait (ready_wait.c): waitpid reports
 *                and records at once
 */
#ifndef BTS_KMOD_H
#define BTS_KMOD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"
#include "sources/producer/ready_wait.h"

struct bts_session;
struct bts_thread;

/* The session's side of the device. */
struct bts_kmod {
	int fd;			/* the session fd, from open(PTBTS_DEVICE) */
	struct bts_ready_wait rw;	/* on @fd */
	size_t page;
	size_t share;		/* BLOCK: at most this much buffer (0: any) */
	bool lazy;		/* no thread attached unless asked (a debugger's) */
	/* kmod-pebs: the module's PEBS format and bytes per record. */
	unsigned int pebs_format;
	size_t pebs_size;
};

/* One attached thread. */
struct bts_kmod_thread {
	pid_t ktid;		/* the tid the module knows (an exec changes ours) */
	struct ptbts_record *buf;
	size_t size;		/* bytes mapped */
	uint64_t nslots;
	uint64_t tail;		/* records taken since attach */
	uint64_t lost_marked;	/* lost records the module's markers told */
	/* kmod-pebs's second region: PEBS records, a ring (kmod_pebs.c). */
	uint8_t *buf2;
	size_t size2;		/* bytes mapped */
	uint64_t nslots2;
	uint64_t tail2;		/* records taken (or counted lost) since attach */
	bool attached;
	/*
	 * A debugger's numbering (control_kmod.c): the records of the
	 * attachments before this one, and the gap marker between them.
	 */
	uint64_t base;
	uint64_t count;		/* records since attach, as STATUS said last */
	bool count_ok;		/* @count holds: the thread did not run since */
};

/* The session's device and a thread's buffer, behind the opaque pointers. */
#define bts_kmod_of(s)	((struct bts_kmod *)(s)->src)
#define bts_kmod_thr(t)	((struct bts_kmod_thread *)(t)->src)

/* kmod_probe.c */
/* The module's capabilities (our ABI version), or false with @why filled. */
bool bts_kmod_caps(struct ptbts_caps *c, char *why, size_t len);
/* An &enum ptbts_unavail reason in words, into @why. */
void bts_kmod_unavail_text(unsigned int u, char *why, size_t len);
/*
 * Fills @si for a kmod source: available when the device opens, speaks
 * our ABI version and offers @source.
 */
void bts_kmod_probe(int source, struct bts_source_info *si);
/*
 * For a session's requested source: PTBTS_SOURCE_KMOD_BTS (or _PEBS) when
 * asked for and usable, PTBTS_SOURCE_KMOD_STEP likewise (or when @want is auto), 0
 * when auto finds kmod-step unusable, or -BTS_E_NOSOURCE with the reason.
 */
int bts_kmod_pick(int want);

/* kmod_source.c: the kmod-step source (bts_kmod_step_ops) */
int bts_kmod_open(struct bts_session *s);
void bts_kmod_close(struct bts_session *s);
/* At a thread's first stop: attach it; it then runs with PTRACE_CONT. */
void bts_kmod_start(struct bts_session *s, struct bts_thread *t);
/*
 * Attaches the ptrace-stopped @t with a buffer of @size bytes (rounded up
 * to pages); its state (bts_kmod_thr(t)) is set even when it fails (bts_kmod_forget() frees
 * it), and kt->attached says whether it worked (not: the thread is gone).
 */
int bts_kmod_attach(struct bts_session *s, struct bts_thread *t, uint64_t size);
/* At an exec stop (the module wrote the exec marker already). */
void bts_kmod_exec(struct bts_session *s, struct bts_thread *t);
/*
 * Records to the writer.  @final: the thread produces no more for now
 * (a stop, its exit): every mode gives up what it holds.  Otherwise only
 * BLOCK mode reads (and acknowledges); 1 when it read anything.
 */
int bts_kmod_drain(struct bts_session *s, struct bts_thread *t, bool final);
/* The source's drain: everything, as at a stop. */
void bts_kmod_drain_final(struct bts_session *s, struct bts_thread *t);
/* The thread leaves the session: detach it from the module, free. */
void bts_kmod_forget(struct bts_session *s, struct bts_thread *t);
/* STATUS of @kt's thread into @st: 0 or -errno. */
long bts_kmod_status(struct bts_session *s, struct bts_kmod_thread *kt,
		     struct ptbts_status *st);
/* ioctl() on the session fd: -errno or its result. */
long bts_kmod_ioctl(struct bts_kmod *k, unsigned long cmd, unsigned long arg);

/* kmod_pebs.c */
/* kmod-pebs's session: the module's PEBS format; 0 or -BTS_E_*. */
int bts_kmod_pebs_open(struct bts_session *s);
/* Maps @kt's PEBS region and fills @c's PEBS fields: 0 or -ENOMEM. */
long bts_kmod_pebs_map(struct bts_session *s, struct bts_kmod_thread *kt,
		       struct ptbts_config *c);
void bts_kmod_pebs_unmap(struct bts_kmod_thread *kt);
/* The PEBS records written up to @st, to the writer. */
void bts_kmod_pebs_drain(struct bts_session *s, struct bts_thread *t,
			 const struct ptbts_status *st);

/*
 * What every kmod source does the same (each opens the session its own
 * way): the module records every thread it is given, ptrace keeps the rest.
 */
#define KMOD_OPS					\
	.close = bts_kmod_close,			\
	.attach = bts_kmod_start,			\
	.detach = bts_kmod_forget,			\
	.exec = bts_kmod_exec,				\
	.drain = bts_kmod_drain_final,			\
	.wait = bts_kmod_wait

/*
 * A source of the CPU's own records (kmod-bts, kmod-pebs): no debugger,
 * no breakpoints; only how it is picked and opened is its own.
 */
#define KMOD_HW_SOURCE(source_id, pick_fn, open_fn)	\
	{						\
		.id = (source_id),			\
		.caps = BTS_SRC_ABI32 | BTS_SRC_NOBP,	\
		.pick = (pick_fn),			\
		.open = (open_fn),			\
		KMOD_OPS,				\
	}

/*
 * waitpid(-1, status, __WALL) for a kmod session: while no report is
 * there, BLOCK-mode records are taken as the module says they are ready
 * (../producer/ready_wait.c).  Returns the tid, or -1 with errno (EINTR:
 * a signal, look at s->stop).
 */
pid_t bts_kmod_wait(struct bts_session *s, int *status);

#endif /* BTS_KMOD_H */
