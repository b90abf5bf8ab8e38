// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * limits-write: counts to LIMITS_LOOPS (environment, default 0), then
 * creates the file LIMITS_FILE names and exits 3.  A recording cut before
 * the end must leave no file behind: the program died at the cut.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	const char *file = getenv("LIMITS_FILE"), *loops = getenv("LIMITS_LOOPS");
	unsigned long n = loops ? strtoul(loops, NULL, 10) : 0;
	volatile unsigned long i = 0;
	int fd;

	while (i < n)
		i++;
	fd = file ? open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	if (fd >= 0 && write(fd, "x", 1) == 1)
		close(fd);
	return 3;
}
