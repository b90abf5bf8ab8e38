/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Traced programs of the kmod-step tests, whose records are known exactly.
 * Each entry stops itself with SIGSTOP (getpid, kill): the tracer attaches
 * at that stop, so that recording starts at the instruction after the kill
 * syscall, a nop.  Each ends with exit_group and never returns.  The global
 * labels are the addresses the tests expect in the records.
 */
	.text

.macro STOP_SELF
	mov	$39, %eax		/* getpid */
	syscall
	mov	%eax, %edi
	mov	$19, %esi		/* SIGSTOP */
	mov	$62, %eax		/* kill */
	syscall
	nop
.endm

.macro EXIT code
	mov	$\code, %edi
	mov	$231, %eax		/* exit_group */
	syscall
	ud2
.endm

/* A loop of \n iterations around a call: per iteration {call -> leaf},
 * {leaf -> after}, and {jnz -> call} but for the last. */
.macro LOOP tag
	.globl	kt_\tag\()_call, kt_\tag\()_after, kt_\tag\()_jnz
kt_\tag\()_call:
	call	kt_leaf
kt_\tag\()_after:
	dec	%rbx
kt_\tag\()_jnz:
	jnz	kt_\tag\()_call
.endm

	.globl	kt_leaf
kt_leaf:
	ret

/* kt_seq_loop(n): the loop, n >= 1 times. */
	.globl	kt_seq_loop
kt_seq_loop:
	mov	%rdi, %rbx
	STOP_SELF
	LOOP	loop
	EXIT	0

/*
 * kt_seq_two(n, m, stack): stops itself, then clone()s a thread of the
 * same process on @stack (CLONE_VM | FS | FILES | SIGHAND | THREAD |
 * SYSVSEM).  The calling thread runs the loop n times, the new one (after
 * its jz, the one branch where the two differ) m times; each ends with
 * exit, of its own thread only, and the last exit ends the process.
 */
	.globl	kt_seq_two, kt_two_jz, kt_two_b, kt_two_a_exit, kt_two_b_exit
kt_seq_two:
	mov	%rdi, %r12
	mov	%rsi, %r13
	mov	%rdx, %r14
	STOP_SELF
	mov	$0x50f00, %edi
	mov	%r14, %rsi
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	mov	$56, %eax		/* clone */
	syscall
	test	%eax, %eax
kt_two_jz:
	jz	kt_two_b
	mov	%r12, %rbx
	LOOP	two_a
	xor	%edi, %edi
	mov	$60, %eax		/* exit */
kt_two_a_exit:
	syscall
	ud2
kt_two_b:
	mov	%r13, %rbx
	LOOP	two_b
	xor	%edi, %edi
	mov	$60, %eax		/* exit */
kt_two_b_exit:
	syscall
	ud2

/* kt_seq_stop(n): the loop, a SIGSTOP of its own, the loop again. */
	.globl	kt_seq_stop
kt_seq_stop:
	mov	%rdi, %r12
	mov	%rdi, %rbx
	STOP_SELF
	LOOP	stop1
	mov	$39, %eax
	syscall
	mov	%eax, %edi
	mov	$19, %esi
	mov	$62, %eax
	syscall
	mov	%r12, %rbx
	LOOP	stop2
	EXIT	0

/* kt_seq_sys(): branches right after syscalls run with no trap before. */
	.globl	kt_seq_sys, kt_sys_jmp, kt_sys_target, kt_sys_call, kt_sys_ret
kt_seq_sys:
	STOP_SELF
	mov	$39, %eax
	syscall
kt_sys_jmp:
	jmp	kt_sys_target
	ud2
kt_sys_target:
	mov	$39, %eax
	syscall
kt_sys_call:
	call	kt_leaf
kt_sys_ret:
	EXIT	0

/*
 * kt_seq_sig(): SIGUSR1 to itself; the handler (installed by the test
 * with kt_sig_restorer as its restorer) returns at once.
 */
	.globl	kt_seq_sig, kt_sig_resume, kt_sig_after, kt_sig_handler
	.globl	kt_sig_restorer, kt_sig_restorer_sys
kt_seq_sig:
	STOP_SELF
	mov	$39, %eax
	syscall
	mov	%eax, %edi
	mov	$10, %esi		/* SIGUSR1 */
	mov	$62, %eax
	syscall
kt_sig_resume:
	jmp	kt_sig_after
	ud2
kt_sig_after:
	EXIT	0
/* Where a tracer may make rt_sigreturn resume instead of kt_sig_resume. */
	.globl	kt_sig_alt
kt_sig_alt:
	jmp	kt_sig_after
kt_sig_handler:
	ret
kt_sig_restorer:
	mov	$15, %eax		/* rt_sigreturn */
kt_sig_restorer_sys:
	syscall
	ud2

/*
 * kt_seq_fork(nr): fork (57) or vfork (58); the child loops and exits 7,
 * the parent waits for it and exits with the child's exit code (0 when the
 * child died of a signal).
 */
	.globl	kt_seq_fork, kt_fork_jnz, kt_fork_parent
kt_seq_fork:
	mov	%rdi, %r12
	STOP_SELF
	mov	%r12, %rax
	syscall
	test	%eax, %eax
kt_fork_jnz:
	jnz	kt_fork_parent
	jmp	1f
kt_fork_parent:
	sub	$16, %rsp
	movl	$0, (%rsp)
	mov	$-1, %rdi
	mov	%rsp, %rsi
	xor	%edx, %edx
	xor	%r10d, %r10d
	mov	$61, %eax		/* wait4 */
	syscall
	mov	(%rsp), %edi
	shr	$8, %edi
	and	$0xff, %edi
	mov	$231, %eax
	syscall
	ud2
1:	mov	$100, %ecx
2:	dec	%ecx
	jnz	2b
	EXIT	7

/*
 * kt_seq_popf(): a jump, then the trap flag cleared with popf, a jump that
 * runs untraced; exits 1 when pushf showed the flag set.
 */
	.globl	kt_seq_popf, kt_popf_jmp, kt_popf_target
kt_seq_popf:
	STOP_SELF
kt_popf_jmp:
	jmp	kt_popf_target
	ud2
kt_popf_target:
	pushf
	mov	(%rsp), %rdi
	shr	$8, %rdi
	and	$1, %edi
	andq	$~0x100, (%rsp)
	popf
	jmp	1f
	ud2
1:	mov	$231, %eax
	syscall
	ud2

/* kt_seq_pause(): pause() once, then exit 5. */
	.globl	kt_seq_pause
kt_seq_pause:
	STOP_SELF
	mov	$34, %eax		/* pause */
	syscall
	EXIT	5

/* kt_seq_exec(): execve("/bin/busybox", {"busybox", "true"}, {}). */
	.globl	kt_seq_exec
kt_seq_exec:
	STOP_SELF
	lea	kt_busybox(%rip), %rdi
	push	$0
	lea	kt_true(%rip), %rax
	push	%rax
	push	%rdi
	mov	%rsp, %rsi
	push	$0
	mov	%rsp, %rdx
	mov	$59, %eax		/* execve */
	syscall
	EXIT	99

	.section .rodata
kt_busybox:
	.asciz	"/bin/busybox"
kt_true:
	.asciz	"true"

	.section .note.GNU-stack, "", @progbits
