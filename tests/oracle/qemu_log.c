// SPDX-License-Identifier: GPL-2.0-or-later
/* Running a program under qemu-user and reading its instruction log. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "oracle.h"

/* Debian's qemu-user (7.2); scripts/deps installs it. */
#define QEMU	"/usr/bin/qemu-x86_64"
#define QEMU32	"/usr/bin/qemu-i386"

static int run(const char *qemu, const char *prog, const char *log,
	       struct harness_cmd *cmd)
{
	/*
	 * -d exec logs every translation block as it starts to run; with
	 * -singlestep every instruction is a block of its own, and nochain
	 * keeps qemu from jumping block to block without logging.
	 */
	char *argv[] = {
		(char *)qemu, "-singlestep", "-d", "exec,nochain", "-D",
		(char *)log, (char *)prog, NULL
	};

	if (access(qemu, X_OK))
		return -1;
	return harness_run(argv, 60, cmd);
}

int qemu_run(const char *prog, const char *log, struct harness_cmd *cmd)
{
	return run(QEMU, prog, log, cmd);
}

int qemu_run32(const char *prog, const char *log, struct harness_cmd *cmd)
{
	return run(QEMU32, prog, log, cmd);
}

/*
 * "Trace 0: 0x7f1164000100 [0000000000000000/0000000000401000/1040c0b3/00000201] "
 * is cpu index, host code, then cs_base/pc/flags/cflags.
 */
int qemu_log_pc(const char *line, uint64_t *pc)
{
	int cpu, end = 0;

	if (strncmp(line, "Trace ", 6))
		return 0;
	if (sscanf(line, "Trace %d: %*s [%*x/%" SCNx64 "/%*x/%*x]%n",
		   &cpu, pc, &end) < 2 || !end)
		return -1;
	/* One cpu is one thread: the oracle programs have only one. */
	return cpu == 0 ? 1 : -1;
}

/* Whether going from @p to @q took a branch; -1 for undecodable code. */
static int taken(const struct oracle_image *img, uint64_t bias, uint64_t p,
		 uint64_t q, struct qemu_log_stats *st)
{
	unsigned char code[16];
	unsigned int len;
	size_t n = oracle_image_read(img, p - bias, code, sizeof(code));
	int cls;

	if (!n) {
		st->outside++;
		return 0;
	}
	cls = oracle_classify(img->is32, code, n, &len);
	if (cls < 0)
		return -1;
	return cls == ORACLE_UNCOND || (cls == ORACLE_COND && q != p + len);
}

int qemu_log_branches(const char *log, const struct oracle_image *img,
		      uint64_t bias, struct oracle_pairs *out,
		      struct qemu_log_stats *st, char *err, size_t errlen)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	uint64_t prev = 0, pc;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (!f) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		int r = qemu_log_pc(line, &pc);

		lineno++;
		if (r < 0) {
			snprintf(err, errlen, "%s:%zu: not a one-cpu Trace line",
				 log, lineno);
			ret = -1;
		}
		if (r <= 0)
			continue;
		if (st->insns++) {
			r = taken(img, bias, prev, pc, st);
			if (r < 0) {
				snprintf(err, errlen, "%s:%zu: undecodable "
					 "code at 0x%" PRIx64, log, lineno, prev);
				ret = -1;
			} else if (r) {
				oracle_pairs_add(out, prev, pc);
			}
		}
		prev = pc;
	}
	free(line);
	fclose(f);
	return ret;
}
