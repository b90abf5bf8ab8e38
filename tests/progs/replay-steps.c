// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay-steps: main -> outer -> inner twice, then strlen (libc, no
 * lines); exits 0.  The "MARK:" comments are what tests/crash/test_replay_break.c
 * searches for to learn the line numbers it expects.
 */
#include <string.h>

__attribute__((noinline)) int inner(int x)
{
	return x * 2;			/* MARK:inner */
}					/* MARK:inner-end */

__attribute__((noinline)) int outer(int x)
{					/* MARK:outer-start */
	int a = inner(x);		/* MARK:outer-1 */
	int b = inner(a + 1);		/* MARK:outer-2 */

	return a + b;			/* MARK:outer-3 */
}

int main(int argc, char **argv)
{
	int v = outer(argc);		/* MARK:main-1 */

	v += strlen(argv[0]) > 0;	/* MARK:main-2 */
	return v == 9 ? 0 : 1;		/* MARK:main-3 */
}
