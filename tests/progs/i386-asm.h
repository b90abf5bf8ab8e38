/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the static i386 programs without libc (tests/progs/i386-*.S):
 * labels the tests find by name, and a routine that prints one.
 */
#include "label-asm.h"

/* _start's end: exit(%ebx); at fail_exit, exit(1). */
	.macro EXIT_TAIL
	mov	$1, %eax		/* exit */
	int	$0x80
fail_exit:
	mov	$1, %ebx
	mov	$1, %eax
	int	$0x80
	.endm

/*
 * Function \name: writes "label \label 0x%08x\n" with the value in %edx
 * (write through int $0x80), by a loop of a fixed count, so that no branch
 * depends on the value.  Its loop is \name\()_loop -> \name\()_top (taken
 * 7 times), its return \name\()_ret.  Clobbers %eax, %ecx, %edx, %edi.
 */
	.macro PRINT_LABEL_FUNC name, label
FUNC \name
	push	%ebx
	mov	$\name\()_hex + 7, %edi
	mov	$8, %ecx
LABEL \name\()_top
	mov	%edx, %eax
	and	$15, %eax
	movb	\name\()_digits(%eax), %al
	movb	%al, (%edi)
	dec	%edi
	shr	$4, %edx
LABEL \name\()_loop
	loop	\name\()_top
	mov	$4, %eax		/* write */
	mov	$1, %ebx
	mov	$\name\()_line, %ecx
	mov	$(\name\()_end - \name\()_line), %edx
	int	$0x80
	pop	%ebx
LABEL \name\()_ret
	ret
	.size	\name, . - \name

	.pushsection .rodata
\name\()_digits:
	.ascii	"0123456789abcdef"
	.popsection
	.pushsection .data
\name\()_line:
	.ascii	"label \label 0x"
\name\()_hex:
	.ascii	"00000000\n"
\name\()_end:
	.popsection
	.endm
