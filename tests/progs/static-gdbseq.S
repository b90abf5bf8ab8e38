/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-gdbseq: the known sequence of gdb-seq-asm.S in a static program
 * without libc, for the gdb stub's tests in the guest
 * (tests/kernel/test_gdbserver.c), where both sources serve it: every
 * taken branch is known, nothing depends on where the stack lands, and
 * nothing runs before _start.  The test reads the labels from the symbol
 * table (no PIE).
 *
 *   gs_run calls gs_leaf three times in a loop (eax counts them), then
 *   gs_done, and returns; then a loop of GS_FLOOD rounds with one taken
 *   branch each (gs_flood_jnz -> gs_flood, but for the last), more than a
 *   one-page buffer holds (170 records); then exit_group(3).
 */
#include "static-asm.h"

	.set GS_FLOOD, 300
	.globl gs_flood_rounds
	.set gs_flood_rounds, GS_FLOOD	/* an absolute symbol the test reads */

	.text
FUNC _start
	call gs_run
LABEL gs_back
	mov %eax, %r12d
	mov $GS_FLOOD, %ebx
LABEL gs_flood
	dec %ebx
LABEL gs_flood_jnz
	jnz gs_flood
LABEL gs_end
	mov %r12d, %edi
	EXIT_GROUP
	.size _start, . - _start

	.globl gs_run
	.type gs_run, @function
gs_run:
	push %rbp
	mov %rsp, %rbp
	mov $3, %ecx
	xor %eax, %eax
LABEL gs_call
	call gs_leaf
LABEL gs_after
	dec %ecx
LABEL gs_jnz
	jnz gs_call
	pop %rbp
LABEL gs_call_done
	call gs_done
LABEL gs_run_ret
	ret
	.size gs_run, . - gs_run

	.globl gs_leaf
	.type gs_leaf, @function
gs_leaf:
	add $1, %eax
LABEL gs_leaf_ret
	ret
	.size gs_leaf, . - gs_leaf

	.globl gs_done
	.type gs_done, @function
gs_done:
	nop
LABEL gs_done_ret
	ret
	.size gs_done, . - gs_done

	.section .note.GNU-stack,"",@progbits
