// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The kmod sources (kmod-step, kmod-bts, kmod-pebs), one thread at a time.  At its first stop a thread
 * gets a buffer of anonymous pages and is attached to the session fd; the
 * module then records into those pages while the thread runs with
 * PTRACE_CONT.  Positions come from STATUS (head and wraps give the records
 * written since attach), never from the buffer.
 *
 * What is read when follows the modes of the ptrace-step source, so that
 * both give the same trace:
 *   BLOCK  records are taken whenever the module says they are ready, and
 *          acknowledged: the thread waits for room, nothing is lost;
 *          kmod-step's thread is attached with what --max-size leaves
 *          as its limit, and waits at its record past it (HELD): the
 *          cut kills it there;
 *   RING   nothing is taken until the thread stops for good (exit, exec of
 *          a thread that takes over, detach): the newest buffer-full
 *          survives, after a LOST marker for what was overwritten;
 *   STOP   the same, but the module kept the oldest and counted the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "session/session.h"
#include "sources/kmod/kmod.h"
#include "sources/producer/records_out.h"

#define REC sizeof(struct ptbts_record)

long bts_kmod_ioctl(struct bts_kmod *k, unsigned long cmd, unsigned long arg)
{
	long r = ioctl(k->fd, cmd, arg);

	return r < 0 ? -errno : r;
}

int bts_kmod_open(struct bts_session *s)
{
	struct bts_kmod *k = calloc(1, sizeof(*k));

	if (!k)
		return bts_fail(BTS_E_NOMEM, "kmod session");
	k->fd = open(PTBTS_DEVICE, O_RDWR | O_CLOEXEC);
	if (k->fd < 0) {
		free(k);
		return bts_fail_errno(BTS_E_NOSOURCE, "cannot open " PTBTS_DEVICE);
	}
	bts_ready_wait_init(&k->rw, k->fd, bts_kmod_drain);
	k->page = (size_t)sysconf(_SC_PAGESIZE);
	k->share = bts_memlock_share(k->page);
	s->src = k;
	/* No int3 is ever planted: vfork children need no running through. */
	s->bp_off = true;
	return 0;
}

void bts_kmod_close(struct bts_session *s)
{
	struct bts_kmod *k = bts_kmod_of(s);

	if (!k)
		return;
	bts_ready_wait_end(&k->rw);
	close(k->fd);	/* the module lets go of every thread still attached */
	free(k);
	s->src = NULL;
}

static int attach_err(pid_t tid, int source, long err, uint64_t size)
{
	switch (err) {
	case -ENOMEM:
		return bts_fail(BTS_E_NOMEM, "thread %d: a buffer of %llu bytes cannot "
				"be locked in memory (RLIMIT_MEMLOCK: raise ulimit -l, or "
				"use a smaller --buffer)", (int)tid,
				(unsigned long long)size);
	case -EPERM:
		return bts_fail(BTS_E_PERM, "thread %d: the module refused the attach: "
				"not its tracer", (int)tid);
	case -EOPNOTSUPP:
		return bts_fail(BTS_E_NOSOURCE, "thread %d: %s cannot record here",
				(int)tid, bts_source_name(source));
	default:
		return bts_fail(BTS_E_INTERNAL, "thread %d: attaching to " PTBTS_DEVICE
				": %s", (int)tid, strerror((int)-err));
	}
}

static long attach_once(struct bts_session *s, struct bts_thread *t,
			struct bts_kmod_thread *kt)
{
	struct ptbts_config c = {
		.size = sizeof(c),
		.tid = (__u32)t->tid,
		.source = (__u32)s->source,
		.mode = (__u32)s->mode,
		.buffer_size = kt->size,
	};

	kt->nslots = kt->size / REC;
	kt->buf = mmap(NULL, kt->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (kt->buf == MAP_FAILED) {
		kt->buf = NULL;
		return -ENOMEM;
	}
	c.buffer = (uintptr_t)kt->buf;
	/*
	 * The module holds the thread at the record past --max-size.  A
	 * limit of 0 would be none: a thread born when the bound is used up
	 * exactly would make its first record past it, so the cut is now.
	 */
	if (s->mode == PTBTS_MODE_BLOCK && s->source == PTBTS_SOURCE_KMOD_STEP) {
		c.limit = bts_limits_left(s);
		if (s->max_records && !c.limit)
			bts_limits_passed(s);
	}
	if (s->source == PTBTS_SOURCE_KMOD_PEBS &&
	    bts_kmod_pebs_map(s, kt, &c))
		return -ENOMEM;
	return bts_kmod_ioctl(bts_kmod_of(s), PTBTS_IOC_ATTACH, (unsigned long)&c);
}

/*
 * Past RLIMIT_MEMLOCK, a BLOCK-mode thread takes a smaller buffer (see
 * memlock_share()): it loses nothing either way, it only wakes its tracer
 * more often.  In the other modes the size is what the trace keeps: no
 * silent change.
 */
static int attach(struct bts_session *s, struct bts_thread *t,
		  struct bts_kmod_thread *kt)
{
	size_t want = kt->size, page = bts_kmod_of(s)->page;
	long r;

	for (;;) {
		r = attach_once(s, t, kt);
		if (r != -ENOMEM || s->mode != PTBTS_MODE_BLOCK ||
		    kt->size <= page || !kt->buf)
			break;
		munmap(kt->buf, kt->size);
		bts_kmod_pebs_unmap(kt);
		kt->size = (kt->size / 2 + page - 1) / page * page;
	}
	if (r == -ESRCH)
		return 0;	/* killed meanwhile: its exit is on the way */
	if (r)
		return attach_err(t->tid, s->source, r, want);
	kt->attached = true;
	return 0;
}

int bts_kmod_attach(struct bts_session *s, struct bts_thread *t, uint64_t size)
{
	struct bts_kmod_thread *kt = calloc(1, sizeof(*kt));
	size_t page = bts_kmod_of(s)->page;

	if (!kt)
		return bts_fail(BTS_E_NOMEM, "thread %d", (int)t->tid);
	kt->ktid = t->tid;
	kt->size = (size + page - 1) / page * page;
	if (s->mode == PTBTS_MODE_BLOCK && bts_kmod_of(s)->share &&
	    kt->size > bts_kmod_of(s)->share)
		kt->size = bts_kmod_of(s)->share;
	t->src = kt;
	return attach(s, t, kt);
}

void bts_kmod_start(struct bts_session *s, struct bts_thread *t)
{
	t->started = true;
	/* A debugger's session: gdb says which threads record (control_kmod.c). */
	if (t->shadow || bts_kmod_thr(t) || bts_kmod_of(s)->lazy)
		return;
	bts_note_err(s, bts_kmod_attach(s, t, s->buffer_size));
}

/* ---------------------------------------------------------------- reading */

/* Both halves of x86-64 are told apart by bit 63. */
static bool kernel_record(const struct ptbts_record *r)
{
	return (r->from | r->to) >> 63;
}

/*
 * kmod-bts: the CPU also records each entry into the kernel from user
 * mode (a syscall, an interrupt, an exception: {user -> kernel}).  A
 * thread's trace holds user addresses only: those are dropped, and the
 * runs of user records between them go to the writer as they lie.
 */
static void write_user_recs(struct bts_session *s, struct bts_thread *t,
			    const struct ptbts_record *r, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		if (!kernel_record(&r[i]))
			continue;
		bts_src_write(s, t, r + start, i - start);
		start = i + 1;
	}
	bts_src_write(s, t, r + start, n - start);
}

/*
 * A run of the module's buffer to the writer; the module's own LOST
 * markers (STOP mode) count as told.
 */
static void take_run(struct bts_session *s, struct bts_thread *t,
		     const struct ptbts_record *r, size_t n)
{
	struct bts_kmod_thread *kt = bts_kmod_thr(t);
	size_t i;

	for (i = 0; i < n; i++)
		if (!r[i].from && PTBTS_KIND(r[i].flags) == PTBTS_KIND_LOST)
			kt->lost_marked += r[i].to;
	write_user_recs(s, t, r, n);
}

long bts_kmod_status(struct bts_session *s, struct bts_kmod_thread *kt,
		     struct ptbts_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->tid = (__u32)kt->ktid;
	return bts_kmod_ioctl(bts_kmod_of(s), PTBTS_IOC_STATUS, (unsigned long)st);
}

static void ack(struct bts_session *s, struct bts_kmod_thread *kt)
{
	struct ptbts_ack a = {
		.size = sizeof(a),
		.tid = (__u32)kt->ktid,
		.tail = kt->tail,
	};
	long r = bts_kmod_ioctl(bts_kmod_of(s), PTBTS_IOC_ACK, (unsigned long)&a);

	if (r && r != -ESRCH)
		bts_note_err(s, bts_fail(BTS_E_INTERNAL, "thread %d: ack: %s",
					 (int)kt->ktid, strerror((int)-r)));
}

int bts_kmod_drain(struct bts_session *s, struct bts_thread *t, bool final)
{
	struct bts_kmod_thread *kt = bts_kmod_thr(t);
	struct ptbts_status st;
	uint64_t count, before;
	long r;

	if (!kt || !kt->attached || (!final && s->mode != PTBTS_MODE_BLOCK))
		return 0;
	bts_proc_enter(s, t->proc);	/* a followed child's maps, if its */
	r = bts_kmod_status(s, kt, &st);
	if (r == -ESRCH) {
		/* The module no longer knows the thread: a hole from here. */
		kt->attached = false;
		bts_src_write_gap(s, t);
	}
	if (r) {
		if (r != -ESRCH)
			bts_note_err(s, bts_fail(BTS_E_INTERNAL, "thread %d: status: %s",
						 (int)kt->ktid, strerror((int)-r)));
		return 0;
	}
	count = st.wraps * kt->nslots + st.head / REC;
	before = kt->tail;
	bts_src_take(s, t, kt->buf, kt->nslots, &kt->tail, count, take_run);
	bts_kmod_pebs_drain(s, t, &st);
	if (s->mode == PTBTS_MODE_BLOCK && kt->tail != before &&
	    st.state <= PTBTS_STATE_STOPPED)
		ack(s, kt);
	/* Waiting at its record past --max-size: the cut kills it there. */
	if (st.state == PTBTS_STATE_HELD)
		bts_limits_passed(s);
	if (s->mode == PTBTS_MODE_STOP && final && st.lost > kt->lost_marked) {
		bts_src_write_lost(s, t, st.lost - kt->lost_marked);
		kt->lost_marked = st.lost;
	}
	return kt->tail != before;
}

/* ------------------------------------------------------------ exec, end */

/* kmod-step's exec marker, where the new image starts (the pc now). */
static void exec_marker(struct bts_session *s, struct bts_thread *t)
{
	struct ptbts_record exec = { .flags = PTBTS_MKKIND(PTBTS_KIND_EXEC) };
	struct user_regs_struct regs;

	if (bts_thread_getregs(s, t, &regs))
		return;
	exec.to = regs.rip;
	bts_src_write(s, t, &exec, 1);
}

void bts_kmod_exec(struct bts_session *s, struct bts_thread *t)
{
	int is64 = bts_proc_is_64bit(bts_thread_pid(s, t));
	struct ptbts_record gap = {
		.to = PTBTS_GAP_DISABLED,
		.flags = PTBTS_MKKIND(PTBTS_KIND_GAP),
	};
	uint64_t entry;

	/*
	 * The old image's records (the exec marker last), then the EXEC
	 * chunk of the process (any process followed), its maps.
	 * kmod-step's marker is the module's; the CPU writes none for
	 * kmod-bts and kmod-pebs: libbts does, after every record of the
	 * old image.
	 */
	if (s->source != PTBTS_SOURCE_KMOD_STEP) {
		bts_kmod_drain(s, t, true);
		exec_marker(s, t);
	} else {
		bts_kmod_drain(s, t, is64 < 0);
	}
	bts_proc_exec(s, t, &entry);
	bts_maps_write_all(s);
	/* The module steps a 32-bit image too. */
	if (is64 >= 0 || !bts_kmod_thr(t))
		return;
	/* Of no known bitness (gone): not traced on, its exit is kept. */
	bts_kmod_forget(s, t);
	bts_src_write(s, t, &gap, 1);
}

void bts_kmod_forget(struct bts_session *s, struct bts_thread *t)
{
	struct bts_kmod_thread *kt = bts_kmod_thr(t);

	if (!kt)
		return;
	if (kt->attached && bts_kmod_of(s))
		bts_kmod_ioctl(bts_kmod_of(s), PTBTS_IOC_DETACH, (unsigned long)kt->ktid);
	if (kt->buf)
		munmap(kt->buf, kt->size);
	bts_kmod_pebs_unmap(kt);
	free(kt);
	t->src = NULL;
}

/* ------------------------------------------------------------- the source */

static int kmod_step_pick(int want, int mode)
{
	(void)mode;
	if (want != 0 && want != BTS_SOURCE_AUTO && want != PTBTS_SOURCE_KMOD_STEP)
		return 0;
	return bts_kmod_pick(want);
}

/* kmod-bts is recorded only when asked for by name: auto takes kmod-step. */
static int kmod_bts_pick(int want, int mode)
{
	(void)mode;
	if (want != PTBTS_SOURCE_KMOD_BTS)
		return 0;
	return bts_kmod_pick(want);
}

pid_t bts_kmod_wait(struct bts_session *s, int *status)
{
	return bts_ready_wait(s, &bts_kmod_of(s)->rw, status);
}

void bts_kmod_drain_final(struct bts_session *s, struct bts_thread *t)
{
	bts_kmod_drain(s, t, true);
}

#define EFLAGS_TF 0x100ull

/*
 * The module keeps the trap flag set in the user registers of every
 * thread it records, and ptrace shows it (the module, not ptrace, set
 * it): a debugger or a crash file would show a flag the program never
 * set.  A flag the program sets itself while the module records is the
 * module's anyway: the module ends recording with a gap marker when it is
 * cleared.
 */
static int kmod_getregs(struct bts_session *s, struct bts_thread *t,
			struct user_regs_struct *r)
{
	(void)s;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, r))
		return -errno;
	if (bts_kmod_thr(t) && bts_kmod_thr(t)->attached)
		r->eflags &= ~EFLAGS_TF;
	return 0;
}

/* The module steps the thread (and masks the trap flag it keeps set). */
const struct bts_source_ops bts_kmod_step_ops = {
	.id = PTBTS_SOURCE_KMOD_STEP,
	.caps = BTS_SRC_ABI32 | BTS_SRC_DEBUGGER | BTS_SRC_NOBP,
	.pick = kmod_step_pick,
	.open = bts_kmod_open,
	.getregs = kmod_getregs,
	KMOD_OPS,
};

/*
 * The CPU's BTS records every thread it is given; the ptrace side is
 * kmod-step's.  No debugger: the run control of a module session
 * (control/control_kmod.c) is kmod-step's: it reads the module's buffer
 * as it lies, where the CPU's records hold the entries into the kernel
 * too (write_user_recs() drops them here), and sets the trap flag at
 * every register write, kmod-step's way of recording.
 */
const struct bts_source_ops bts_kmod_bts_ops =
	KMOD_HW_SOURCE(PTBTS_SOURCE_KMOD_BTS, kmod_bts_pick, bts_kmod_open);
