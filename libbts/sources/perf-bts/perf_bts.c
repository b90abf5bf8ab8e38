// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * One thread's perf-bts event, set up and read as gdb's linux-btrace.c
 * does: the same attributes, the same ring sizing, the same backwards walk.
 *
 * The ring is mapped read-only, which tells perf that nobody advances
 * data_tail: it overwrites the oldest records (a flight recorder) and only
 * data_head, the end of the newest record, is known.  Every sample is 24
 * bytes ({header, ip = from, addr = to}), so walking back from data_head in
 * steps of 24 finds each record's start.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sources/perf-bts/perf_bts.h"
#include "sources/refusal/refusal.h"

struct perf_sample_bts {
	struct perf_event_header header;
	uint64_t from;
	uint64_t to;
};

void bts_perf_branch_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr->sample_period = 1;
	/* IP is the branch's source, ADDR its destination. */
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_idle = 1;
}

static int open_event(pid_t tid)
{
	struct perf_event_attr attr;
	long fd;
	long long paranoid;

	bts_perf_branch_attr(&attr);
	fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return (int)fd;
	if ((errno == EACCES || errno == EPERM) &&
	    !bts_read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) &&
	    paranoid > 2)
		return bts_fail(BTS_E_PERM, "%s", bts_paranoid_line());
	return bts_fail_errno(BTS_E_NOSOURCE, "Failed to start recording");
}

/* Whole pages, then a power of two of them (perf requires it). */
static size_t ring_pages(size_t size, size_t page)
{
	size_t pages = (size + page - 1) / page, p = 1;

	while (p < pages)
		p <<= 1;
	return p;
}

int bts_perf_open(pid_t tid, size_t size, struct bts_perf_ring *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages;
	struct perf_event_mmap_page *hdr;
	void *base = MAP_FAILED;
	int fd;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	fd = open_event(tid);
	if (fd < 0)
		return fd;
	/* As gdb: halve the ring until the locked-memory limit lets it map. */
	for (pages = ring_pages(size, page); pages; pages >>= 1) {
		base = mmap(NULL, (pages + 1) * page, PROT_READ, MAP_SHARED, fd, 0);
		if (base != MAP_FAILED)
			break;
	}
	if (base == MAP_FAILED) {
		close(fd);
		return bts_fail_errno(BTS_E_NOMEM, "perf-bts: cannot map the ring");
	}
	hdr = base;
	r->fd = fd;
	r->base = base;
	/* Kernels since 4.1 say where the data is; older ones: the next page. */
	r->data_offset = hdr->data_offset ? hdr->data_offset : page;
	r->data_size = hdr->data_size ? hdr->data_size : pages * page;
	r->last_head = 0;
	return 0;
}

void bts_perf_close(struct bts_perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->data_offset + r->data_size);
	if (r->fd >= 0)
		close(r->fd);
	r->base = NULL;
	r->fd = -1;
}

/* @len bytes ending at ring offset @end (mod size), joined across the wrap. */
static void ring_copy(const uint8_t *data, size_t size, uint64_t end,
		      void *out, size_t len)
{
	size_t at = (size_t)((end - len) % size), first = size - at;

	if (first >= len) {
		memcpy(out, data + at, len);
	} else {
		memcpy(out, data + at, first);
		memcpy((uint8_t *)out + first, data, len - first);
	}
}

/* gdb's test: at or above the kernel's start, bit 63 on x86-64. */
static bool kernel_address(uint64_t addr)
{
	return addr >> 63;
}

/*
 * The load-acquire of data_head is (C) of kernel/events/ring_buffer.c: it
 * pairs with the kernel's smp_wmb() (B) in perf_output_put_handle() before
 * its store of data_head, so every sample below the head read is whole.
 * There is no (D): the ring is mapped read-only, data_tail is never
 * written, and the kernel overwrites the oldest samples.
 */
int64_t bts_perf_read(struct bts_perf_ring *r, bts_perf_emit_fn emit, void *arg)
{
	const struct perf_event_mmap_page *hdr = r->base;
	const uint8_t *data = (const uint8_t *)r->base + r->data_offset;
	uint64_t head = __atomic_load_n(&hdr->data_head, __ATOMIC_ACQUIRE);
	uint64_t avail = head - r->last_head, span = avail, pos, lost = 0;
	struct perf_sample_bts *recs, s;
	size_t n = 0, i;
	bool broken = false;

	if (head < r->last_head)
		return bts_fail(BTS_E_FORMAT, "perf-bts: the ring's head went back");
	if (span > r->data_size) {
		/* Only whole samples fit; the rest of what was written is gone. */
		span = r->data_size - r->data_size % sizeof(s);
		lost = (avail - span) / sizeof(s);
	}
	recs = malloc((span / sizeof(s) + 1) * sizeof(*recs));
	if (!recs)
		return bts_fail(BTS_E_NOMEM, "perf-bts: records");
	for (pos = head; head - pos + sizeof(s) <= span; pos -= sizeof(s)) {
		ring_copy(data, r->data_size, pos, &s, sizeof(s));
		if (s.header.type != PERF_RECORD_SAMPLE || s.header.size != sizeof(s)) {
			broken = true;
			break;
		}
		recs[n++] = s;
	}
	for (i = n; i-- > 0;)
		if (!kernel_address(recs[i].from))
			emit(arg, recs[i].from, recs[i].to);
	free(recs);
	r->last_head = head;
	if (broken)
		return bts_fail(BTS_E_FORMAT, "Branch trace may be incomplete.");
	return (int64_t)lost;
}
