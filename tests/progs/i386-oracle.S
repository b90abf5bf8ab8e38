/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-oracle: static-oracle's control flow in 32-bit code, without libc:
 * direct, indirect and tail calls, a jump table, jcxz, loop, rep strings,
 * a call to the next instruction (the i386 pc thunk), inc/dec (0x40..0x4f,
 * REX prefixes in 64-bit code) right before branches, and int $0x80.  It
 * writes "i386-oracle ok\n" and exits 0 when its own checks pass.
 */
#define ROUNDS	200
#define FIBN	15		/* fib(15) = 610 */
#define FIBVAL	610
#define LOOPS	10

	.code32
	.text
	.globl	_start
	.type	_start, @function
_start:
	call	main
	mov	%eax, %ebx
	mov	$1, %eax		/* exit */
	int	$0x80
	hlt
	.size	_start, . - _start

	.type	main, @function
main:
	push	%ebx
	push	%esi
	xor	%ebx, %ebx
	xor	%esi, %esi
round:
	push	%ebx
	call	step
	add	$4, %esp
	add	%eax, %esi
	inc	%ebx
	cmp	$ROUNDS, %ebx
	jb	round
	push	$FIBN
	call	fib
	add	$4, %esp
	cmp	$FIBVAL, %eax
	jne	fail
	call	copy
	test	%eax, %eax
	jnz	fail
	call	countdown
	cmp	$(LOOPS * (LOOPS + 1) / 2), %eax
	jne	fail
	call	pc_thunk
	cmp	$pc_thunk_next, %eax
	jne	fail
	call	say_ok
	xor	%eax, %eax
	pop	%esi
	pop	%ebx
	ret
fail:
	mov	$1, %eax
	pop	%esi
	pop	%ebx
	ret
	.size	main, . - main

/* step(i): a switch on i % 5 through a jump table. */
	.type	step, @function
step:
	mov	4(%esp), %eax
	xor	%edx, %edx
	mov	$5, %ecx
	div	%ecx
	jmp	*jtab(, %edx, 4)
case0:
	call	nest_a
	ret
case1:					/* an indirect call: fptrs[i % 3] */
	mov	4(%esp), %eax
	xor	%edx, %edx
	mov	$3, %ecx
	div	%ecx
	push	4(%esp)
	call	*fptrs(, %edx, 4)
	add	$4, %esp
	ret
case2:					/* a tail call */
	mov	4(%esp), %eax
	jmp	leaf
case3:					/* a conditional branch both ways */
	mov	4(%esp), %eax
	dec	%eax			/* 0x48: rex.w in 64-bit code */
	inc	%eax
	testb	$1, %al
	jz	1f
	inc	%eax
	ret
1:	add	$2, %eax
	ret
case4:					/* jecxz taken when i / 5 is even */
	mov	%eax, %ecx
	and	$1, %ecx
	xor	%eax, %eax
	jecxz	1f
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
	inc	%eax
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
	mov	4(%esp), %eax
	inc	%eax
	ret
	.size	f_inc, . - f_inc

	.type	f_dbl, @function
f_dbl:
	mov	4(%esp), %eax
	add	%eax, %eax
	ret
	.size	f_dbl, . - f_dbl

	.type	f_neg, @function
f_neg:
	mov	4(%esp), %eax
	neg	%eax
	ret	$0			/* ret imm16 */
	.size	f_neg, . - f_neg

/* fib(n), recursive, cdecl. */
	.type	fib, @function
fib:
	mov	4(%esp), %eax
	cmp	$2, %eax
	jb	fib_leaf
	push	%ebx
	push	%esi
	mov	%eax, %ebx
	dec	%eax
	push	%eax
	call	fib
	add	$4, %esp
	mov	%eax, %esi
	lea	-2(%ebx), %eax
	push	%eax
	call	fib
	add	$4, %esp
	add	%esi, %eax
	pop	%esi
	pop	%ebx
fib_leaf:
	ret
	.size	fib, . - fib

	.type	copy, @function
copy:
	push	%esi
	push	%edi
	mov	$src, %esi
	mov	$dst, %edi
	mov	$48, %ecx
	rep movsb
	xor	%ecx, %ecx
	mov	$'z', %al
	rep stosb			/* no iteration */
	mov	$32, %ecx
	rep stosb
	mov	$1, %eax
	cmpb	$'!', dst + 47
	jne	1f
	cmpb	$'z', dst + 79
	jne	1f
	cmpb	$0, dst + 80
	jne	1f
	xor	%eax, %eax
1:	pop	%edi
	pop	%esi
	ret
	.size	copy, . - copy

	.type	countdown, @function
countdown:
	xor	%eax, %eax
	mov	$LOOPS, %ecx
1:	add	%ecx, %eax
	loop	1b
	ret
	.size	countdown, . - countdown

/* pc_thunk: a call to the next instruction; returns that address. */
	.type	pc_thunk, @function
pc_thunk:
	call	pc_thunk_next
pc_thunk_next:
	pop	%eax
	ret
	.size	pc_thunk, . - pc_thunk

	.type	say_ok, @function
say_ok:
	push	%ebx
	mov	$4, %eax		/* write */
	mov	$1, %ebx
	mov	$msg, %ecx
	mov	$(msg_end - msg), %edx
	int	$0x80
	pop	%ebx
	ret
	.size	say_ok, . - say_ok

	.section .rodata
	.balign	4
jtab:
	.long	case0, case1, case2, case3, case4
fptrs:
	.long	f_inc, f_dbl, f_neg
src:
	.ascii	"the quick brown fox jumps over the lazy dog 123!"
msg:
	.ascii	"i386-oracle ok\n"
msg_end:

	.bss
dst:
	.space	128

	.section .note.GNU-stack, "", @progbits
