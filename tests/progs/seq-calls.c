// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seq-calls: prints the run-time address of its functions ("label NAME
 * 0xADDR"), then runs calls_run (seq-calls-asm.S) once: main -> f -> g, a
 * recursion three deep and a tail call, with every instruction known.
 * tests/e2e/test_dump_views.c checks the function-call history and the
 * instruction counts that btrace dump derives from its trace.
 */
#include <stdio.h>

#define CALLS_FUNCS(X)							\
	X(calls_run) X(calls_f) X(calls_g) X(calls_rec) X(calls_tail)	\
	X(calls_leaf)

#define DECL(n) void n(void);
CALLS_FUNCS(DECL)

#define PRINT(n) printf("label %s %p\n", #n, (void *)n);

int main(void)
{
	printf("label main %p\n", (void *)main);
	CALLS_FUNCS(PRINT)
	fflush(stdout);
	calls_run();
	return 0;
}
