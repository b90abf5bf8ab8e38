// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * static-follow-data: the block at _start runs on, as straight-line code,
 * past its exit_group and the end of the text into the zero padding of the
 * page (two-byte adds) and, if nothing stopped it, into the data behind,
 * whose first bytes (7f 00) read as a jg: a tracer that decoded on into
 * data would plant its int3 there before the block runs.  The program
 * exits with its first data byte minus 0x7f: 0 while the data is intact,
 * 77 (0xcc - 0x7f) when an int3 was planted in it.
 */
#include "static-asm.h"

	.text
FUNC _start
	movzbl fdata(%rip), %edi
	sub $0x7f, %edi
	EXIT_GROUP
	.balign 2, 0x90			/* the zeros after it pair up into adds */
	.size _start, . - _start

	.data
	.balign 4096
	.globl fdata
fdata:
	.byte 0x7f, 0x00		/* jg . + 2, read as code */

	.section .note.GNU-stack, "", @progbits
