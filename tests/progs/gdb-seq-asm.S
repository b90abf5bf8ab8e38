/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An exact instruction sequence for the gdb tests: seq_run calls seq_leaf
 * three times in a loop, then seq_done, and returns 3.  From seq_run's
 * first instruction to seq_done's, 21 instructions run in 7 function
 * segments:
 *   seq_run:  push, mov, mov, xor                       4
 *   3 x { call seq_leaf; add; ret; dec; jnz }          15
 *   seq_run:  pop, call seq_done                        2
 */
	.text
	.globl	seq_run
	.type	seq_run, @function
seq_run:
	push	%rbp
	mov	%rsp, %rbp
	mov	$3, %ecx
	xor	%eax, %eax
1:	call	seq_leaf
	dec	%ecx
	jnz	1b
	pop	%rbp
	call	seq_done
	ret
	.size	seq_run, .-seq_run

	.globl	seq_leaf
	.type	seq_leaf, @function
seq_leaf:
	add	$1, %eax
	ret
	.size	seq_leaf, .-seq_leaf

	.globl	seq_done
	.type	seq_done, @function
seq_done:
	nop
	ret
	.size	seq_done, .-seq_done

	.section .note.GNU-stack,"",@progbits
