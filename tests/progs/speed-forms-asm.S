// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speed_run: one of each branch form a branch-stop tracer carries out
 * itself, and the instructions around them that are not branches, each
 * behind a label so that tests/e2e/test_speed.c can write the records out
 * by hand: jcc taken and not, loop / loope / loopne, jrcxz both ways and
 * jecxz, call rel / [rip] / [rsp] / reg / %fs:[reg], jmp [table] and reg,
 * ret and ret imm16, a call straight into a jmp, rep stos / rep movs, a
 * syscall, a signal delivered mid-block (kill) and the program's own int3.
 */
#include "label-asm.h"

	.text
FUNC speed_run
	push %rbx
	push %r12
	sub $8, %rsp

	xor %eax, %eax
LABEL speed_jz_taken
	jz speed_after_jz
	hlt
LABEL speed_after_jz
	inc %eax
LABEL speed_jz_not
	jz speed_fail

	mov $3, %ecx
LABEL speed_loop_top
	nop
LABEL speed_loop
	loop speed_loop_top		/* taken twice */

	mov $2, %ecx
LABEL speed_loope_top
	cmp %eax, %eax
LABEL speed_loope
	loope speed_loope_top		/* taken once, then %rcx is 0 */

	mov $5, %ecx
	xor %edx, %edx
LABEL speed_loopne_top
	inc %edx
	cmp $2, %edx
LABEL speed_loopne
	loopne speed_loopne_top		/* taken once, then ZF stops it */

	xor %ecx, %ecx
LABEL speed_jrcxz_taken
	jrcxz speed_after_jrcxz
	hlt
LABEL speed_after_jrcxz
	movabs $0x100000000, %rcx
LABEL speed_jrcxz_not
	jrcxz 1f
LABEL speed_jecxz_taken
	jecxz speed_after_jecxz		/* %ecx is 0, %rcx is not */
1:	hlt
LABEL speed_after_jecxz

LABEL speed_call_rel
	call speed_leaf
LABEL speed_after_call_rel
LABEL speed_call_mem
	call *speed_fptr(%rip)
LABEL speed_after_call_mem
	lea speed_leaf(%rip), %rax
	mov %rax, (%rsp)
LABEL speed_call_rsp
	call *(%rsp)			/* the operand is read before the push */
LABEL speed_after_call_rsp
	lea speed_leaf(%rip), %r11
LABEL speed_call_reg
	call *%r11
LABEL speed_after_call_reg
	mov speed_tls_fn@gottpoff(%rip), %rax
LABEL speed_call_fs
	call *%fs:(%rax)
LABEL speed_after_call_fs

	lea speed_table(%rip), %rcx
	mov $1, %edx
LABEL speed_jmp_table
	jmp *(%rcx,%rdx,8)
LABEL speed_case0
	hlt
LABEL speed_case1
	lea speed_after_jmp_reg(%rip), %rax
LABEL speed_jmp_reg
	jmp *%rax
	hlt
LABEL speed_after_jmp_reg

	push $7
LABEL speed_call_ret16
	call speed_ret16
LABEL speed_after_ret16
	cmp $7, %eax
	jne speed_fail
LABEL speed_call_stub
	call speed_stub
LABEL speed_after_stub

	lea speed_buf(%rip), %rdi
	mov $0x11, %eax
	mov $256, %ecx
LABEL speed_rep_stos
	rep stosb
	lea speed_buf(%rip), %rsi
	lea speed_buf2(%rip), %rdi
	mov $32, %ecx
LABEL speed_rep_movs
	rep movsq
	mov $39, %eax			/* getpid */
LABEL speed_syscall
	syscall
	mov %eax, %edi
	mov $10, %esi			/* SIGUSR1 */
	mov $62, %eax			/* kill */
	syscall
LABEL speed_after_kill
	nop
LABEL speed_int3
	int3
LABEL speed_after_int3
	nop

	mov $100, %ecx
LABEL speed_count_top
	dec %ecx
LABEL speed_count_jnz
	jnz speed_count_top

	add $8, %rsp
	pop %r12
	pop %rbx
	xor %eax, %eax
LABEL speed_run_ret
	ret
LABEL speed_fail
	hlt
LABEL speed_run_end
	.size speed_run, . - speed_run

FUNC speed_leaf
	xor %eax, %eax
LABEL speed_leaf_ret
	ret
	.size speed_leaf, . - speed_leaf

/* ret $8 pops the argument its caller pushed. */
FUNC speed_ret16
	mov 8(%rsp), %rax
LABEL speed_ret16_ret
	ret $8
	.size speed_ret16, . - speed_ret16

/* A stub that only jumps on, as a PLT entry does. */
FUNC speed_stub
	jmp speed_leaf
	.size speed_stub, . - speed_stub

FUNC speed_usr1_handler
	addl $1, speed_usr1_count(%rip)
LABEL speed_usr1_ret
	ret
	.size speed_usr1_handler, . - speed_usr1_handler

/* SIGTRAP of the int3: the pc is already past it. */
FUNC speed_trap_handler
	addl $1, speed_trap_count(%rip)
LABEL speed_trap_ret
	ret
	.size speed_trap_handler, . - speed_trap_handler

	.section .data.rel.ro, "aw"
	.balign 8
speed_table:
	.quad speed_case0
	.quad speed_case1

	.data
	.balign 8
speed_fptr:
	.quad speed_leaf
	.globl speed_usr1_count
speed_usr1_count:
	.long 0
	.globl speed_trap_count
speed_trap_count:
	.long 0

	.bss
	.balign 64
speed_buf:
	.skip 256
speed_buf2:
	.skip 256

	.section .note.GNU-stack, "", @progbits
