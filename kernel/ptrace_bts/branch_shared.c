// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the control-transfer classifier of arch/x86/branch, built
 * into the module.  It is one source shared with libbts (and tested there
 * against Zydis); kbuild compiles only files of the module's directory, so
 * this file brings it in through the include path (Kbuild's PTBTS_BRANCH).
 */
#include "branch.c"
