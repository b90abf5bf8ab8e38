/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-forms: the i386 counterpart of speed-forms: one of each
 * branch form the branch-stop tracer carries out itself in 32-bit code,
 * each behind a label, so that tests/e2e/test_i386_fast.c can write the
 * records out by hand: jcc both ways, loop / loope / loopne, jecxz both
 * ways, call rel / [abs] / [esp] / reg / %gs:[abs] (a TLS segment of its
 * own, as glibc's `call *%gs:0x10`), jmp [table] and reg, ret and ret $4,
 * a call straight into a jmp, rep stos / rep movs, int $0x80, a signal
 * delivered mid-block (kill) and the program's own int3.  jcxz with the
 * 0x67 prefix (a 16-bit count) is left to the CPU: the tracer steps it.
 *
 * Static, no libc, not PIE: its labels are its run-time addresses.  After
 * forms_run it prints "label site_byte 0x000000XX": the byte its own read
 * of its code finds at count_jnz (0xcc while a tracer's int3 is there),
 * without a branch that depends on it.  It exits 0.
 */
#include "i386-asm.h"

#define SIGTRAP		5
#define SIGUSR1		10
#define SA_SIGINFO	4
#define SA_RESTORER	0x04000000

	.code32
	.text
FUNC _start
	mov	$243, %eax		/* set_thread_area: a TLS segment */
	mov	$tls_desc, %ebx
	int	$0x80
	test	%eax, %eax
	jnz	fail_exit
	mov	tls_desc, %eax		/* the entry the kernel chose */
	shl	$3, %eax
	or	$3, %eax
	mov	%eax, %gs
	mov	$SIGUSR1, %ebx
	mov	$act_usr1, %ecx
LABEL call_sig1
	call	sigaction
LABEL after_sig1
	mov	$SIGTRAP, %ebx
	mov	$act_trap, %ecx
LABEL call_sig2
	call	sigaction
LABEL after_sig2
LABEL main_call
	call	forms_run
LABEL main_resume
	test	%eax, %eax
	jnz	fail_exit
	movzbl	count_jnz, %edx
LABEL call_print
	call	print_site
LABEL after_print
	xor	%ebx, %ebx
	EXIT_TAIL
	.size	_start, . - _start

/* rt_sigaction(%ebx, %ecx, NULL, 8); exits on failure. */
FUNC sigaction
	mov	$174, %eax
	xor	%edx, %edx
	mov	$8, %esi
	int	$0x80
	test	%eax, %eax
	jnz	fail_exit
LABEL sigaction_ret
	ret
	.size	sigaction, . - sigaction

FUNC forms_run
	push	%ebx
	push	%esi
	push	%edi
	push	%ebp

	xor	%eax, %eax
LABEL jz_taken
	jz	after_jz
	hlt
LABEL after_jz
	inc	%eax
LABEL jz_not
	jz	forms_fail

	mov	$3, %ecx
LABEL loop_top
	nop
LABEL loop_back
	loop	loop_top		/* taken twice */

	mov	$2, %ecx
LABEL loope_top
	cmp	%eax, %eax
LABEL loope_back
	loope	loope_top		/* taken once, then %ecx is 0 */

	mov	$5, %ecx
	xor	%edx, %edx
LABEL loopne_top
	inc	%edx
	cmp	$2, %edx
LABEL loopne_back
	loopne	loopne_top		/* taken once, then ZF stops it */

	xor	%ecx, %ecx
LABEL jecxz_taken
	jecxz	after_jecxz
	hlt
LABEL after_jecxz
	mov	$1, %ecx
LABEL jecxz_not
	jecxz	2f
	mov	$0x10000, %ecx
LABEL jcxz_taken
	jcxz	after_jcxz		/* 0x67: %cx is 0, %ecx is not */
2:	hlt
LABEL after_jcxz

LABEL call_rel
	call	leaf
LABEL after_call_rel
LABEL call_mem
	call	*fptr
LABEL after_call_mem
	push	$leaf
LABEL call_esp
	call	*(%esp)			/* the operand is read before the push */
LABEL after_call_esp
	add	$4, %esp
	mov	$leaf, %edi
LABEL call_reg
	call	*%edi
LABEL after_call_reg
LABEL call_gs
	call	*%gs:0x10		/* as glibc calls __kernel_vsyscall */
LABEL after_call_gs

	mov	$1, %edx
LABEL jmp_table
	jmp	*table(, %edx, 4)
LABEL case0
	hlt
LABEL case1
	mov	$after_jmp_reg, %eax
LABEL jmp_reg
	jmp	*%eax
	hlt
LABEL after_jmp_reg

	push	$7
LABEL call_ret4
	call	ret4
LABEL after_ret4
	cmp	$7, %eax
	jne	forms_fail
LABEL call_stub
	call	stub
LABEL after_stub

	mov	$buf, %edi
	mov	$0x11, %eax
	mov	$256, %ecx
LABEL rep_stos
	rep stosb
	mov	$buf, %esi
	mov	$buf2, %edi
	mov	$32, %ecx
LABEL rep_movs
	rep movsl
	mov	$20, %eax		/* getpid */
LABEL int80
	int	$0x80
	mov	%eax, %ebx
	mov	$SIGUSR1, %ecx
	mov	$37, %eax		/* kill */
	int	$0x80
LABEL after_kill
	nop
LABEL own_int3
	int3
LABEL after_int3
	nop

	mov	$100, %ecx
LABEL count_top
	dec	%ecx
LABEL count_jnz
	jnz	count_top

	pop	%ebp
	pop	%edi
	pop	%esi
	pop	%ebx
	mov	usr1_count, %eax
	add	trap_count, %eax
	sub	$2, %eax		/* 0: both handlers ran once */
LABEL run_ret
	ret
LABEL forms_fail
	hlt
	.size	forms_run, . - forms_run

FUNC leaf
	xor	%eax, %eax
LABEL leaf_ret
	ret
	.size	leaf, . - leaf

/* ret $4 pops the argument its caller pushed. */
FUNC ret4
	mov	4(%esp), %eax
LABEL ret4_ret
	ret	$4
	.size	ret4, . - ret4

/* A stub that only jumps on, as a PLT entry does. */
FUNC stub
	jmp	leaf
	.size	stub, . - stub

FUNC usr1_handler
	incl	usr1_count
LABEL usr1_ret
	ret
	.size	usr1_handler, . - usr1_handler

/* SIGTRAP of the int3: the pc is already past it. */
FUNC trap_handler
	incl	trap_count
LABEL trap_ret
	ret
	.size	trap_handler, . - trap_handler

FUNC restorer
	mov	$173, %eax		/* rt_sigreturn */
LABEL restorer_int
	int	$0x80
	.size	restorer, . - restorer

/* "label site_byte 0x000000XX\n", XX from %dl. */
	PRINT_LABEL_FUNC print_site, site_byte

	.section .rodata
	.balign	4
table:
	.long	case0, case1

	.data
	.balign	4
fptr:	.long	leaf
tls_desc:				/* struct user_desc */
	.long	-1			/* entry_number: the kernel picks */
	.long	tls			/* base_addr */
	.long	0xfffff			/* limit, in pages */
	.long	0x51			/* seg_32bit, limit_in_pages, useable */
tls:	.long	0, 0, 0, 0, leaf	/* %gs:0x10 */
act_usr1:				/* struct sigaction (rt) */
	.long	usr1_handler, SA_SIGINFO | SA_RESTORER, restorer, 0, 0
act_trap:
	.long	trap_handler, SA_SIGINFO | SA_RESTORER, restorer, 0, 0
usr1_count:	.long	0
trap_count:	.long	0

	.bss
	.balign	64
buf:	.space	256
buf2:	.space	256

	.section .note.GNU-stack, "", @progbits
