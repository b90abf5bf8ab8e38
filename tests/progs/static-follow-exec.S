// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * static-follow-exec: a static program without libc that forks a child
 * which execs argv[1] with the argument "leaf" (static-follow's leaf mode:
 * a known branch sequence), for tests/e2e/test_follow_exec.c.  An execve
 * that fails makes the child exit with its errno (14 for EFAULT), so a
 * tracer that damages the child's memory or registers shows in the exit
 * code.  The parent waits and exits with the child's exit code (or 100
 * plus the signal that killed it).
 *
 * The taken branches before the exec are known too:
 *	parent: exf_jz falls through; exf_jnz -> exf_signalled when killed
 *	child:  exf_jz -> exf_child
 */
#include "static-asm.h"

	.text
FUNC _start
	mov %rsp, %rbp			/* argc, argv[], NULL, envp[] */
	mov $57, %eax			/* SYS_fork */
	syscall
	test %eax, %eax
LABEL exf_jz
	jz exf_child
	sub $16, %rsp			/* wait4(-1, &status, 0, NULL) */
	mov $61, %eax
	mov $-1, %edi
	mov %rsp, %rsi
	xor %edx, %edx
	xor %r10d, %r10d
	syscall
	mov (%rsp), %edi
	test $0x7f, %edi		/* WTERMSIG */
LABEL exf_jnz
	jnz exf_signalled
	shr $8, %edi			/* WEXITSTATUS */
	and $0xff, %edi
	EXIT_GROUP
LABEL exf_signalled
	and $0x7f, %edi
	add $100, %edi
	EXIT_GROUP
LABEL exf_child
	EXEC_LEAF exf_argv
	.size _start, . - _start

	.data
	LEAF_ARGV exf_argv

	.section .note.GNU-stack, "", @progbits
