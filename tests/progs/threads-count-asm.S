// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * thr_loop(n): calls thr_leaf n times (n >= 1).  Every call, return and
 * back jump is at a label, so the test can count them per thread exactly.
 */
#include "label-asm.h"

	.text
	.globl thr_loop
	.type thr_loop, @function
thr_loop:
	push %rbx
	mov %edi, %ebx
LABEL thr_top
LABEL thr_call
	call thr_leaf
LABEL thr_after
	dec %ebx
LABEL thr_jnz
	jnz thr_top
	pop %rbx
LABEL thr_loop_ret
	ret
	.size thr_loop, . - thr_loop

	.globl thr_leaf
	.type thr_leaf, @function
thr_leaf:
	nop
LABEL thr_leaf_ret
	ret
	.size thr_leaf, . - thr_leaf

	.section .note.GNU-stack, "", @progbits
