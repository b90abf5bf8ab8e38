// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * skip-qsort: sorts an array twice with qsort, called through a pointer
 * (one indirect call into libc each time, whatever the binding), with a
 * comparator of its own (skip-qsort-asm.S) that libc calls back.  Prints
 * "label NAME 0xADDR" for qsort, the comparator, its ret and the bounds
 * of its own text, then "calls N": how often the comparator ran.  Exits 0
 * when both sorts came out right.
 */
#include <stdio.h>
#include <stdlib.h>

int skip_cmp(const void *a, const void *b);
extern char skip_cmp_ret[];
extern int skip_cmp_calls;
extern char __executable_start[], etext[];

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
