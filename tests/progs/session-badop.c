// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-badop OUT: writes the addresses of its undecodable instruction
 * (0x06, push es, invalid in 64-bit mode) and of its SIGILL handler to
 * OUT, runs the instruction, recovers in the handler, exits 0.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static sigjmp_buf back;
extern const char session_badop[];

__attribute__((noinline)) void session_handler(int sig)
{
	siglongjmp(back, sig);
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc < 2)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%p %p\n", (const void *)session_badop, (void *)session_handler);
	fclose(f);
	signal(SIGILL, session_handler);
	if (!sigsetjmp(back, 1))
		__asm__ volatile("session_badop: .byte 0x06");
	return 0;
}
