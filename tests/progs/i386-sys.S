/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-sys: how a 32-bit program enters and leaves the kernel, for exact
 * sequences (tests/e2e/test_i386.c): int $0x80, a call of the vDSO's
 * __kernel_vsyscall (sysenter or syscall, returning past an int $0x80),
 * and signal handlers that return through rt_sigreturn and sigreturn of
 * restorers of its own and through the vDSO's __kernel_rt_sigreturn.
 *
 * Static, no libc, not PIE: its labels are its run-time addresses.  The
 * first line is "label kernel_vsyscall 0xADDR" (AT_SYSINFO); it exits 0.
 */
#include "i386-asm.h"

#define SIGUSR1		10
#define SIGUSR2		12
#define SA_SIGINFO	4		/* the rt frame; without it, the old one */
#define SA_RESTORER	0x04000000
#define AT_SYSINFO	32

	.code32
	.text
	.globl	_start
	.type	_start, @function
_start:
	/* auxv: past argc, argv[], NULL, envp[], NULL */
	mov	(%esp), %eax
	lea	8(%esp, %eax, 4), %esi
1:	mov	(%esi), %eax
	add	$4, %esi
	test	%eax, %eax
	jnz	1b
2:	mov	(%esi), %eax
	test	%eax, %eax
	jz	fail_exit
	cmp	$AT_SYSINFO, %eax
	je	3f
	add	$8, %esi
	jmp	2b
3:	mov	4(%esi), %eax
	mov	%eax, vsys
	mov	%eax, %edx
	call	print_vsys
	.globl	main_call
main_call:
	call	main
	.globl	main_resume
main_resume:
	mov	%eax, %ebx
	EXIT_TAIL
	.size	_start, . - _start

/* "label kernel_vsyscall 0x%08x\n" with the address in %edx. */
	PRINT_LABEL_FUNC print_vsys, kernel_vsyscall

	.globl	main
	.type	main, @function
main:
	push	%ebx
	push	%esi
	mov	$20, %eax		/* getpid, through int $0x80 */
	.globl	int80_getpid
int80_getpid:
	int	$0x80
	mov	%eax, pid
	mov	$20, %eax		/* getpid, through the vDSO */
	.globl	call_vsys
call_vsys:
	call	*vsys
	.globl	after_vsys
after_vsys:
	cmp	pid, %eax
	jne	fail

	/* SIGUSR1, restorer of our own: rt_sigreturn */
	mov	$174, %eax		/* rt_sigaction */
	mov	$SIGUSR1, %ebx
	mov	$act_rt, %ecx
	xor	%edx, %edx
	mov	$8, %esi
	int	$0x80
	test	%eax, %eax
	jnz	fail
	mov	$37, %eax		/* kill */
	mov	pid, %ebx
	mov	$SIGUSR1, %ecx
	int	$0x80
	.globl	after_kill1
after_kill1:
	/* SIGUSR2, old sigaction, restorer of our own: sigreturn */
	mov	$67, %eax		/* sigaction */
	mov	$SIGUSR2, %ebx
	mov	$act_old, %ecx
	xor	%edx, %edx
	int	$0x80
	test	%eax, %eax
	jnz	fail
	mov	$37, %eax
	mov	pid, %ebx
	mov	$SIGUSR2, %ecx
	int	$0x80
	.globl	after_kill2
after_kill2:
	/* SIGUSR1 again without SA_RESTORER: the vDSO's restorer */
	mov	$174, %eax
	mov	$SIGUSR1, %ebx
	mov	$act_vdso, %ecx
	xor	%edx, %edx
	mov	$8, %esi
	int	$0x80
	test	%eax, %eax
	jnz	fail
	mov	$37, %eax
	mov	pid, %ebx
	mov	$SIGUSR1, %ecx
	int	$0x80
	.globl	after_kill3
after_kill3:
	mov	hits, %eax
	cmp	$3, %eax
	jne	fail
	xor	%eax, %eax
	pop	%esi
	pop	%ebx
	.globl	main_ret
main_ret:
	ret
fail:
	mov	$1, %eax
	pop	%esi
	pop	%ebx
	ret
	.size	main, . - main

	.globl	usr_handler
	.type	usr_handler, @function
usr_handler:
	incl	hits
	.globl	usr_ret
usr_ret:
	ret
	.size	usr_handler, . - usr_handler

	.globl	rt_restorer
	.type	rt_restorer, @function
rt_restorer:
	mov	$173, %eax		/* rt_sigreturn */
	.globl	rt_restorer_int
rt_restorer_int:
	int	$0x80
	.size	rt_restorer, . - rt_restorer

	.globl	old_restorer
	.type	old_restorer, @function
old_restorer:
	pop	%eax			/* the signal number */
	mov	$119, %eax		/* sigreturn */
	.globl	old_restorer_int
old_restorer_int:
	int	$0x80
	.size	old_restorer, . - old_restorer

	.data
	.balign	4
act_rt:					/* struct sigaction (rt) */
	.long	usr_handler, SA_SIGINFO | SA_RESTORER, rt_restorer, 0, 0
act_old:				/* struct old_sigaction */
	.long	usr_handler, 0, SA_RESTORER, old_restorer
act_vdso:
	.long	usr_handler, SA_SIGINFO, 0, 0, 0

	.bss
	.balign	4
vsys:	.space	4
pid:	.space	4
hits:	.space	4

	.section .note.GNU-stack, "", @progbits
