/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forms(buf, n): instructions whose names gdb and Zydis spell differently
 * (condition codes, zero and sign extensions, long nops, movabs, shifts
 * by one, rip-relative operands, indirect calls), run once in this order
 * with n = 1.  tests/e2e/test_insn_text.c knows each line gdb prints.
 */
#include "label-asm.h"

	.text
FUNC forms
	push %rbp
	mov %rsp, %rbp
	movzbl (%rdi), %eax
	movswq 2(%rdi), %rcx
	movslq %esi, %rdx
	cmp $5, %esi
	setge %al
	cmovae %ecx, %eax
	cltq
	negl 4(%rdi)
	shr %edx
	movabs $0x1122334455667788, %r8
	lea forms_counter(%rip), %r9
	.byte 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00	/* nopw 0x0(%rax,%rax,1) */
	xchg %ax, %ax
	cmp $1, %esi
	jne 1f
	nop
1:	call forms_helper
	lea forms_helper(%rip), %r10
	call *%r10
	pop %rbp
	ret

FUNC forms_helper
	ret

	.data
LABEL forms_counter
	.quad 0
	.section .note.GNU-stack, "", @progbits
