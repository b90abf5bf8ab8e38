// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts, test build only (PTBTS_TEST_HOOKS=y; kernel/kernel.mk builds
 * it as the guest's /ptrace_bts-test.ko, never for users or dkms): a knob
 * that lets the guest's tests start kmod-bts under page-table isolation.
 *
 *	force_pti=1	(at load) the hardware sources ignore PTI; every
 *			other reason to refuse still holds.  The CPU then
 *			stores through the vmap alias of the tracer's pages
 *			while the user page tables are loaded, which lack
 *			it: the virtual CPU reports each store that faults
 *			(tests/kernel/test_vcpu_pti.c)
 */
#include <linux/moduleparam.h>

#include "hw.h"

static bool force_pti;
module_param(force_pti, bool, 0444);
MODULE_PARM_DESC(force_pti, "test build: the hardware sources ignore PTI");

bool ptbts_hw_test_force_pti(void)
{
	return force_pti;
}
