// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the DS save area code of arch/x86/ds, built into the module.
 * It is one source shared with the user-space tests, which run it against
 * a simulated CPU; kbuild compiles only files of the module's directory, so
 * this file brings it in through the include path (Kbuild's PTBTS_DS).
 */
#include "ds_area.c"
#include "ds_detect.c"
#include "ds_win.c"
#include "ds_task.c"
#include "ds_percpu.c"
#include "ds_pebs_event.c"
