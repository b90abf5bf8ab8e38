// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * static-follow: a static program without libc that forks, for the exact
 * follow test in tests/crash/test_follow_exact.c.  Every taken branch is
 * known and no address depends on the run (no PIE), so the child's records
 * are the same in every run.  The test reads the labels from the symbol
 * table.
 *
 * Without arguments: fork(); the parent takes no branch (fol_jne and
 * fol_jz fall through), waits for the child and exits 0.  The child's
 * taken branches are:
 *	fol_jz -> fol_child, fol_call -> fol_leaf, fol_leaf_ret -> fol_after
 * With an argument ("leaf mode", what static-follow-exec and
 * static-follow-vm exec), no fork:
 *	fol_jne -> fol_leafmode, fol_lcall -> fol_leaf, fol_leaf_ret -> fol_lafter
 * Every process exits 0 with exit_group.
 */
#include "static-asm.h"

	.text
FUNC _start
	cmpq $1, (%rsp)			/* argc */
LABEL fol_jne
	jne fol_leafmode
	mov $57, %eax			/* SYS_fork */
	syscall
	test %eax, %eax
LABEL fol_jz
	jz fol_child
	mov $61, %eax			/* SYS_wait4(-1, NULL, 0, NULL) */
	mov $-1, %edi
	xor %esi, %esi
	xor %edx, %edx
	xor %r10d, %r10d
	syscall
	xor %edi, %edi
	EXIT_GROUP
LABEL fol_child
LABEL fol_call
	call fol_leaf
LABEL fol_after
	xor %edi, %edi
	EXIT_GROUP
LABEL fol_leafmode
LABEL fol_lcall
	call fol_leaf
LABEL fol_lafter
	xor %edi, %edi
	EXIT_GROUP
	.size _start, . - _start

	.globl fol_leaf
	.type fol_leaf, @function
fol_leaf:
LABEL fol_leaf_ret
	ret
	.size fol_leaf, . - fol_leaf

	.section .note.GNU-stack, "", @progbits
