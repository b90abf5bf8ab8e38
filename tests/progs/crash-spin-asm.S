// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spinning loop of crash-spin: a label on every instruction, so that
 * the test can tell whether a stopped thread's pc is where an instruction
 * starts.  Two branches a turn (one conditional, one jump) keep a recorder
 * that stops at branches stopping this thread all the time.
 */

#include "label-asm.h"

	.text

/* spin_loop(unsigned long *turns): never returns. */
FUNC spin_loop
LABEL spin_inc
	lock incq (%rdi)
LABEL spin_test
	testb $7, (%rdi)
LABEL spin_jz
	jz spin_jmp
LABEL spin_nop
	nop
LABEL spin_jmp
	jmp spin_loop

	.section .note.GNU-stack, "", @progbits
