// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guest's PEBS decoder (/pebs-decode): libbts's bts_pebs_decode() over
 * a file of kmod-pebs records, linked with libbts.a as btrace is, so that
 * the vcpu tests check the CPU's records with the library's own reading
 * of the format.  tests/kernel/test_vcpu_pebs.c runs it:
 *
 *   pebs-decode FORMAT FILE
 *
 * One line per record: "IP EXACT APPLICABLE RBX SIZE" (hexadecimal but
 * for EXACT and SIZE).  Exit 0 when every record decoded; else the line
 * "error at OFFSET: DETAIL" and exit 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	struct bts_pebs p;
	unsigned char *buf;
	size_t len = 0, at = 0;
	unsigned int fmt;

	if (argc != 3) {
		fprintf(stderr, "usage: pebs-decode FORMAT FILE\n");
		return 2;
	}
	fmt = (unsigned int)strtoul(argv[1], NULL, 0);
	buf = slurp(argv[2], &len);
	if (!buf) {
		fprintf(stderr, "pebs-decode: cannot read %s\n", argv[2]);
		return 2;
	}
	while (at < len) {
		int n = bts_pebs_decode(fmt, buf + at, len - at, &p, sizeof(p));

		if (n <= 0) {
			printf("error at %zu: %s\n", at, bts_errdetail());
			free(buf);
			return 1;
		}
		printf("%llx %d %llx %llx %zu\n", (unsigned long long)p.ip,
		       p.ip_exact, (unsigned long long)p.applicable,
		       (unsigned long long)(p.has_regs ? p.regs[1] : ~0ULL),
		       p.size);
		at += (size_t)n;
	}
	free(buf);
	return 0;
}
