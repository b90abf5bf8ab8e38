// SPDX-License-Identifier: GPL-2.0-or-later
/* speed_jit_call(fn): calls generated code from a known place. */
	.text
	.globl speed_jit_call
	.type speed_jit_call, @function
speed_jit_call:
	sub $8, %rsp
	.globl speed_jit_site
speed_jit_site:
	call *%rdi
	.globl speed_jit_back
speed_jit_back:
	add $8, %rsp
	ret
	.size speed_jit_call, . - speed_jit_call

	.section .note.GNU-stack, "", @progbits
