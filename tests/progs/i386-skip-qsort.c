// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-skip-qsort: skip-qsort (skip-qsort.c) built -m32, for --skip on an
 * i386 program (tests/e2e/test_skip32.c).  The comparator is in assembly
 * here too (top-level asm: the i386 programs are one C file each) so that
 * its one branch, the ret at skip_cmp_ret, has a label.  Prints the same
 * labels and "calls N"; exits 0 when both sorts came out right: its main
 * is skip-qsort.c's own.
 */
int skip_cmp_calls;

/* cdecl: the two pointers on the stack; the count through the GOT (PIE). */
__asm__(
	".text\n"
	".globl skip_cmp, skip_cmp_ret\n"
	".type skip_cmp, @function\n"
	"skip_cmp:\n"
	"	call 1f\n"
	"1:	popl %ecx\n"
	"	addl $_GLOBAL_OFFSET_TABLE_+(.-1b), %ecx\n"
	"	movl skip_cmp_calls@GOT(%ecx), %ecx\n"
	"	addl $1, (%ecx)\n"
	"	movl 4(%esp), %ecx\n"
	"	movl (%ecx), %ecx\n"
	"	movl 8(%esp), %edx\n"
	"	movl (%edx), %edx\n"
	"	xorl %eax, %eax\n"
	"	cmpl %edx, %ecx\n"
	"	setg %al\n"
	"	setl %dl\n"
	"	movzbl %dl, %edx\n"
	"	subl %edx, %eax\n"
	"skip_cmp_ret:\n"
	"	ret\n"
	".size skip_cmp, . - skip_cmp\n");

#include "skip-qsort.c"
