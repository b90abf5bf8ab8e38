// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The stack of a stopped thread from registers that are not its own: an
 * emulator's guest (qemu-user), whose registers the emulator knows and
 * ptrace does not show.  Memory and unwind tables come through ptrace and
 * the files of the thread's maps, as in unwind.c (the guest's addresses
 * are the emulator's); only the registers of the first frame come from
 * @regs.
 */
#include <libunwind-ptrace.h>

#include "crash/crash.h"
#include "crash/unwind.h"

/*
 * libunwind hands every accessor one argument, and _UPT's own functions
 * pass theirs on to the others: the argument is _UPT's, and the
 * registers of the first frame lie beside it, for the unwind under way.
 */
static __thread const struct user_regs_struct *first_regs;

/* libunwind's x86-64 numbering, UNW_X86_64_RAX to UNW_X86_64_RIP. */
static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	const struct user_regs_struct *r = first_regs;
	const unsigned long long v[] = {
		r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
		r->rip,
	};

	(void)as, (void)arg;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || (size_t)reg >= sizeof(v) / sizeof(v[0]))
		return -UNW_EBADREG;
	*val = v[reg];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			unw_fpreg_t *val, int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t regs_accessors = {
	.find_proc_info = _UPT_find_proc_info,
	.put_unwind_info = _UPT_put_unwind_info,
	.get_dyn_info_list_addr = _UPT_get_dyn_info_list_addr,
	.access_mem = _UPT_access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = _UPT_get_proc_name,
};

size_t bts_unwind_regs(pid_t tid, const struct user_regs_struct *regs,
		       struct bts_frame *frames, size_t max, char *why,
		       size_t whylen)
{
	size_t n;

	first_regs = regs;
	n = bts_unwind_with(&regs_accessors, tid, frames, max, why, whylen);
	first_regs = NULL;
	return n;
}
