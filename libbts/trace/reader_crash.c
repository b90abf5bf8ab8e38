// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading the crash state of a process (CRASH chunks, trace_format.h,
 * written by writer_optional.c at the crash) with no live process.  A
 * SIGNAL part opens the crash of a pid, THREAD parts follow, one per
 * thread, the crashing one first.
 */
#include <endian.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/user.h>

#include "trace/reader.h"
#include "util/array.h"


_Static_assert(sizeof(struct bts_regs) == sizeof(struct user_regs_struct),
	       "struct bts_regs mirrors user_regs_struct");
_Static_assert(sizeof(struct bts_regs) == 27 * 8, "regs layout");
_Static_assert(sizeof(struct bts_frame) == 32, "frame layout");
_Static_assert(sizeof(struct bts_chunk_crash) == 8, "crash layout");
_Static_assert(sizeof(struct bts_chunk_crash_signal) == 160, "signal layout");
_Static_assert(sizeof(struct bts_chunk_crash_thread) == 232, "thread layout");

void bts_reader_crash_free(struct trace_crash *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->info.nthreads; i++)
		free((void *)c->threads[i].frames);
	free(c->threads);
	free(c);
}

static int rd_signal(struct trace_process *proc, const uint8_t *p,
		     size_t plen, size_t off)
{
	struct bts_chunk_crash_signal c;
	struct trace_crash *cr;

	if (plen != sizeof(c))
		return bts_reader_bad(off, "crash chunk: the signal part has the wrong size");
	if (proc->crash)
		return bts_reader_bad(off, "crash chunk: a second crash of one process");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_CRASH_SIGNAL);
	if (c.tid <= 0 || c.signo <= 0 || c.signo > 64)
		return bts_reader_bad(off, "crash chunk: bad thread or signal number");
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return bts_fail(BTS_E_NOMEM, "trace index");
	cr->info = (struct bts_crash_info){
		.pid = proc->info.pid,
		.tid = c.tid,
		.signo = c.signo,
		.code = c.code,
		.si_errno = c.si_errno,
		.addr = c.addr,
		.sender_pid = c.sender_pid,
		.sender_uid = c.sender_uid,
	};
	memcpy(cr->info.siginfo, c.siginfo, sizeof(c.siginfo));
	proc->crash = cr;
	return 0;
}

/* The frames of a thread part, checked and copied out of the file's bytes. */
static int rd_frames(struct bts_crash_thread *th, const uint8_t *p,
		     uint32_t n, size_t off)
{
	struct bts_frame *frames = calloc(n ? n : 1, sizeof(*frames));

	if (!frames)
		return bts_fail(BTS_E_NOMEM, "trace index");
	for (uint32_t i = 0; i < n; i++) {
		bts_chunk_load(&frames[i], p + (size_t)i * sizeof(*frames),
			       sizeof(*frames), BTS_LAYOUT_FRAME);
		if ((frames[i].flags & ~BTS_FRAME_SIGNAL) || frames[i].reserved) {
			free(frames);
			return bts_reader_bad(off, "crash chunk: a frame has unknown flags");
		}
	}
	th->frames = frames;
	th->nframes = n;
	return 0;
}

static bool tid_seen(const struct trace_crash *cr, pid_t tid)
{
	for (size_t i = 0; i < cr->info.nthreads; i++)
		if (cr->threads[i].tid == tid)
			return true;
	return false;
}

static int rd_thread(struct bts_trace *t, struct trace_process *proc,
		     const uint8_t *p, size_t plen, size_t off)
{
	struct trace_crash *cr = proc->crash;
	struct bts_chunk_crash_thread c;
	struct bts_crash_thread th = { 0 };
	const char *why;
	uint64_t need;
	int err;

	if (!cr)
		return bts_reader_bad(off, "crash chunk: a thread part before the signal part");
	if (plen < sizeof(c) + 1)
		return bts_reader_bad(off, "crash chunk: the thread part is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_CRASH_THREAD);
	need = (uint64_t)sizeof(c) + (uint64_t)c.nframes * sizeof(struct bts_frame) +
	       c.err_len + 1;
	if (need != plen)
		return bts_reader_bad(off, "crash chunk: the frame count and message length do not match the chunk");
	if (c.tid <= 0 || (c.flags & ~(BTS_CRASH_CRASHED | BTS_CRASH_REGS)) ||
	    tid_seen(cr, c.tid))
		return bts_reader_bad(off, "crash chunk: bad or repeated thread, or unknown flags");
	if (!!(c.flags & BTS_CRASH_CRASHED) != (c.tid == cr->info.tid))
		return bts_reader_bad(off, "crash chunk: the crashed thread is not the signal's");
	why = (const char *)p + plen - 1 - c.err_len;
	if (why[c.err_len] || memchr(why, 0, c.err_len))
		return bts_reader_bad(off, "crash chunk: malformed message");
	th.tid = c.tid;
	th.crashed = c.flags & BTS_CRASH_CRASHED;
	th.has_regs = c.flags & BTS_CRASH_REGS;
	for (int i = 0; i < 27; i++)
		c.regs[i] = le64toh(c.regs[i]);
	memcpy(&th.regs, c.regs, sizeof(th.regs));
	if (c.err_len) {
		/* Out of the file's bytes: they may change (reader_guard.c). */
		th.unwind_error = bts_reader_keep(t, why, c.err_len + 1);
		if (!th.unwind_error)
			return bts_fail(BTS_E_NOMEM, "trace index");
	}
	if (BTS_ARRAY_RESERVE(cr->threads, cr->capthreads, cr->info.nthreads + 1))
		return bts_fail(BTS_E_NOMEM, "trace index");
	err = rd_frames(&th, p + sizeof(c), c.nframes, off);
	if (err)
		return err;
	cr->threads[cr->info.nthreads++] = th;
	return 0;
}

int bts_read_crash_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			 size_t off)
{
	struct trace_process *proc;
	struct bts_chunk_crash c;

	if (plen < sizeof(c))
		return bts_reader_bad(off, "crash chunk is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_CRASH);
	proc = bts_reader_process(t, c.pid);
	if (!proc)
		return bts_reader_bad(off, "crash of a process that has not appeared");
	if (c.part != BTS_CRASH_SIGNAL && c.part != BTS_CRASH_THREAD)
		return bts_reader_bad(off, "crash chunk: unknown part");
	if (c.part == BTS_CRASH_SIGNAL)
		return rd_signal(proc, p + sizeof(c), plen - sizeof(c), off);
	return rd_thread(t, proc, p + sizeof(c), plen - sizeof(c), off);
}

/* ------------------------------------------------------------ accessors */

const struct bts_crash_info *bts_trace_crash(const struct bts_trace *t,
					     pid_t pid)
{
	const struct trace_process *p = t ? bts_reader_process(t, pid) : NULL;

	return p && p->crash ? &p->crash->info : NULL;
}

pid_t bts_trace_crashed(const struct bts_trace *t)
{
	if (!t)
		return 0;
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].crash)
			return t->procs[i].info.pid;
	return 0;
}

const struct bts_crash_thread *
bts_trace_crash_thread(const struct bts_trace *t, pid_t pid, size_t i)
{
	const struct trace_process *p = t ? bts_reader_process(t, pid) : NULL;

	if (!p || !p->crash || i >= p->crash->info.nthreads)
		return NULL;
	return &p->crash->threads[i];
}
