// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-dyn: the smallest dynamic i386 program that still calls into the
 * i386 libc the usual ways: through the PLT (qsort, printf),
 * back out of libc into a function of its own (qsort's comparator), and
 * into the kernel through libc and the vDSO (getpid: __kernel_vsyscall).
 * Small, because the QEMU guest single-steps ld.so's start-up in both of
 * the runs it compares (tests/kernel/test_i386.c).  Prints "i386-dyn N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int v[6] = { 5, 3, 6, 1, 4, 2 };
	int sum = 0;

	qsort(v, 6, sizeof(v[0]), by_value);
	for (int i = 0; i < 6; i++)
		sum = sum * 10 + v[i];
	/* getpid() is not cached by glibc: a call of __kernel_vsyscall. */
	if (getpid() <= 0)
		return 1;
	printf("i386-dyn %d\n", sum);
	return 0;
}
