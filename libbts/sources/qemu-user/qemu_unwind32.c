// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * An i386 guest's stacks at a crash, from the core QEMU wrote for it.
 * libunwind here unwinds x86-64 stacks only; libdwfl unwinds a core file
 * of another machine with that machine's backend: the core holds every
 * mapping of the guest's (QEMU 7.2 dumps code too) and its threads'
 * registers, and the modules are found from its auxiliary vector and the
 * dynamic linker's list, the program's file given.  Unwound while the
 * core is open (it is deleted once read), kept with each thread's
 * registers until the crash trace is written.
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>

#include "crash/crash.h"
#include "sources/qemu-user/qemu_user.h"

/* i386's DWARF register number of %esp. */
#define DWARF_I386_ESP	4

struct walk {
	struct bts_qemu_regs *r;
	bool full;
};

static int one_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	struct bts_qemu_regs *r = w->r;
	struct bts_frame *f;
	Dwarf_Word sp = 0;
	Dwarf_Addr pc;
	bool activation;

	if (r->nframes == BTS_CRASH_MAX_FRAMES) {
		w->full = true;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	if (dwfl_frame_reg(state, DWARF_I386_ESP, &sp))
		sp = 0;
	f = &r->frames[r->nframes];
	*f = (struct bts_frame){
		.pc = pc,
		.sp = sp,
		/* Above frame 0, an activation is a signal's interrupted pc. */
		.flags = r->nframes && activation ? BTS_FRAME_SIGNAL : 0,
	};
	/* The canonical frame address is the caller's stack pointer. */
	if (r->nframes)
		f[-1].cfa = sp;
	r->nframes++;
	return DWARF_CB_OK;
}

/*
 * One thread of the core (dwfl_getthreads(): dwfl_getthread_frames() of
 * elfutils 0.188 leaks the thread it looked up in a core).
 */
static int unwind_thread(Dwfl_Thread *thread, void *arg)
{
	struct bts_qemu *q = arg;
	pid_t tid = dwfl_thread_tid(thread);
	struct walk w = { 0 };
	int err;

	for (size_t i = 0; i < q->nregs && !w.r; i++)
		if (q->regs[i].tid == tid)
			w.r = &q->regs[i];
	if (!w.r)
		return DWARF_CB_OK;
	w.r->frames = calloc(BTS_CRASH_MAX_FRAMES, sizeof(*w.r->frames));
	if (!w.r->frames) {
		snprintf(w.r->why, sizeof(w.r->why), "no memory to unwind");
		return DWARF_CB_OK;
	}
	err = dwfl_thread_getframes(thread, one_frame, &w);
	if (w.full)
		snprintf(w.r->why, sizeof(w.r->why), "stopped after %d frames",
			 BTS_CRASH_MAX_FRAMES);
	else if (err && dwfl_errno())
		snprintf(w.r->why, sizeof(w.r->why), "libdwfl: %s", dwfl_errmsg(-1));
	return DWARF_CB_OK;
}

void bts_qemu_unwind_core32(struct bts_qemu *q, Elf *core, const char *exe)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *d = dwfl_begin(&cb);
	const char *why = NULL;

	if (!d)
		why = dwfl_errmsg(-1);
	else if (dwfl_core_file_report(d, core, exe) < 0 ||
		 dwfl_report_end(d, NULL, NULL) ||
		 dwfl_core_file_attach(d, core) < 0)
		why = dwfl_errmsg(-1);
	if (!why && dwfl_getthreads(d, unwind_thread, q))
		why = dwfl_errmsg(-1);
	for (size_t i = 0; i < q->nregs; i++) {
		q->regs[i].unwound = true;
		if (why && !q->regs[i].nframes && !q->regs[i].why[0])
			snprintf(q->regs[i].why, sizeof(q->regs[i].why),
				 "libdwfl: %s", why);
	}
	if (d)
		dwfl_end(d);
}
