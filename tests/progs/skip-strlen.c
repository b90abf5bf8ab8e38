// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * skip-strlen: calls strlen in libc 2000 times in a loop, so that a
 * recording with --skip libc.so.6 alternates the program's code with
 * filtered regions thousands of times.  Prints "total N".
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
	char buf[] = "abcdefgh";
	char *volatile p = buf;
	size_t total = 0;

	for (int i = 0; i < 2000; i++) {
		p[i % 8] = 'a' + i % 26;
		total += strlen(p);
	}
	printf("total %zu\n", total);
	return 0;
}
