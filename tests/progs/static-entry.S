/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-entry: six instructions at the entry point before the first
 * branch (a call), then exit_group(0).  The history starts at _start, not
 * at the first record's branch: --insns shows all six.
 */
#include "static-asm.h"

	.text
FUNC _start
	mov $1, %eax
	mov $2, %ebx
	add %ebx, %eax
	xor %ecx, %ecx
	nop
	lea 1(%rax), %edx
	call en_leaf
	xor %edi, %edi
	EXIT_GROUP
	.size _start, . - _start

FUNC en_leaf
	ret
	.size en_leaf, . - en_leaf
