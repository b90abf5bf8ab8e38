// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The crash state of a process in a trace file (CRASH chunks,
 * trace_format.h): written by the flight recorder at the crash, read back
 * with no live process.  A SIGNAL part opens the crash of a pid, THREAD
 * parts follow, one per thread, the crashing one first.
 */
#include <endian.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/user.h>

#include "trace/reader_images.h"

#define CT_CRASHED	1u
#define CT_REGS		2u

_Static_assert(sizeof(struct bts_regs) == sizeof(struct user_regs_struct),
	       "struct bts_regs mirrors user_regs_struct");
_Static_assert(sizeof(struct bts_regs) == 27 * 8, "regs layout");
_Static_assert(sizeof(struct bts_frame) == 32, "frame layout");
_Static_assert(sizeof(struct bts_chunk_crash) == 8, "crash layout");
_Static_assert(sizeof(struct bts_chunk_crash_signal) == 160, "signal layout");
_Static_assert(sizeof(struct bts_chunk_crash_thread) == 232, "thread layout");

/* ------------------------------------------------------------- writing */

int bts_writer_crash(struct bts_writer *w, const struct bts_crash_info *info)
{
	struct {
		struct bts_chunk_crash h;
		struct bts_chunk_crash_signal s;
	} c;

	if (!w || !info || info->pid <= 0 || info->tid <= 0 ||
	    info->signo <= 0 || info->signo > 64)
		return bts_fail(BTS_E_INVAL, "a malformed crash");
	memset(&c, 0, sizeof(c));
	c.h.pid = htole32(info->pid);
	c.h.part = htole32(BTS_CRASH_SIGNAL);
	c.s.tid = htole32(info->tid);
	c.s.signo = htole32(info->signo);
	c.s.code = htole32(info->code);
	c.s.si_errno = htole32(info->si_errno);
	c.s.sender_pid = htole32(info->sender_pid);
	c.s.sender_uid = htole32(info->sender_uid);
	c.s.addr = htole64(info->addr);
	memcpy(c.s.siginfo, info->siginfo, sizeof(c.s.siginfo));
	return bts_writer_chunk(w, BTS_CHUNK_CRASH | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, NULL);
}

int bts_writer_crash_thread(struct bts_writer *w, pid_t pid,
			    const struct bts_crash_thread *th)
{
	struct {
		struct bts_chunk_crash h;
		struct bts_chunk_crash_thread t;
	} c;
	const char *why = th && th->unwind_error ? th->unwind_error : "";
	struct bts_frame *frames;
	uint64_t regs[27];
	int err;

	if (!w || !th || pid <= 0 || th->tid <= 0 || th->nframes > 65536 ||
	    (th->nframes && !th->frames) || strlen(why) > 4096)
		return bts_fail(BTS_E_INVAL, "a malformed crashed thread");
	memset(&c, 0, sizeof(c));
	c.h.pid = htole32(pid);
	c.h.part = htole32(BTS_CRASH_THREAD);
	c.t.tid = htole32(th->tid);
	c.t.flags = htole32((th->crashed ? CT_CRASHED : 0) |
			    (th->has_regs ? CT_REGS : 0));
	c.t.nframes = htole32(th->nframes);
	c.t.err_len = htole32(strlen(why));
	memcpy(regs, &th->regs, sizeof(regs));
	for (int i = 0; i < 27; i++)
		c.t.regs[i] = htole64(th->has_regs ? regs[i] : 0);
	frames = calloc(th->nframes + 1, sizeof(*frames));
	if (!frames)
		return bts_fail(BTS_E_NOMEM, "frames");
	for (size_t i = 0; i < th->nframes; i++) {
		frames[i].pc = htole64(th->frames[i].pc);
		frames[i].sp = htole64(th->frames[i].sp);
		frames[i].cfa = htole64(th->frames[i].cfa);
		frames[i].flags = htole32(th->frames[i].flags & BTS_FRAME_SIGNAL);
	}
	err = bts_writer_chunk(w, BTS_CHUNK_CRASH | BTS_CHUNK_OPTIONAL, &c,
			       sizeof(c), frames, th->nframes * sizeof(*frames),
			       why);
	free(frames);
	return err;
}

/* ------------------------------------------------------------- reading */

static int bad(size_t off, const char *what)
{
	return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, what);
}

void bts_tcrash_free(struct bts_tcrash *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->info.nthreads; i++)
		free((void *)c->threads[i].frames);
	free(c->threads);
	free(c);
}

static int rd_signal(struct bts_tproc_ext *pe, pid_t pid, const uint8_t *p,
		     size_t plen, size_t off)
{
	struct bts_chunk_crash_signal c;
	struct bts_tcrash *cr;

	if (plen != sizeof(c))
		return bad(off, "crash chunk: the signal part has the wrong size");
	if (pe->crash)
		return bad(off, "crash chunk: a second crash of one process");
	memcpy(&c, p, sizeof(c));
	c.tid = le32toh(c.tid);
	c.signo = le32toh(c.signo);
	if (c.tid <= 0 || c.signo <= 0 || c.signo > 64)
		return bad(off, "crash chunk: bad thread or signal number");
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return bts_fail(BTS_E_NOMEM, "trace index");
	cr->info = (struct bts_crash_info){
		.pid = pid,
		.tid = c.tid,
		.signo = c.signo,
		.code = (int32_t)le32toh(c.code),
		.si_errno = (int32_t)le32toh(c.si_errno),
		.addr = le64toh(c.addr),
		.sender_pid = (int32_t)le32toh(c.sender_pid),
		.sender_uid = le32toh(c.sender_uid),
	};
	memcpy(cr->info.siginfo, c.siginfo, sizeof(c.siginfo));
	pe->crash = cr;
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
		memcpy(&frames[i], p + (size_t)i * sizeof(*frames), sizeof(*frames));
		frames[i].pc = le64toh(frames[i].pc);
		frames[i].sp = le64toh(frames[i].sp);
		frames[i].cfa = le64toh(frames[i].cfa);
		frames[i].flags = le32toh(frames[i].flags);
		if ((frames[i].flags & ~BTS_FRAME_SIGNAL) || frames[i].reserved) {
			free(frames);
			return bad(off, "crash chunk: a frame has unknown flags");
		}
	}
	th->frames = frames;
	th->nframes = n;
	return 0;
}

static bool tid_seen(const struct bts_tcrash *cr, pid_t tid)
{
	for (size_t i = 0; i < cr->info.nthreads; i++)
		if (cr->threads[i].tid == tid)
			return true;
	return false;
}

static int rd_thread(struct bts_trace *t, struct bts_tproc_ext *pe,
		     const uint8_t *p, size_t plen, size_t off)
{
	struct bts_tcrash *cr = pe->crash;
	struct bts_chunk_crash_thread c;
	struct bts_crash_thread th = { 0 };
	const char *why;
	uint64_t need;
	int err;

	if (!cr)
		return bad(off, "crash chunk: a thread part before the signal part");
	if (plen < sizeof(c) + 1)
		return bad(off, "crash chunk: the thread part is too short");
	memcpy(&c, p, sizeof(c));
	c.tid = le32toh(c.tid);
	c.flags = le32toh(c.flags);
	c.nframes = le32toh(c.nframes);
	c.err_len = le32toh(c.err_len);
	need = (uint64_t)sizeof(c) + (uint64_t)c.nframes * sizeof(struct bts_frame) +
	       c.err_len + 1;
	if (need != plen)
		return bad(off, "crash chunk: the frame count and message length do not match the chunk");
	if (c.tid <= 0 || (c.flags & ~(CT_CRASHED | CT_REGS)) || tid_seen(cr, c.tid))
		return bad(off, "crash chunk: bad or repeated thread, or unknown flags");
	if (!!(c.flags & CT_CRASHED) != (c.tid == cr->info.tid))
		return bad(off, "crash chunk: the crashed thread is not the signal's");
	why = (const char *)p + plen - 1 - c.err_len;
	if (why[c.err_len] || memchr(why, 0, c.err_len))
		return bad(off, "crash chunk: malformed message");
	th.tid = c.tid;
	th.crashed = c.flags & CT_CRASHED;
	th.has_regs = c.flags & CT_REGS;
	for (int i = 0; i < 27; i++)
		c.regs[i] = le64toh(c.regs[i]);
	memcpy(&th.regs, c.regs, sizeof(th.regs));
	if (c.err_len) {
		/* Out of the file's bytes: they may change (trace_guard.c). */
		th.unwind_error = bts_trace_keep(t, why, c.err_len + 1);
		if (!th.unwind_error)
			return bts_fail(BTS_E_NOMEM, "trace index");
	}
	if (cr->info.nthreads == cr->cap) {
		size_t ncap = cr->cap ? cr->cap * 2 : 4;
		struct bts_crash_thread *a = reallocarray(cr->threads, ncap, sizeof(*a));

		if (!a)
			return bts_fail(BTS_E_NOMEM, "trace index");
		cr->threads = a;
		cr->cap = ncap;
	}
	err = rd_frames(&th, p + sizeof(c), c.nframes, off);
	if (err)
		return err;
	cr->threads[cr->info.nthreads++] = th;
	return 0;
}

int bts_rd_crash(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off)
{
	struct bts_chunk_crash c;
	struct bts_tproc_ext *pe;
	long proc;

	if (plen < sizeof(c))
		return bad(off, "crash chunk is too short");
	memcpy(&c, p, sizeof(c));
	c.pid = le32toh(c.pid);
	c.part = le32toh(c.part);
	proc = bts_tindex_process(t, c.pid);
	if (proc < 0)
		return bad(off, "crash of a process that has not appeared");
	if (c.part != BTS_CRASH_SIGNAL && c.part != BTS_CRASH_THREAD)
		return bad(off, "crash chunk: unknown part");
	pe = bts_tprocs_get(t, proc);
	if (!pe)
		return bts_fail(BTS_E_NOMEM, "trace index");
	if (c.part == BTS_CRASH_SIGNAL)
		return rd_signal(pe, c.pid, p + sizeof(c), plen - sizeof(c), off);
	return rd_thread(t, pe, p + sizeof(c), plen - sizeof(c), off);
}

/* ------------------------------------------------------------ accessors */

const struct bts_crash_info *bts_trace_crash(const struct bts_trace *t,
					     pid_t pid)
{
	const struct bts_tproc_ext *pe = t ? bts_tprocs_find(t, pid) : NULL;

	return pe && pe->crash ? &pe->crash->info : NULL;
}

pid_t bts_trace_crashed(const struct bts_trace *t)
{
	if (!t)
		return 0;
	for (size_t i = 0; i < t->nprocs; i++)
		if (bts_trace_crash(t, t->procs[i].info.pid))
			return t->procs[i].info.pid;
	return 0;
}

const struct bts_crash_thread *
bts_trace_crash_thread(const struct bts_trace *t, pid_t pid, size_t i)
{
	const struct bts_tproc_ext *pe = t ? bts_tprocs_find(t, pid) : NULL;

	if (!pe || !pe->crash || i >= pe->crash->info.nthreads)
		return NULL;
	return &pe->crash->threads[i];
}
