// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The traced part of seq-calls, written out so that the instruction
 * counts below do not depend on a compiler:
 *
 *	calls_run   2  push, call calls_f
 *	calls_f     1  call calls_g
 *	calls_g     2  nop, ret
 *	calls_f     1  ret
 *	calls_run   2  mov $3, call calls_rec
 *	calls_rec   4  x3 (n = 3, 2, 1): test, jz (not taken), dec, call
 *	calls_rec   3  (n = 0): test, jz (taken), ret
 *	calls_rec   1  x3: ret
 *	calls_run   1  call calls_tail
 *	calls_tail  2  mov, jmp calls_leaf (a tail call)
 *	calls_leaf  2  add, ret (to calls_run)
 *	calls_run   2  pop, ret
 */
	.macro FUNC name
	.globl \name
	.type \name, @function
\name:
	.endm

	.text

FUNC calls_run
	push %rbx
	call calls_f
	mov $3, %edi
	call calls_rec
	call calls_tail
	pop %rbx
	ret
	.size calls_run, . - calls_run

FUNC calls_f
	call calls_g
	ret
	.size calls_f, . - calls_f

FUNC calls_g
	nop
	ret
	.size calls_g, . - calls_g

/* calls_rec(n): if (n) calls_rec(n - 1) */
FUNC calls_rec
	test %edi, %edi
	jz 1f
	dec %edi
	call calls_rec
1:	ret
	.size calls_rec, . - calls_rec

FUNC calls_tail
	mov $1, %eax
	jmp calls_leaf
	.size calls_tail, . - calls_tail

FUNC calls_leaf
	add $1, %eax
	ret
	.size calls_leaf, . - calls_leaf

	.section .note.GNU-stack, "", @progbits
