// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The stack of a stopped thread, unwound with libunwind's ptrace interface
 * (_UPT_*): the unwinder reads the thread's registers and stack through
 * ptrace and the unwind tables of the files its maps name.  Frame 0 is the
 * pc the thread stopped at.
 */
#include <libunwind-ptrace.h>
#include <stdbool.h>
#include <stdio.h>

#include "crash/crash.h"
#include "crash/unwind.h"

/*
 * Walks from @c's frame outwards into @frames; @r is unw_init_remote()'s
 * result.  Unwinding stops at the first frame whose pc is 0 or that
 * repeats.
 */
static size_t walk(unw_cursor_t *c, int r, struct bts_frame *frames,
		   size_t max, char *why, size_t whylen)
{
	unw_word_t ip, sp, cfa;
	bool after_signal = false;
	size_t n = 0;

	why[0] = '\0';
	while (r >= 0 && n < max) {
		if (unw_get_reg(c, UNW_REG_IP, &ip) || unw_get_reg(c, UNW_REG_SP, &sp))
			break;
		if (!ip || (n && frames[n - 1].pc == ip && frames[n - 1].sp == sp))
			break;
		if (unw_get_reg(c, UNW_X86_64_CFA, &cfa))
			cfa = 0;
		frames[n] = (struct bts_frame){
			.pc = ip,
			.sp = sp,
			.cfa = cfa,
			.flags = after_signal ? BTS_FRAME_SIGNAL : 0,
		};
		n++;
		/* Above a signal trampoline: an interrupted pc, no return address. */
		after_signal = unw_is_signal_frame(c) > 0;
		r = unw_step(c);
		if (r == 0)
			break;	/* the outermost frame */
	}
	if (r < 0)
		snprintf(why, whylen, "libunwind: %s", unw_strerror(r));
	else if (n == max)
		snprintf(why, whylen, "stopped after %zu frames", max);
	return n;
}

size_t bts_unwind_with(unw_accessors_t *acc, pid_t tid,
		       struct bts_frame *frames, size_t max, char *why,
		       size_t whylen)
{
	unw_addr_space_t as;
	unw_cursor_t c;
	size_t n;
	void *ui;

	as = unw_create_addr_space(acc, 0);
	if (!as) {
		snprintf(why, whylen, "libunwind: no address space");
		return 0;
	}
	ui = _UPT_create(tid);
	if (!ui) {
		unw_destroy_addr_space(as);
		snprintf(why, whylen, "libunwind: cannot reach thread %d", (int)tid);
		return 0;
	}
	n = walk(&c, unw_init_remote(&c, as, ui), frames, max, why, whylen);
	_UPT_destroy(ui);
	unw_destroy_addr_space(as);
	return n;
}

size_t bts_unwind_thread(pid_t tid, struct bts_frame *frames, size_t max,
			 char *why, size_t whylen)
{
	return bts_unwind_with(&_UPT_accessors, tid, frames, max, why, whylen);
}
