// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The traced part of strip-depth, written out so that the call depth is
 * known exactly.  The program is stripped: only the exported functions
 * (depth_hop, depth_target; main) keep a name, from .dynsym.
 *
 *	depth_rec(n)   unnamed: calls itself down to n = 0, then, at the
 *	               bottom, calls depth_hop DEPTH_HOPS times
 *	depth_hop      named: jumps into depth_tramp (a tail call)
 *	depth_tramp    unnamed: jumps to the start of depth_target (as a
 *	               lazy PLT's resolver jumps to the function it found)
 *	depth_target   named: returns straight to depth_rec
 *
 * So depth_rec(N) called from main runs at main's level + 1 down to
 * main's level + 1 + N, and depth_target at main's level + N + 4.
 */
	.set DEPTH_HOPS, 10

	.text

	.globl depth_rec
	.hidden depth_rec
	.type depth_rec, @function
depth_rec:
	test %edi, %edi
	jz 1f
	dec %edi
	call depth_rec
	ret
1:	mov $DEPTH_HOPS, %ecx
2:	push %rcx
	call depth_hop
	pop %rcx
	dec %ecx
	jnz 2b
	ret
	.size depth_rec, . - depth_rec

	.globl depth_hop
	.type depth_hop, @function
depth_hop:
	jmp depth_tramp
	.size depth_hop, . - depth_hop

depth_tramp:
	nop
	jmp depth_target

	.globl depth_target
	.type depth_target, @function
depth_target:
	ret
	.size depth_target, . - depth_target

	.section .note.GNU-stack, "", @progbits
