/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * skip-qsort's comparator, in assembly so that its one branch (the ret at
 * skip_cmp_ret) has a label: called from inside libc, it is the callback
 * a --skip libc.so.6 recording must still see.
 */
	.text
	.globl skip_cmp, skip_cmp_ret
	.type skip_cmp, @function
skip_cmp:
	addl $1, skip_cmp_calls(%rip)
	movl (%rdi), %ecx
	movl (%rsi), %edx
	xorl %eax, %eax
	xorl %r8d, %r8d
	cmpl %edx, %ecx
	setg %al
	setl %r8b
	subl %r8d, %eax
skip_cmp_ret:
	ret
	.size skip_cmp, . - skip_cmp

	.bss
	.globl skip_cmp_calls
	.align 4
skip_cmp_calls:
	.zero 4

	.section .note.GNU-stack, "", @progbits
