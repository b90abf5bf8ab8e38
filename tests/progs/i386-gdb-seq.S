/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-gdb-seq: gdb-seq-asm.S's exact sequence in 32-bit code, static and
 * without libc, for the gdb stub's i386 tests.  seq_run calls seq_leaf
 * three times in a loop, then seq_done, and returns 3, the exit code.
 * From seq_run's first instruction to seq_done's, 21 instructions run in
 * 7 function segments (offsets from seq_run, sizes in bytes):
 *   seq_run:  push 0:1, mov 1:2, mov 3:5, xor 8:2                   4
 *   3 x { call 10:5; seq_leaf: add 25:3, ret 28:1; dec 15:1, jnz 16:2 } 15
 *   seq_run:  pop 18:1, call seq_done 19:5                          2
 * The dec (0x49) is a REX prefix in 64-bit code: decoded as amd64, the
 * history would be wrong.
 */
	.code32
	.text
	.globl	_start
	.type	_start, @function
_start:
	call	seq_run
	mov	%eax, %ebx
	mov	$1, %eax		/* exit(seq_run()) */
	int	$0x80
	hlt
	.size	_start, . - _start

	.globl	seq_run
	.type	seq_run, @function
seq_run:
	push	%ebp
	mov	%esp, %ebp
	mov	$3, %ecx
	xor	%eax, %eax
1:	call	seq_leaf
	dec	%ecx
	jnz	1b
	pop	%ebp
	call	seq_done
	ret
	.size	seq_run, . - seq_run

	.globl	seq_leaf
	.type	seq_leaf, @function
seq_leaf:
	add	$1, %eax
	ret
	.size	seq_leaf, . - seq_leaf

	.globl	seq_done
	.type	seq_done, @function
seq_done:
	nop
	ret
	.size	seq_done, . - seq_done

	.section .note.GNU-stack,"",@progbits
