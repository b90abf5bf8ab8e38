// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsymlib.so: a shared library of the tests, so that symbol and line
 * tests know a library's source.  The "MARK:" comments are what the tests
 * search for to learn the line numbers they expect.
 */

/*
 * One line each: where an entry's line is does not depend on the compiler.
 * symlib_twice is local: no dynamic symbol names it, so a stripped copy
 * of the library leaves it nameless.
 */
__attribute__((noinline)) static int symlib_twice(int x) { return 2 * x; }	/* MARK:symlib_twice */

int symlib_add(int a, int b) { return symlib_twice(a) + b - a; }	/* MARK:symlib_add */
