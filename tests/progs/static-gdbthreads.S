/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-gdbthreads: two threads without libc, for the gdb stub's
 * per-thread recording test in the guest (tests/kernel/test_gdbserver.c).
 * The main thread clones a thread (raw clone, a stack of its own in .bss)
 * and spins until that thread has called gt_leaf once and set gt_done;
 * the thread then exits, and the process exits with 5.  The test reads
 * the labels from the symbol table (no PIE).
 */
#include "static-asm.h"

	/* CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM */
	.set GT_CLONE, 0x50f00

	.text
FUNC _start
	mov $GT_CLONE, %edi
	CLONE gt_stack_top
	test %eax, %eax
	jz gt_child
LABEL gt_wait
	cmpl $0, gt_done(%rip)
LABEL gt_wait_je
	je gt_wait
	mov $5, %edi
	EXIT_GROUP

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
