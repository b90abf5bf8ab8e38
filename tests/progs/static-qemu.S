/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static-qemu: a static program without libc for the qemu-user source's
 * tests (tests/e2e/test_qemu_user.c), which compare its records with
 * ptrace-step's, record for record, at the same addresses (no PIE).
 *
 * With no argument: flow, a loop over a jump table (a jump to the next
 * instruction among its cases), conditional branches, indirect calls
 * through a register and through memory, a tail call, rep string
 * instructions, SIGUSR1 raised by a kill syscall, and SIGSEGV from a load
 * in the middle of a block, whose handler skips the load.  Exits 0.
 * With an argument: four threads that each call a leaf TH_LOOPS times;
 * the main thread waits on a futex until every one has finished.  Exits 0.
 */
#include "static-asm.h"

	.set CLONE_THREAD_FLAGS, 0x50f00	/* VM FS FILES SIGHAND THREAD SYSVSEM */
	.set NTHREADS, 4
	.set TH_LOOPS, 300
	.set SA_FLAGS, 0x04000004		/* SA_RESTORER | SA_SIGINFO */
	.set UC_RIP, 168			/* uc_mcontext.gregs[REG_RIP] */

	.text
FUNC _start
	mov $10, %edi			/* SIGUSR1 */
	lea act_usr1(%rip), %rsi
	call sigact
	mov $11, %edi			/* SIGSEGV */
	lea act_segv(%rip), %rsi
	call sigact
	cmpq $1, (%rsp)			/* argc */
LABEL sq_argc_jne
	jne threads
LABEL sq_call_flow
	call flow
LABEL sq_after_flow
	xor %edi, %edi
	EXIT_GROUP

/* rt_sigaction(%edi, %rsi, NULL, 8); exits on failure. */
FUNC sigact
	xor %edx, %edx
	mov $8, %r10d
	mov $13, %eax
	syscall
	test %eax, %eax
	jnz fail
LABEL sigact_ret
	ret

FUNC fail
	mov $1, %edi
	EXIT_GROUP

FUNC flow
	push %rbx
	xor %ebx, %ebx
LABEL fl_loop
	mov %ebx, %eax
	lea fl_table(%rip), %rcx
LABEL fl_jmp_table
	jmp *(%rcx,%rax,8)
LABEL fl_case0
	jmp fl_next
LABEL fl_case1
LABEL fl_jmp_next
	jmp fl_jmp_next_to		/* to the next instruction: taken */
LABEL fl_jmp_next_to
	nop
LABEL fl_case2
	nop
LABEL fl_next
	inc %ebx
	cmp $3, %ebx
LABEL fl_loop_jb
	jb fl_loop
	test %ebx, %ebx
LABEL fl_jz_not_taken
	jz fail
	lea leaf(%rip), %rax
LABEL fl_call_reg
	call *%rax
LABEL fl_call_mem
	call *fl_fptr(%rip)
LABEL fl_after_call_mem
	lea fl_buf(%rip), %rdi
	mov $0x5a, %eax
	mov $4096, %ecx
LABEL fl_rep_stosb
	rep stosb
	lea fl_buf(%rip), %rsi
	lea fl_buf2(%rip), %rdi
	mov $4096, %ecx
	rep movsb
LABEL fl_after_rep
	mov $39, %eax			/* getpid */
	syscall
	mov %eax, %edi
	mov $10, %esi			/* SIGUSR1 */
	mov $62, %eax			/* kill */
LABEL fl_kill
	syscall
LABEL fl_after_kill
	mov $1, %eax
	xor %ecx, %ecx
LABEL fl_fault
	mov (%rcx), %edx		/* SIGSEGV here, in the block's middle */
LABEL fl_after_fault
	add $2, %eax
	pop %rbx
LABEL fl_ret
	ret

FUNC leaf
	nop
LABEL leaf_ret
	ret

/* A call through memory lands here and leaves with a tail call. */
FUNC tail_caller
	nop
LABEL tail_jmp
	jmp leaf

FUNC usr1_handler
	nop
LABEL usr1_ret
	ret

/* The load that faulted is 2 bytes long: resume after it. */
FUNC segv_handler
	addq $2, UC_RIP(%rdx)
LABEL segv_ret
	ret

FUNC restorer
	mov $15, %eax			/* rt_sigreturn */
LABEL restorer_syscall
	syscall

/* --------------------------------------------------------------- threads */

threads:
	mov $NTHREADS, %r12d
LABEL th_spawn
	mov $CLONE_THREAD_FLAGS, %edi
	mov %r12d, %eax
	shl $12, %rax
	lea th_stacks(%rip), %rsi
	add %rax, %rsi			/* the top of stack r12 - 1 */
	xor %edx, %edx
	xor %r10d, %r10d
	xor %r8d, %r8d
	mov $56, %eax			/* clone */
	syscall
	test %eax, %eax
LABEL th_child_jz
	jz worker
	dec %r12d
	jnz th_spawn
LABEL th_wait
	mov th_left(%rip), %edx
	test %edx, %edx
	jz th_done
	lea th_left(%rip), %rdi
	xor %esi, %esi			/* FUTEX_WAIT */
	xor %r10d, %r10d
	mov $202, %eax			/* futex */
	syscall
	jmp th_wait
th_done:
	xor %edi, %edi
	EXIT_GROUP

FUNC worker
	mov $TH_LOOPS, %ebx
LABEL wk_loop
	call leaf
	dec %ebx
LABEL wk_jnz
	jnz wk_loop
	lock decl th_left(%rip)
	lea th_left(%rip), %rdi
	mov $1, %esi			/* FUTEX_WAKE */
	mov $1, %edx
	mov $202, %eax
	syscall
	xor %edi, %edi
	mov $60, %eax			/* exit: this thread */
	syscall
	hlt

	.data
	.balign 8
fl_table:
	.quad fl_case0, fl_case1, fl_case2
fl_fptr:
	.quad tail_caller
act_usr1:				/* the kernel's struct sigaction */
	.quad usr1_handler, SA_FLAGS, restorer, 0
act_segv:
	.quad segv_handler, SA_FLAGS, restorer, 0
th_left:
	.long NTHREADS

	.bss
	.balign 4096
th_stacks:
	.skip 4096 * NTHREADS
fl_buf:
	.skip 4096
fl_buf2:
	.skip 4096
