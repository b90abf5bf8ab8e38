/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* What the two unwinders (unwind.c, unwind_regs.c) share. */
#ifndef BTS_UNWIND_H
#define BTS_UNWIND_H

#include <libunwind.h>

#include "crash/crash.h"

/*
 * The frames of stopped thread @tid into @frames (at most @max), with
 * @acc's accessors, which take _UPT_create(@tid)'s argument.  *@why says
 * why it stopped early.
 */
size_t bts_unwind_with(unw_accessors_t *acc, pid_t tid,
		       struct bts_frame *frames, size_t max, char *why,
		       size_t whylen);

#endif /* BTS_UNWIND_H */
