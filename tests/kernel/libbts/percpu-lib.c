// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guest's libbts per-CPU client (/percpu-lib): libbts's per-CPU API
 * (bts_percpu_new/status/records/stop) against the module, linked with
 * libbts.a as btrace is.  tests/kernel/test_percpu.c runs it:
 *
 *   percpu-lib sim      on the test build (percpu_sim=1, percpu_store=100):
 *                       start on CPU 0, 12 STATUS calls (each stores 100
 *                       simulated records), every position exact, the
 *                       records read through bts_percpu_records() exactly
 *                       the simulated sequence, stop; nothing left held.
 *                       Prints "ok", or the line of the failed check.
 *   percpu-lib refuse   on the real module: a start is -BTS_E_NOSOURCE;
 *                       prints its bts_errdetail() ("start: ...") and
 *                       the probe's why ("probe: ...").
 *
 * Exit 0 when every check held.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#define PAGE		4096ull
#define BUF		(4 * PAGE)
#define NSLOTS		(BUF / sizeof(struct ptbts_record))
#define SIM_FROM	0xffffffff81000000ull
#define STORE		100	/* percpu_store: records per STATUS */
#define SYSFS_PAGES	"/sys/kernel/ptrace_bts/percpu_pages"

#define CHECK(c) do { if (!(c)) { printf("failed: line %d: %s (%s)\n", \
	__LINE__, #c, bts_errdetail()); return 1; } } while (0)

static long sysfs_pages(void)
{
	FILE *f = fopen(SYSFS_PAGES, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The status of a CPU recording since @count records. */
static int status_exact(struct bts_percpu *p, uint64_t count)
{
	struct ptbts_percpu_status st;

	CHECK(bts_percpu_status(p, 0, &st) == 0);
	CHECK(st.cpu == 0 && st.state == PTBTS_PERCPU_RECORDING);
	CHECK(st.wraps == count / NSLOTS);
	CHECK(st.head == (count % NSLOTS) * sizeof(struct ptbts_record));
	CHECK(st.lost == 0 && st.offset == 0 && st.buffer_size == BUF);
	return 0;
}

/* The newest lap: @count records, sequence numbers from an unknown base. */
static int records_exact(struct bts_percpu *p, uint64_t count)
{
	const struct ptbts_record *r;
	uint64_t base, i;
	size_t n = 0;

	r = bts_percpu_records(p, 0, &n);
	CHECK(r != NULL && n == NSLOTS);
	/* The CPU's sequence goes on from earlier sessions: find its base. */
	base = r[(count - 1) % NSLOTS].from - 16 * (count - 1);
	CHECK(base >= SIM_FROM && (base - SIM_FROM) % 16 == 0);
	for (i = count - NSLOTS; i < count; i++) {
		CHECK(r[i % NSLOTS].from == base + 16 * i);
		CHECK(r[i % NSLOTS].to == r[i % NSLOTS].from + 8);
		CHECK(r[i % NSLOTS].flags == 0);
	}
	/* Mapped once: the same view again. */
	CHECK(bts_percpu_records(p, 0, NULL) == r);
	return 0;
}

static int sim(void)
{
	struct ptbts_percpu_status st;
	struct bts_percpu *p = NULL;
	uint64_t count = 0;
	int k;

	CHECK(sysfs_pages() == 0);
	CHECK(bts_percpu_new(1, BUF, PTBTS_MODE_RING, &p) == 0 && p);
	CHECK(sysfs_pages() == BUF / PAGE);
	for (k = 1; k <= 12; k++) {
		count += STORE;
		CHECK(status_exact(p, count) == 0);
	}
	/* Reading the records flushes once more (STATUS): 100 more. */
	count += STORE;
	CHECK(records_exact(p, count) == 0);
	/* CPU 1 was not asked for: no buffer, said so. */
	CHECK(bts_percpu_status(p, 1, &st) == 0);
	CHECK(st.state == PTBTS_PERCPU_OFF && st.buffer_size == 0);
	CHECK(bts_percpu_records(p, 1, NULL) == NULL);
	CHECK(!strcmp(bts_errdetail(), "CPU 1 has no per-CPU buffer"));
	CHECK(bts_percpu_status(p, 64, &st) == -BTS_E_INVAL);
	bts_percpu_free(p);
	CHECK(sysfs_pages() == 0);
	printf("ok\n");
	return 0;
}

static int refuse(void)
{
	struct bts_percpu_info in;
	struct bts_percpu *p = NULL;
	int rc;

	rc = bts_percpu_new(3, BUF, PTBTS_MODE_RING, &p);
	CHECK(rc == -BTS_E_NOSOURCE && p == NULL);
	printf("start: %s\n", bts_errdetail());
	CHECK(bts_percpu_probe(&in, sizeof(in)) == 0 && !in.available);
	printf("probe: %s\n", in.why);
	CHECK(sysfs_pages() == 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "sim"))
		return sim();
	if (argc == 2 && !strcmp(argv[1], "refuse"))
		return refuse();
	fprintf(stderr, "usage: percpu-lib sim|refuse\n");
	return 2;
}
