// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode-live: code no file holds, for decoding while the program lives.
 * Writes "label jit 0xADDR" for a page of generated code, waits for one
 * byte on stdin, calls the code once ("mov $5,%eax; cmp $5,%eax; je +1;
 * nop; inc %eax; ret"), writes "done N", then stops itself (SIGSTOP) to
 * be read while it lies still.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char code[] = {
	0xb8, 5, 0, 0, 0, 0x83, 0xf8, 5, 0x74, 1, 0x90, 0xff, 0xc0, 0xc3,
};

int main(void)
{
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*fn)(void);
	char c;

	if (page == MAP_FAILED)
		return 2;
	memcpy(page, code, sizeof(code));
	fn = (int (*)(void))(void *)page;
	printf("label jit %p\n", (void *)page);
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 3;
	printf("done %d\n", fn());
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
