/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-qjit: code made at run time, as a JIT makes it, for the
 * qemu-user source's tests (tests/e2e/test_qemu_jit.c).  A page of
 * anonymous memory (read, write, execute) gets "mov $1, %eax; jmp +1;
 * nop; ret", which is called; then, rewritten in place, "mov $2, %eax;
 * ret", which is called too.  Exits with the sum of both calls' results
 * (3).  No libc: every branch is written out here.
 */
#include "static-asm.h"

	.text
FUNC _start
	xor %edi, %edi			/* mmap(NULL, 4096, RWX, */
	mov $4096, %esi
	mov $7, %edx
	mov $0x22, %r10d		/*   MAP_PRIVATE | MAP_ANONYMOUS, */
	mov $-1, %r8			/*   -1, 0) */
	xor %r9d, %r9d
	mov $9, %eax
	syscall
	mov %rax, %rbx
	/* b8 01 00 00 00: mov $1, %eax; eb 01: jmp +1; 90: nop; c3: ret */
	movabs $0x9001eb00000001b8, %rax
	mov %rax, (%rbx)
	movb $0xc3, 8(%rbx)
LABEL qj_call1
	call *%rbx
	mov %eax, %r12d
	/* b8 02 00 00 00: mov $2, %eax; c3: ret (then nop, nop) */
	movabs $0x9090c300000002b8, %rax
	mov %rax, (%rbx)
LABEL qj_call2
	call *%rbx
	lea (%r12, %rax), %edi
	EXIT_GROUP
