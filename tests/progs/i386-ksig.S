/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-ksig: a 32-bit program that kmod-step must record exactly as
 * ptrace-step does (tests/kernel/test_i386.c), and qemu-user with the
 * sequence tests/e2e/test_qemu_i386.c writes out: a counted loop, int $0x80
 * syscalls, and handlers of SIGUSR1 (rt frame, its restorer runs
 * rt_sigreturn) and SIGUSR2 (old frame, sigreturn).  No vDSO call: its
 * address differs between runs, and the raw records are compared.
 *
 * Static, no libc, not PIE.  Prints "i386-ksig ok" and exits 0.
 */
#define SIGUSR1		10
#define SIGUSR2		12
#define SA_SIGINFO	4
#define SA_RESTORER	0x04000000

	.code32
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	$5, %ecx
1:	call	work
	loop	1b
	mov	$20, %eax		/* getpid */
	int	$0x80
	mov	%eax, pid

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

	mov	$67, %eax		/* sigaction: the old frame */
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

	cmpl	$2, hits
	jne	fail
	mov	$4, %eax		/* write */
	mov	$1, %ebx
	mov	$msg, %ecx
	mov	$(msg_end - msg), %edx
	int	$0x80
	xor	%ebx, %ebx
	jmp	exit
fail:
	mov	$1, %ebx
exit:
	mov	$1, %eax		/* exit */
	int	$0x80
	.size	_start, . - _start

	.type	work, @function
work:
	test	$1, %ecx
	jz	1f
	incl	odd
1:	ret
	.size	work, . - work

	.type	handler, @function
handler:
	incl	hits
	call	work
	ret
	.size	handler, . - handler

	.type	rt_restorer, @function
rt_restorer:
	mov	$173, %eax		/* rt_sigreturn */
	int	$0x80
	.size	rt_restorer, . - rt_restorer

	.type	old_restorer, @function
old_restorer:
	pop	%eax			/* the signal number */
	mov	$119, %eax		/* sigreturn */
	int	$0x80
	.size	old_restorer, . - old_restorer

	.data
	.balign	4
act_rt:					/* struct sigaction (rt) */
	.long	handler, SA_SIGINFO | SA_RESTORER, rt_restorer, 0, 0
act_old:				/* struct old_sigaction */
	.long	handler, 0, SA_RESTORER, old_restorer
msg:
	.ascii	"i386-ksig ok\n"
msg_end:

	.bss
	.balign	4
pid:	.space	4
hits:	.space	4
odd:	.space	4

	.section .note.GNU-stack, "", @progbits
