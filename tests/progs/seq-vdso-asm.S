// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seq_vdso_run(fn, ts): calls the vDSO's clock_gettime(CLOCK_MONOTONIC, ts)
 * through a register from a known place, so that the test knows exactly
 * which record enters the vDSO and where the one leaving it must land.
 */
#include "label-asm.h"

	.text
	.globl seq_vdso_run
	.type seq_vdso_run, @function
seq_vdso_run:
	push %rbx
	mov %rdi, %rax
	mov $1, %edi			/* CLOCK_MONOTONIC; %rsi = ts */
LABEL seq_vdso_call
	call *%rax
LABEL seq_vdso_back
	pop %rbx
LABEL seq_vdso_ret
	ret
	.size seq_vdso_run, . - seq_vdso_run

	.section .note.GNU-stack, "", @progbits
