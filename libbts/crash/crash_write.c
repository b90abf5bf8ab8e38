// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The crash trace of one process, written at its crash with all its
 * threads stopped: the session, the process, its maps with build-ids (and
 * copies of executable memory no file holds, read through bts_read_code()
 * so that no planted int3 is saved), every thread and the records its
 * ring kept, the signal with its siginfo, the registers and the unwound
 * stack of every thread (the crashing one first), and the process's end
 * as the signal will make it.  The writer's temporary name and rename
 * make a file that is there whole or not at all.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "crash/crash.h"
#include "trace/writer.h"

/* A copy of an anonymous executable mapping costs at most this much. */
#define CODE_COPY_MAX	(16u << 20)
#define CODE_STEP	65536

static bool has_file(const struct bts_map *m)
{
	return m->path && m->path[0] == '/';
}

/* Executable memory with no file to read it from: copied, int3s hidden. */
static int copy_code(struct bts_session *s, struct bts_writer *w, pid_t pid,
		     pid_t tid, const struct bts_map *m)
{
	uint64_t a = m->start, end = m->end;
	uint8_t *buf;
	int err = 0;

	if (end - a > CODE_COPY_MAX)
		end = a + CODE_COPY_MAX;
	buf = malloc(CODE_STEP);
	if (!buf)
		return bts_fail(BTS_E_NOMEM, "code copy");
	while (!err && a < end) {
		size_t want = end - a < CODE_STEP ? end - a : CODE_STEP;
		ssize_t n = bts_read_code(s, tid, a, buf, want);

		if (n <= 0)
			break;	/* unreadable: the trace has no copy of the rest */
		err = bts_writer_code(w, pid, a, buf, (size_t)n);
		a += (uint64_t)n;
	}
	free(buf);
	return err;
}

static int write_maps(struct bts_session *s, struct bts_writer *w,
		      struct bts_proc *p, pid_t tid)
{
	struct bts_map *maps = NULL;
	int n = bts_maps_session(s, p->pub.pid, &maps), err = 0;

	if (n < 0)
		return n;
	for (int i = 0; !err && i < n; i++) {
		err = bts_writer_map(w, p->pub.pid, &maps[i]);
		if (!err && !has_file(&maps[i]))
			err = copy_code(s, w, p->pub.pid, tid, &maps[i]);
	}
	bts_maps_free(maps, n);
	return err;
}

/* Its records go to @w: the session's own writer is set aside meanwhile. */
static int write_threads(struct bts_session *s, struct bts_writer *w,
			 struct bts_proc *p)
{
	struct bts_writer *saved = s->w;
	int err = 0, serr = s->err, stop = s->stop;

	for (size_t i = 0; !err && i < s->nthreads; i++)
		if (s->threads[i]->proc == p && !s->threads[i]->shadow)
			err = bts_writer_thread(w, p->pub.pid, s->threads[i]->tid);
	s->w = w;
	s->err = 0;
	for (size_t i = 0; !err && i < s->nthreads; i++)
		if (s->threads[i]->proc == p && !s->threads[i]->shadow)
			bts_thread_flush(s, s->threads[i]);
	if (!err)
		err = s->err;
	/* bts_note_err() stops the session on a failure: not for this file. */
	s->w = saved;
	s->err = serr;
	s->stop = stop;
	return err;
}

static void fill_info(struct bts_crash_info *ci, pid_t pid, pid_t tid,
		      int sig, const siginfo_t *si)
{
	memset(ci, 0, sizeof(*ci));
	ci->pid = pid;
	ci->tid = tid;
	ci->signo = sig;
	ci->code = si->si_code;
	ci->si_errno = si->si_errno;
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
		if (si->si_code > 0)
			ci->addr = (uint64_t)(uintptr_t)si->si_addr;
		break;
	default:
		break;
	}
	if (si->si_code <= 0) {
		ci->sender_pid = si->si_pid;
		ci->sender_uid = si->si_uid;
	}
	_Static_assert(sizeof(siginfo_t) == sizeof(ci->siginfo), "siginfo size");
	memcpy(ci->siginfo, si, sizeof(ci->siginfo));
}

static int write_thread_state(struct bts_session *s, struct bts_writer *w,
			      pid_t pid, struct bts_thread *u, bool crashed)
{
	struct bts_frame frames[BTS_CRASH_MAX_FRAMES];
	struct bts_crash_thread th = { .tid = u->tid, .crashed = crashed };
	struct user_regs_struct regs;
	char why[160];

	/* As the program has them: a kmod source's trap flag masked. */
	if (bts_thread_getregs(s, u, &regs) == 0) {
		memcpy(&th.regs, &regs, sizeof(th.regs));
		th.has_regs = true;
	}
	if (s->ops->unwind)
		th.nframes = s->ops->unwind(s, u, frames, BTS_CRASH_MAX_FRAMES,
					    why, sizeof(why));
	else
		th.nframes = bts_unwind_thread(u->tid, frames, BTS_CRASH_MAX_FRAMES,
					       why, sizeof(why));
	th.frames = frames;
	th.unwind_error = why[0] ? why : NULL;
	return bts_writer_crash_thread(w, pid, &th);
}

static int write_state(struct bts_session *s, struct bts_writer *w,
		       struct bts_proc *p, struct bts_thread *ct, int sig,
		       const siginfo_t *si)
{
	struct bts_crash_info ci;
	int err;

	fill_info(&ci, p->pub.pid, ct->tid, sig, si);
	err = bts_writer_crash(w, &ci);
	if (!err)
		err = write_thread_state(s, w, p->pub.pid, ct, true);
	for (size_t i = 0; !err && i < s->nthreads; i++) {
		struct bts_thread *u = s->threads[i];

		if (u->proc == p && u != ct && !u->shadow && !u->running)
			err = write_thread_state(s, w, p->pub.pid, u, false);
	}
	return err;
}

int bts_crash_write(struct bts_session *s, struct bts_proc *p,
		    struct bts_thread *ct, int sig, const siginfo_t *si,
		    const char *exe, const char *path)
{
	struct bts_writer *w;
	/* It holds memory contents: private, as a core dump is. */
	int err = bts_writer_open_mode(path, 0600, &w);

	if (err)
		return err;
	err = bts_writer_session(w, s->source, PTBTS_MODE_RING, s->buffer_size);
	if (!err)
		err = bts_writer_process(w, p->pub.pid, p->pub.ppid, exe);
	/* Before the maps, as the session's own file has it: i386 decoding. */
	if (!err && p->abi32)
		err = bts_writer_abi(w, p->pub.pid, 32);
	if (!err)
		err = write_maps(s, w, p, ct->tid);
	if (!err)
		err = write_threads(s, w, p);
	if (!err)
		err = write_state(s, w, p, ct, sig, si);
	/* The end the signal gives it (the core bit is not known yet). */
	if (!err)
		err = bts_writer_exit(w, p->pub.pid, 0, sig);
	if (!err)
		err = bts_writer_finish(w);
	bts_writer_free(w);
	return err;
}
