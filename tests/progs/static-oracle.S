/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-oracle: a static program without libc whose control flow holds
 * every kind of branch, so that btrace's records can be compared, record
 * for record, with the branches qemu-user's instruction log shows.
 *
 * The global labels name the instructions whose records the oracle's unit
 * tests count by hand (tests/oracle/test_qemu_log.c); their counts follow
 * from ROUNDS, FIBN and LOOPS.  It writes "static-oracle ok\n" and exits 0
 * when its own checks pass, 1 otherwise.
 */
#define ROUNDS	200		/* rounds of the switch loop */
#define FIBN	15		/* fib(15) = 610: 1973 calls, 987 leaves */
#define FIBVAL	610
#define LOOPS	10		/* iterations of the loop instruction */

	.text
	.globl	_start
	.type	_start, @function
_start:
	call	main
	mov	%eax, %edi
	mov	$60, %eax		/* exit */
exit_syscall:
	syscall
	hlt
	.size	_start, . - _start

/* main: the switch loop, then fib, the string copies, the loop insn. */
	.type	main, @function
main:
	push	%rbx
	push	%r12
	xor	%ebx, %ebx
	xor	%r12d, %r12d
round:
	mov	%ebx, %edi
	call	step
	add	%eax, %r12d
	inc	%ebx
	cmp	$ROUNDS, %ebx
round_jb:
	jb	round			/* taken ROUNDS - 1 times */
	mov	$FIBN, %edi
	call	fib
	cmp	$FIBVAL, %eax
	jne	fail
	call	copy
	test	%eax, %eax
	jnz	fail
	call	countdown
	cmp	$(LOOPS * (LOOPS + 1) / 2), %eax
	jne	fail
	call	pc_thunk
	lea	pc_thunk_next(%rip), %rcx
	cmp	%rcx, %rax
	jne	fail
	call	say_ok
	xor	%eax, %eax
	pop	%r12
	pop	%rbx
main_ret:
	ret
fail:
	mov	$1, %eax
	pop	%r12
	pop	%rbx
	ret
	.size	main, . - main

/* step(i): a switch on i % 5 through a jump table of absolute addresses. */
	.type	step, @function
step:
	mov	%edi, %eax
	xor	%edx, %edx
	mov	$5, %ecx
	div	%ecx
switch_jmp:
	jmp	*jtab(, %rdx, 8)
case0:					/* nested calls */
	call	nest_a
	ret
case1:					/* an indirect call: fptrs[i % 3] */
	mov	%edi, %eax
	xor	%edx, %edx
	mov	$3, %ecx
	div	%ecx
indirect_call:
	call	*fptrs(, %rdx, 8)
	ret
case2:					/* a tail call */
	mov	%edi, %eax
tail_jmp:
	jmp	leaf
case3:					/* a conditional branch both ways */
	test	$1, %dil
odd_jz:
	jz	1f
	lea	1(%rdi), %eax
	ret
1:	lea	2(%rdi), %eax
	ret
case4:					/* jrcxz taken when i / 5 is even */
	mov	%eax, %ecx
	and	$1, %ecx
	xor	%eax, %eax
test_jrcxz:
	jrcxz	1f
	mov	$7, %eax
	jmp	2f
1:	mov	$9, %eax
	jmp	1f			/* a jump to the next instruction */
1:
2:	ret
	.size	step, . - step

	.type	nest_a, @function
nest_a:
	call	nest_b
	add	$1, %eax
	ret
	.size	nest_a, . - nest_a

	.type	nest_b, @function
nest_b:
	call	nest_c
	add	$2, %eax
	ret
	.size	nest_b, . - nest_b

	.type	nest_c, @function
nest_c:
	mov	$3, %eax
	ret
	.size	nest_c, . - nest_c

	.type	leaf, @function
leaf:
	add	$5, %eax
	ret
	.size	leaf, . - leaf

	.type	f_inc, @function
f_inc:
	lea	1(%rdi), %eax
	ret
	.size	f_inc, . - f_inc

	.type	f_dbl, @function
f_dbl:
	lea	(%rdi, %rdi), %eax
	ret
	.size	f_dbl, . - f_dbl

	.type	f_neg, @function
f_neg:
	mov	%edi, %eax
	neg	%eax
	ret
	.size	f_neg, . - f_neg

/* fib(n), recursive. */
	.type	fib, @function
fib:
	cmp	$2, %edi
fib_jb:
	jb	fib_leaf		/* taken at every leaf */
	push	%rbx
	push	%r12
	mov	%edi, %ebx
	lea	-1(%rdi), %edi
	call	fib
	mov	%eax, %r12d
	lea	-2(%rbx), %edi
	call	fib
	add	%r12d, %eax
	pop	%r12
	pop	%rbx
	ret
fib_leaf:
	mov	%edi, %eax
	ret
	.size	fib, . - fib

/*
 * copy: rep movsb, rep stosb with a count of 0 and of 32; returns 0 when
 * the bytes are where they should be.
 */
	.type	copy, @function
copy:
	lea	src(%rip), %rsi
	lea	dst(%rip), %rdi
	mov	$48, %ecx
rep_movsb:
	rep movsb
	xor	%ecx, %ecx
	mov	$'z', %al
rep_stosb0:
	rep stosb			/* no iteration */
	mov	$32, %ecx
rep_stosb:
	rep stosb
	mov	$1, %eax
	cmpb	$'!', dst + 47(%rip)
	jne	1f
	cmpb	$'z', dst + 79(%rip)
	jne	1f
	cmpb	$0, dst + 80(%rip)
	jne	1f
	xor	%eax, %eax
1:	ret
	.size	copy, . - copy

/* countdown: 1 + 2 + ... + LOOPS with the loop instruction. */
	.type	countdown, @function
countdown:
	xor	%eax, %eax
	mov	$LOOPS, %ecx
1:	add	%ecx, %eax
loop_insn:
	loop	1b			/* taken LOOPS - 1 times */
	ret
	.size	countdown, . - countdown

/* pc_thunk: a call to the next instruction; returns that address. */
	.type	pc_thunk, @function
pc_thunk:
	call	pc_thunk_next
pc_thunk_next:
	pop	%rax
	ret
	.size	pc_thunk, . - pc_thunk

	.type	say_ok, @function
say_ok:
	mov	$1, %eax		/* write */
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$(msg_end - msg), %edx
	syscall
	ret
	.size	say_ok, . - say_ok

	.section .rodata
	.balign	8
jtab:
	.quad	case0, case1, case2, case3, case4
fptrs:
	.quad	f_inc, f_dbl, f_neg
src:
	.ascii	"the quick brown fox jumps over the lazy dog 123!"
msg:
	.ascii	"static-oracle ok\n"
msg_end:

	.bss
dst:
	.space	128

	.section .note.GNU-stack, "", @progbits
