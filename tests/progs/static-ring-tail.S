// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * static-ring-tail: a static program without libc whose every taken branch
 * is known, for tests/e2e/test_ring_mode.c.  Nothing in it depends on
 * where the stack or anything else lands, so every run records the same
 * records.  The test reads the labels from the symbol table (no PIE).
 *
 * A loop counting v = RING_ROUNDS down to 1; each round calls ring_leaf
 * and jumps over a nop when v is even; then exit_group(0), so no branch
 * follows the loop.  Per round v the taken branches are:
 *	ring_call -> ring_leaf, ring_leaf_ret -> ring_after,
 *	ring_jz -> ring_even		(v even only)
 *	ring_jnz -> ring_top		(v > 1 only)
 */
#include "static-asm.h"

	.set RING_ROUNDS, 3000
	.globl ring_rounds
	.set ring_rounds, RING_ROUNDS	/* an absolute symbol the test reads */

	.text
FUNC _start
	mov $RING_ROUNDS, %ebx
LABEL ring_top
LABEL ring_call
	call ring_leaf
LABEL ring_after
	test $1, %ebx
LABEL ring_jz
	jz ring_even
	nop
LABEL ring_even
	dec %ebx
LABEL ring_jnz
	jnz ring_top
	xor %edi, %edi
	EXIT_GROUP
	.size _start, . - _start

	.globl ring_leaf
	.type ring_leaf, @function
ring_leaf:
LABEL ring_leaf_ret
	ret
	.size ring_leaf, . - ring_leaf

	.section .note.GNU-stack, "", @progbits
