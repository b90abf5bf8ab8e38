/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-exec PROG ARGS...: a static 32-bit program without libc that execs
 * PROG (a 64-bit one, in the tests), so that a process's image changes
 * bitness under btrace.  Exits 127 when the exec fails.
 */
	.code32
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	(%esp), %eax		/* argc */
	lea	8(%esp), %ecx		/* argv + 1 */
	lea	8(%esp, %eax, 4), %edx	/* envp */
	mov	(%ecx), %ebx		/* PROG */
	mov	$11, %eax		/* execve */
	int	$0x80
	mov	$127, %ebx
	mov	$1, %eax		/* exit */
	int	$0x80
	.size	_start, . - _start

	.section .note.GNU-stack, "", @progbits
