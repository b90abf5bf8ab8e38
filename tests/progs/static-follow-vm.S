// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * static-follow-vm: a static program without libc whose child shares its
 * memory (clone with CLONE_VM, but neither CLONE_THREAD nor CLONE_VFORK),
 * for tests/e2e/test_follow_vm.c.  Parent and child both run vm_work (a
 * loop whose jnz is taken twice) in the one memory, the parent before the
 * clone and at the same time as the child, so a tracer's int3s there are
 * one set for both processes.  Every taken branch is known.
 *
 * The mode is the number of arguments:
 *  0  clone(CLONE_VM | SIGCHLD) (a fork event); the parent runs vm_work,
 *     waits for the child, runs vm_work again and exits 0;
 *  1  the same clone, but the parent runs vm_work and then execs argv[1]
 *     with the argument "leaf" (static-follow's leaf mode) while the child
 *     waits, on a close-on-exec pipe, for the parent's memory to be gone
 *     from under it; then the child runs vm_work in the memory it now has
 *     alone;
 *  2  clone(CLONE_VM) with no exit signal (a clone event), as mode 0.
 * The child writes "child ok" before it exits; each process exits 0 with
 * exit_group.
 */
#include "static-asm.h"

	.text
FUNC _start
	mov %rsp, %rbp			/* argc, argv[] */
LABEL vm_call0
	call vm_work
LABEL vm_after0
	mov $293, %eax			/* SYS_pipe2(vm_fds, O_CLOEXEC) */
	lea vm_fds(%rip), %rdi
	mov $0x80000, %esi
	syscall
	mov $0x111, %edi		/* CLONE_VM | SIGCHLD */
	mov $0x100, %eax		/* CLONE_VM, no exit signal */
	cmpq $3, (%rbp)
	cmove %eax, %edi
	CLONE vm_stack_top
	test %eax, %eax
LABEL vm_jz
	jz vm_child
LABEL vm_pcall1
	call vm_work
LABEL vm_pafter1
	cmpq $2, (%rbp)
LABEL vm_jexec
	je vm_pexec
	mov $61, %eax			/* SYS_wait4(-1, NULL, __WALL, NULL) */
	mov $-1, %edi
	xor %esi, %esi
	mov $0x40000000, %edx
	xor %r10d, %r10d
	syscall
LABEL vm_pcall2
	call vm_work
LABEL vm_pafter2
	xor %edi, %edi
	EXIT_GROUP
LABEL vm_pexec
	EXEC_LEAF vm_argv
LABEL vm_child
	cmpq $2, (%rbp)
LABEL vm_jwait
	jne vm_cwork
	mov $3, %eax			/* SYS_close(write end) */
	mov vm_fds+4(%rip), %edi
	syscall
	xor %eax, %eax			/* SYS_read(read end, vm_buf, 1): EOF */
	mov vm_fds(%rip), %edi
	lea vm_buf(%rip), %rsi
	mov $1, %edx
	syscall
LABEL vm_cwork
LABEL vm_ccall
	call vm_work
LABEL vm_cafter
	mov $1, %eax			/* SYS_write(1, "child ok\n", 9) */
	mov $1, %edi
	lea vm_ok(%rip), %rsi
	mov $9, %edx
	syscall
	xor %edi, %edi
	EXIT_GROUP
	.size _start, . - _start

	.globl vm_work
	.type vm_work, @function
vm_work:
	mov $3, %ecx
LABEL vm_loop
	dec %ecx
LABEL vm_jnz
	jnz vm_loop
LABEL vm_ret
	ret
	.size vm_work, . - vm_work

	.data
	LEAF_ARGV vm_argv
vm_ok:
	.ascii "child ok\n"

	.bss
	.balign 16
vm_fds:
	.space 8
vm_buf:
	.space 8
vm_stack:
	.space 8192
vm_stack_top:

	.section .note.GNU-stack, "", @progbits
