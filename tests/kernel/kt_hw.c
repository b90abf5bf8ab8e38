// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers of the tests on the virtual CPU with BTS (kt_hw.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kt.h"
#include "kt_hw.h"

#define KT_BTS_DATA	(2 * KT_PAGE)
#define KT_BTS_AUX	(64 * KT_PAGE)
#define KT_WATCHDOG	"/proc/sys/kernel/nmi_watchdog"

int kt_intel_bts_open(struct kt_intel_bts *b, pid_t pid, int cpu)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr a;
	char line[32];
	long type = -1;

	if (!kt_read_line("/sys/bus/event_source/devices/intel_bts/type", line,
			  sizeof(line)))
		type = strtol(line, NULL, 10);
	memset(b, 0, sizeof(*b));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	/* Enabled once the AUX area exists: intel_bts cannot start without. */
	a.disabled = 1;
	b->fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0);
	if (type <= 0 || b->fd < 0) {
		fprintf(stderr, "perf_event_open(intel_bts): %s\n", strerror(errno));
		return -1;
	}
	b->base = mmap(NULL, KT_PAGE + KT_BTS_DATA, PROT_READ | PROT_WRITE,
		       MAP_SHARED, b->fd, 0);
	if (b->base == MAP_FAILED) {
		fprintf(stderr, "mmap(intel_bts): %s\n", strerror(errno));
		return -1;
	}
	pc = b->base;
	pc->aux_offset = KT_PAGE + KT_BTS_DATA;
	pc->aux_size = KT_BTS_AUX;
	b->aux = mmap(NULL, KT_BTS_AUX, PROT_READ | PROT_WRITE, MAP_SHARED,
		      b->fd, (off_t)pc->aux_offset);
	if (b->aux == MAP_FAILED) {
		fprintf(stderr, "mmap(aux): %s\n", strerror(errno));
		return -1;
	}
	if (ioctl(b->fd, PERF_EVENT_IOC_ENABLE, 0)) {
		fprintf(stderr, "enable(intel_bts): %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

size_t kt_intel_bts_read(const struct kt_intel_bts *b,
			 struct ptbts_record *out, size_t max)
{
	const struct perf_event_mmap_page *pc = b->base;
	size_t n;

	/* A running event publishes aux_head only when it stops. */
	ioctl(b->fd, PERF_EVENT_IOC_DISABLE, 0);
	/* Pairs with the kernel's update of aux_head (perf's AUX protocol). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	n = (size_t)(pc->aux_head / sizeof(*out));
	if (n > max)
		n = max;
	memcpy(out, b->aux, n * sizeof(*out));
	return n;
}

void kt_intel_bts_close(struct kt_intel_bts *b)
{
	if (b->aux && b->aux != MAP_FAILED)
		munmap(b->aux, KT_BTS_AUX);
	if (b->base && b->base != MAP_FAILED)
		munmap(b->base, KT_PAGE + KT_BTS_DATA);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

bool kt_cpuinfo_has(const char *flag)
{
	char line[4096], word[64];
	FILE *f = fopen("/proc/cpuinfo", "r");
	bool found = false;

	if (!f)
		return false;
	snprintf(word, sizeof(word), " %s ", flag);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = ' ';
		if (!strncmp(line, "flags", 5)) {
			found = strstr(line, word) != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

bool kt_kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

size_t kt_split_user(const struct ptbts_record *r, size_t n,
		     struct ptbts_record *user, size_t *nuser)
{
	size_t i, entries = 0;

	*nuser = 0;
	for (i = 0; i < n; i++) {
		if (!kt_kernel_addr(r[i].from) && !kt_kernel_addr(r[i].to))
			user[(*nuser)++] = r[i];
		else if (!kt_kernel_addr(r[i].from) && kt_kernel_addr(r[i].to))
			entries++;
		else
			return ~(size_t)0;
	}
	return entries;
}

int kt_watchdog_set(const char *val)
{
	char old[16] = "";
	int fd = open(KT_WATCHDOG, O_RDWR);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (read(fd, old, sizeof(old) - 1) < 0 ||
	    pwrite(fd, val, strlen(val), 0) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return old[0] == '1';
}

int kt_perf_counter(pid_t pid, uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
}
