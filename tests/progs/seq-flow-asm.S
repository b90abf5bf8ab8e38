// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The traced part of seq-flow: control flow whose every taken transfer is
 * known in advance.  tests/e2e/test_seq.c writes the expected records out
 * from the labels below; each label the test names is global so that the C
 * part can print its run-time address (the program is PIE).
 *
 * seq_run: a loop over a jump table, conditional branches taken and not
 * taken, an indirect call through a register, one through memory that
 * lands in a function ending in a tail call, rep string instructions, and
 * two signals whose handlers live here too (SIGUSR1 raised by a kill
 * syscall, SIGILL raised by ud2 and skipped by its handler).
 */

#include "label-asm.h"

	.text

FUNC seq_run
	push %rbx
	push %r12
	sub $8, %rsp

	/* A loop of three rounds through the jump table. */
	xor %ebx, %ebx
LABEL seq_loop
	mov %ebx, %edi
LABEL seq_call_switch
	call seq_switch
LABEL seq_after_switch
	inc %ebx
	cmp $3, %ebx
LABEL seq_loop_jb
	jb seq_loop

	/* One conditional branch not taken, then one taken. */
	test %ebx, %ebx
LABEL seq_jz_not_taken
	jz seq_fail
	cmp $3, %ebx
LABEL seq_je_taken
	je seq_skip
	hlt
LABEL seq_skip

	/* Indirect call through a register. */
	lea seq_leaf(%rip), %rax
LABEL seq_call_reg
	call *%rax
LABEL seq_after_call_reg

	/* Indirect call through memory, into a function that tail-calls. */
LABEL seq_call_mem
	call *seq_fptr(%rip)
LABEL seq_after_call_mem

	/* Many iterations of rep stosb and rep movsb: no record at all. */
	lea seq_buf(%rip), %rdi
	mov $0x5a, %eax
	mov $4096, %ecx
LABEL seq_rep_stosb
	rep stosb
	lea seq_buf(%rip), %rsi
	lea seq_buf2(%rip), %rdi
	mov $4096, %ecx
LABEL seq_rep_movsb
	rep movsb
LABEL seq_after_rep

	/* kill(getpid(), SIGUSR1): delivered as the syscall returns. */
	mov $39, %eax			/* SYS_getpid */
	syscall
	mov %eax, %edi
	mov $10, %esi			/* SIGUSR1 */
	mov $62, %eax			/* SYS_kill */
LABEL seq_kill_syscall
	syscall
LABEL seq_after_kill
	nop

	/* SIGILL: the handler moves the saved pc past the ud2. */
LABEL seq_ud2
	ud2
LABEL seq_after_ud2

	add $8, %rsp
	pop %r12
	pop %rbx
LABEL seq_run_ret
	ret

LABEL seq_fail
	hlt
	.size seq_run, . - seq_run

/*
 * seq_switch(i): three cases through a table of offsets.  Case 0 is the
 * instruction right after the indirect jmp: still a taken branch.
 */
FUNC seq_switch
	lea seq_table(%rip), %rcx
	movslq (%rcx,%rdi,4), %rax
	add %rcx, %rax
LABEL seq_switch_jmp
	jmp *%rax
LABEL seq_case0
	mov $10, %eax
LABEL seq_case0_jmp
	jmp seq_switch_out
LABEL seq_case1
	mov $11, %eax
LABEL seq_case1_jmp
	jmp seq_switch_out
LABEL seq_case2
	mov $12, %eax
LABEL seq_switch_out
	ret
	.size seq_switch, . - seq_switch

FUNC seq_leaf
	xor %eax, %eax
LABEL seq_leaf_ret
	ret
	.size seq_leaf, . - seq_leaf

/* The target of seq_tail_caller's tail call, placed before it. */
FUNC seq_tail_callee
	add $1, %eax
LABEL seq_tail_callee_ret
	ret
	.size seq_tail_callee, . - seq_tail_callee

/* Reached through seq_fptr; leaves by a tail call to seq_tail_callee. */
FUNC seq_tail_caller
	mov $1, %eax
LABEL seq_tail_jmp
	jmp seq_tail_callee
	.size seq_tail_caller, . - seq_tail_caller

/* SIGUSR1 handler (plain sa_handler). */
FUNC seq_usr1_handler
	addl $1, seq_usr1_count(%rip)
LABEL seq_usr1_ret
	ret
	.size seq_usr1_handler, . - seq_usr1_handler

/*
 * SIGILL handler (SA_SIGINFO): %rdx is the ucontext_t; skip the 2-byte ud2
 * by advancing uc_mcontext.gregs[REG_RIP] (offset checked in seq-flow.c).
 */
FUNC seq_ill_handler
	addq $2, 168(%rdx)
LABEL seq_ill_ret
	ret
	.size seq_ill_handler, . - seq_ill_handler

	.section .rodata
	.balign 4
seq_table:
	.long seq_case0 - seq_table
	.long seq_case1 - seq_table
	.long seq_case2 - seq_table

	.data
	.balign 8
seq_fptr:
	.quad seq_tail_caller
	.globl seq_usr1_count
seq_usr1_count:
	.long 0

	.bss
	.balign 64
seq_buf:
	.skip 4096
seq_buf2:
	.skip 4096

	.section .note.GNU-stack, "", @progbits
