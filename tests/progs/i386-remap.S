/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * i386-remap: code replaced under the tracer's int3s by the i386 ways of
 * mapping memory (tests/e2e/test_i386_fast.c).  A page of its own code is
 * called, then mapped anew over by the old mmap (syscall 90, arguments in
 * memory) and called with other code, then unmapped and mapped by mmap2
 * with MAP_FIXED and called with other code again.  Each piece has a loop
 * whose branch sits at another offset.  Static, no libc; exits 0.
 */
#include "i386-asm.h"

#define PROT_RWX	7
#define MAP_ANON_PRIV	0x22
#define MAP_FIXED	0x10

	.code32
	.text
FUNC _start
	mov	$192, %eax		/* mmap2(0, 4096, rwx, anon, -1, 0) */
	xor	%ebx, %ebx
	call	map
	mov	%eax, page
	mov	%eax, old_args
	mov	$piece1, %esi
	call	load
LABEL call1
	call	*page
	mov	$90, %eax		/* old mmap: MAP_FIXED over the page */
	mov	$old_args, %ebx
	int	$0x80
	cmp	page, %eax
	jne	fail_exit
	mov	$piece2, %esi
	call	load
LABEL call2
	call	*page
	mov	$91, %eax		/* munmap */
	mov	page, %ebx
	mov	$4096, %ecx
	int	$0x80
	test	%eax, %eax
	jnz	fail_exit
	mov	$192, %eax		/* mmap2, MAP_FIXED at the same place */
	mov	page, %ebx
	call	map
	cmp	page, %eax
	jne	fail_exit
	mov	$piece3, %esi
	call	load
LABEL call3
	call	*page
	xor	%ebx, %ebx
	EXIT_TAIL
	.size	_start, . - _start

/* mmap2(%ebx, 4096, rwx, anon (MAP_FIXED if %ebx), -1, 0) into %eax. */
FUNC map
	mov	$4096, %ecx
	mov	$PROT_RWX, %edx
	mov	$MAP_ANON_PRIV, %esi
	test	%ebx, %ebx
	jz	1f
	or	$MAP_FIXED, %esi
1:	mov	$-1, %edi
	xor	%ebp, %ebp
	int	$0x80
	ret
	.size	map, . - map

/* Copies the 16 bytes at %esi to the page. */
FUNC load
	mov	page, %edi
	mov	$16, %ecx
	rep movsb
	ret
	.size	load, . - load

	.section .rodata
piece1:					/* the loop's branch at +5 */
	mov	$3, %ecx
1:	loop	1b
	ret
	.balign	16, 0x90
piece2:					/* at +8 */
	mov	$2, %ecx
	nop
	nop
	nop
1:	loop	1b
	ret
	.balign	16, 0x90
piece3:					/* a jnz at +6 */
	mov	$4, %ecx
1:	dec	%ecx
	jnz	1b
	ret
	.balign	16, 0x90

	.data
	.balign	4
old_args:				/* struct mmap_arg_struct */
	.long	0, 4096, PROT_RWX, MAP_ANON_PRIV | MAP_FIXED, -1, 0

	.bss
	.balign	4
page:	.space	4

	.section .note.GNU-stack, "", @progbits
