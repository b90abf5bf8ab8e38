// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-skip-qsort: skip-qsort (skip-qsort.c) built -m32, for --skip on an
 * i386 program (tests/e2e/test_skip32.c).  The comparator is in assembly
 * here too (top-level asm: the i386 programs are one C file each) so that
 * its one branch, the ret at skip_cmp_ret, has a label.  Prints the same
 * labels and "calls N"; exits 0 when both sorts came out right.
 */
#include <stdio.h>
#include <stdlib.h>

int skip_cmp(const void *a, const void *b);
extern char skip_cmp_ret[];
extern char __executable_start[], etext[];
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

typedef void (*sort_fn)(void *, size_t, size_t,
			int (*)(const void *, const void *));

int main(void)
{
	int a[] = { 5, 3, 9, 1, 7, 2, 8 }, b[] = { 4, 4, 1, 0 };
	sort_fn volatile sort = qsort;
	size_t i;
	int bad = 0;

	printf("label qsort %p\n", (void *)qsort);
	printf("label skip_cmp %p\n", (void *)skip_cmp);
	printf("label skip_cmp_ret %p\n", (void *)skip_cmp_ret);
	printf("label text_lo %p\n", (void *)__executable_start);
	printf("label text_hi %p\n", (void *)etext);
	fflush(stdout);
	sort(a, sizeof(a) / sizeof(a[0]), sizeof(a[0]), skip_cmp);
	sort(b, sizeof(b) / sizeof(b[0]), sizeof(b[0]), skip_cmp);
	for (i = 1; i < sizeof(a) / sizeof(a[0]); i++)
		bad |= a[i - 1] > a[i];
	for (i = 1; i < sizeof(b) / sizeof(b[0]); i++)
		bad |= b[i - 1] > b[i];
	printf("calls %d\n", skip_cmp_calls);
	return bad;
}
