// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strip-depth [N]: a stripped program whose call depth is known: main
 * calls depth_rec(N) (default 30; strip-depth-asm.S says what runs) and
 * returns 0.
 */
#include <stdlib.h>

void depth_rec(int n);

int main(int argc, char **argv)
{
	depth_rec(argc > 1 ? atoi(argv[1]) : 30);
	return 0;
}
