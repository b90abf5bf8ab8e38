/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-gdb-sig: a 32-bit program that signals itself, for the gdb stub's
 * i386 tests.  sig_send raises SIGUSR1 with kill(); the handler counts
 * it and returns through its rt_sigreturn restorer; sig_send then calls
 * sig_done and returns the count, the exit code (1).  From sig_send's
 * first instruction to sig_done's, 12 instructions run (offset from
 * sig_send:size):
 *   sig_send:  mov 0:5, jmp 5:2, mov 7:5, dec 12:1, mov 13:5, int 18:2
 *   handler:   incl hits, ret;  restorer: mov, int $0x80 (rt_sigreturn)
 *   sig_send:  mov 20:5, call sig_done 25:5
 * The stub ends the block before the signal (from the jmp's target) at
 * the int $0x80 by walking its code: dec %edx (0x4a) and the mov after it
 * are one 10-byte movabs in 64-bit code, so only a 32-bit walk finds it.
 *
 * Static, no libc, not PIE.
 */
#define SIGUSR1		10
#define SA_SIGINFO	4
#define SA_RESTORER	0x04000000

	.code32
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	$174, %eax		/* rt_sigaction(SIGUSR1, &act, 0, 8) */
	mov	$SIGUSR1, %ebx
	mov	$act, %ecx
	xor	%edx, %edx
	mov	$8, %esi
	int	$0x80
	mov	$20, %eax		/* getpid */
	int	$0x80
	mov	%eax, %ebx
	call	sig_send
	mov	%eax, %ebx
	mov	$1, %eax		/* exit(hits) */
	int	$0x80
	hlt
	.size	_start, . - _start

/* sig_send(pid in %ebx): kill(pid, SIGUSR1); returns hits. */
	.globl	sig_send
	.type	sig_send, @function
sig_send:
	mov	$SIGUSR1, %ecx
	jmp	1f			/* a branch: the next block starts */
1:	mov	$2, %edx
	dec	%edx
	mov	$37, %eax		/* kill */
	int	$0x80
	mov	hits, %eax
	call	sig_done
	ret
	.size	sig_send, . - sig_send

	.globl	handler
	.type	handler, @function
handler:
	incl	hits
	ret
	.size	handler, . - handler

	.globl	restorer
	.type	restorer, @function
restorer:
	mov	$173, %eax		/* rt_sigreturn */
	int	$0x80
	.size	restorer, . - restorer

	.globl	sig_done
	.type	sig_done, @function
sig_done:
	nop
	ret
	.size	sig_done, . - sig_done

	.data
	.balign	4
act:					/* struct sigaction (rt) */
	.long	handler, SA_SIGINFO | SA_RESTORER, restorer, 0, 0

	.bss
	.balign	4
hits:	.space	4

	.section .note.GNU-stack, "", @progbits
