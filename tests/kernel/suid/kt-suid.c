// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A setuid-root program of the guest image (/kt-suid, mode 4755): it reads
 * /kt-secret, which only root may read, and branches on every byte of it,
 * as the program of the report that showed a detached tracer the secret
 * through the call targets it recorded.  Exits 0 when it ran as root and
 * read the secret, 3 when it did not run as root, 4 when the read failed.
 */
#include <fcntl.h>
#include <unistd.h>

static volatile unsigned long sink;

static void bit_one(void)
{
	sink += 1;
}

static void bit_zero(void)
{
	sink += 2;
}

int main(void)
{
	char secret[64];
	ssize_t n, i;
	int fd, b;

	if (geteuid() != 0)
		return 3;
	fd = open("/kt-secret", O_RDONLY);
	if (fd < 0)
		return 4;
	n = read(fd, secret, sizeof(secret));
	close(fd);
	if (n <= 0)
		return 4;
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			(secret[i] >> b & 1 ? bit_one : bit_zero)();
	return 0;
}
