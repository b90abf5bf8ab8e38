/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-gdbthreads: two threads without libc, for the gdb stub's
 * per-thread recording test in the guest (tests/kernel/test_gdbserver.c).
 * The main thread clones a thread (raw clone, a stack of its own in .bss)
 * and spins until that thread has called gt_leaf once and set gt_done;
 * the thread then exits, and the process exits with 5.  The test reads
 * the labels from the symbol table (no PIE).
 */
	.macro LABEL name
	.globl \name
\name:
	.endm

	/* CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM */
	.set GT_CLONE, 0x50f00

	.text
	.globl _start
	.type _start, @function
_start:
	mov $GT_CLONE, %edi
	lea gt_stack_top(%rip), %rsi
	xor %edx, %edx
	xor %r10d, %r10d
	xor %r8d, %r8d
	mov $56, %eax			/* SYS_clone */
	syscall
	test %eax, %eax
	jz gt_child
LABEL gt_wait
	cmpl $0, gt_done(%rip)
LABEL gt_wait_je
	je gt_wait
	mov $5, %edi
	mov $231, %eax			/* SYS_exit_group */
	syscall
	hlt

gt_child:
LABEL gt_child_start
	call gt_leaf
LABEL gt_child_bp
	movl $1, gt_done(%rip)
	xor %edi, %edi
	mov $60, %eax			/* SYS_exit: this thread only */
	syscall
	hlt
	.size _start, . - _start

	.globl gt_leaf
	.type gt_leaf, @function
gt_leaf:
	nop
LABEL gt_leaf_ret
	ret
	.size gt_leaf, . - gt_leaf

	.bss
	.align 16
gt_done:
	.long 0
	.align 16
gt_stack:
	.skip 8192
gt_stack_top:

	.section .note.GNU-stack,"",@progbits
