/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the tests on the virtual CPU with BTS: Linux's own intel_bts
 * AUX PMU as a second recorder, the split of a BTS stream into user
 * branches and entries into the kernel, and the NMI watchdog.
 */
#ifndef KT_HW_H
#define KT_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/ptrace_bts.h>

/* An intel_bts event (user mode only) with its data and AUX mappings. */
struct kt_intel_bts {
	int fd;
	void *base;
	void *aux;
};

/*
 * Opens intel_bts for @pid (any CPU), or for every task on @cpu with
 * @pid -1, and maps its AUX area; 0, or -1 (the reason printed).
 */
int kt_intel_bts_open(struct kt_intel_bts *b, pid_t pid, int cpu);
/* Disables it and copies up to @max of its records to @out; their number. */
size_t kt_intel_bts_read(const struct kt_intel_bts *b,
			 struct ptbts_record *out, size_t max);
void kt_intel_bts_close(struct kt_intel_bts *b);

/*
 * A perf counter of @pid's (0: the caller) on any CPU, user mode only:
 * its fd, or -1 with errno set.
 */
int kt_perf_counter(pid_t pid, uint32_t type, uint64_t config);

/* Whether /proc/cpuinfo's flags list @flag. */
bool kt_cpuinfo_has(const char *flag);

/* The kernel half of x86-64 (canonical addresses with bit 63 set). */
bool kt_kernel_addr(uint64_t a);

/*
 * BTS with BTS_OFF_OS records what user mode executes, entries into the
 * kernel included: the syscall instructions, and any interrupt or exception
 * that arrives in user mode ({user address -> kernel entry}).  The user
 * branches (both ends in user space) go to @user; returns how many records
 * were entries, or ~0 when one is neither.
 */
size_t kt_split_user(const struct ptbts_record *r, size_t n,
		     struct ptbts_record *user, size_t *nuser);

/*
 * The NMI watchdog is a perf event on the PMU: while it runs, perf holds
 * the counters and kmod-pebs is refused (perf busy).  Writes @val ("0" or
 * "1") to it; 1 when it was on, 0 when off or absent, -1 on failure.
 */
int kt_watchdog_set(const char *val);

#endif /* KT_HW_H */
