// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sym-lines: a PIE program that calls a function of its own and one of
 * libsymlib.so (found through its rpath), and prints their addresses as
 * "label NAME 0xADDR" lines.  The "MARK:" comments are what the tests
 * search for to learn the line numbers they expect.
 */
#include <stdio.h>

int symlib_add(int a, int b);

/* On one line: where its entry's line is does not depend on the compiler. */
__attribute__((noinline)) int sym_leaf(int x) { return x * 3 + 1; }	/* MARK:sym_leaf */

int main(int argc, char **argv)
{
	int v;

	(void)argv;
	printf("label sym_leaf %p\n", (void *)sym_leaf);
	printf("label symlib_add %p\n", (void *)symlib_add);
	v = sym_leaf(argc);		/* MARK:call sym_leaf */
	v = symlib_add(v, argc);	/* MARK:call symlib_add */
	return v == 5 ? 0 : 1;
}
