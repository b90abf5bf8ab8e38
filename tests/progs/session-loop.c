// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-loop READY: calls session_target forever; after the 100th call
 * and every 1000 calls from there it writes the function's address to
 * READY (by a rename, so a test never reads half of it): a test that
 * removes the file learns when the program has made progress.
 */
#include <stdio.h>

volatile int session_sink;

__attribute__((noinline)) void session_target(int i)
{
	session_sink += i;
}

static void ready(const char *path)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%p\n", (void *)session_target);
	fclose(f);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2)
		return 2;
	for (i = 0; ; i++) {
		session_target((int)i);
		if (i % 1000 == 100)
			ready(argv[1]);
	}
}
