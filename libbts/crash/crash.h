/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The flight recorder (btrace record --on-crash): crash.c decides what is a
 * crash and stops the process, crash_write.c writes its trace, unwind.c
 * unwinds its stacks (unwind_regs.c an emulator's guest's).
 */
#ifndef BTS_CRASH_H
#define BTS_CRASH_H

#include "session/session.h"

#define BTS_CRASH_MAX_FRAMES	256

/* crash.c: whether @sig (as @si tells it) kills thread @tid. */
bool bts_crash_fatal(pid_t tid, int sig, const siginfo_t *si);
/*
 * The session's crash hook (struct bts_session_setup): when @sig kills
 * @t's process, every thread of it stops and its crash trace is written.
 */
void bts_crash_check(struct bts_session *s, struct bts_thread *t, int sig,
		     const siginfo_t *si);

/* Frames of stopped thread @tid into @frames; *why says why it stopped early. */
size_t bts_unwind_thread(pid_t tid, struct bts_frame *frames, size_t max,
			 char *why, size_t whylen);

/*
 * The same from @regs, the registers of an emulator's guest (ptrace shows
 * the emulator's own); memory and maps are the stopped thread @tid's.
 */
size_t bts_unwind_regs(pid_t tid, const struct user_regs_struct *regs,
		       struct bts_frame *frames, size_t max, char *why,
		       size_t whylen);

/* The file name for process @p from @pattern (%p, %e, %%); NULL: no memory. */
char *bts_crash_name(const char *pattern, pid_t pid, const char *exe);

/*
 * crash_dumpable.c: whether the kernel would write no core dump for @pid
 * (not dumpable, and fs.suid_dumpable 0): then no crash trace is written
 * either; the detail says why.
 */
bool bts_crash_refused(pid_t pid);

/*
 * Writes the crash trace of @p (its program @exe), @ct the crashing
 * thread; all its threads are stopped.
 */
int bts_crash_write(struct bts_session *s, struct bts_proc *p,
		    struct bts_thread *ct, int sig, const siginfo_t *si,
		    const char *exe, const char *path);

#endif /* BTS_CRASH_H */
