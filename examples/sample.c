// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program `make demo` records: a little of what a branch trace shows.
 * Library calls go through the PLT, qsort calls back into compare(), fib()
 * recurses, and the loops branch back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *words[] = {
	"pear", "fig", "apple", "kiwi",
};

#define NWORDS (sizeof(words) / sizeof(words[0]))

static int compare(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static unsigned long fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void print_words(void)
{
	for (size_t i = 0; i < NWORDS; i++)
		printf("%s%c", words[i], i + 1 < NWORDS ? ' ' : '\n');
}

int main(void)
{
	qsort(words, NWORDS, sizeof(words[0]), compare);
	print_words();
	printf("fib(4) = %lu\n", fib(4));
	return 0;
}
