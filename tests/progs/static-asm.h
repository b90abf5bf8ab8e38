/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the static x86-64 programs without libc
 * (tests/progs/static-*.S): labels, and the system calls they make the
 * same way.  Every macro is straight-line code, so a test that counts
 * branches sees only those the program writes out.
 */
#ifndef TESTS_PROGS_STATIC_ASM_H
#define TESTS_PROGS_STATIC_ASM_H

#include "label-asm.h"

/* exit_group(%edi); never returns. */
	.macro EXIT_GROUP
	mov $231, %eax			/* SYS_exit_group */
	syscall
	hlt
	.endm

/*
 * clone(%edi flags, \stack_top, NULL, NULL, 0): %eax is 0 in the child,
 * which starts on \stack_top.
 */
	.macro CLONE stack_top
	lea \stack_top(%rip), %rsi
	xor %edx, %edx
	xor %r10d, %r10d
	xor %r8d, %r8d
	mov $56, %eax			/* SYS_clone */
	syscall
	.endm

/*
 * execve(argv[1], \argv, NULL) with %rbp at argc, where \argv is a
 * LEAF_ARGV (its argv[0] set here to argv[1]); when the exec fails,
 * exit_group(its errno).
 */
	.macro EXEC_LEAF argv
	mov 16(%rbp), %rdi		/* argv[1]: the program */
	lea \argv(%rip), %rsi
	mov %rdi, (%rsi)		/* its argv[0] */
	xor %edx, %edx			/* no environment */
	mov $59, %eax			/* SYS_execve */
	syscall
	neg %eax			/* it failed: exit with its errno */
	mov %eax, %edi
	EXIT_GROUP
	.endm

/* Data: the argv { argv[0] set by EXEC_LEAF, "leaf", NULL } named \name. */
	.macro LEAF_ARGV name
	.balign 8
\name:
	.quad 0
	.quad \name\()_leaf
	.quad 0
\name\()_leaf:
	.asciz "leaf"
	.endm

#endif /* TESTS_PROGS_STATIC_ASM_H */
