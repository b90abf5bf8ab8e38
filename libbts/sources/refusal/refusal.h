/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Why tracing is refused here.  The probes gather facts (files under /proc
 * and /sys, and two tries: ptrace of a child, perf_event_open of a dummy
 * event); the checks turn facts into one line each.  Facts and decisions
 * are apart so that tests can give any facts.
 *
 * refusal_probe.c   the facts, read below $BTS_PROC_ROOT / $BTS_SYSFS_ROOT
 * refusal_checks.c  facts -> one line per check
 * refusal.c         the public API: names, running one check, refusal_for
 */
#ifndef BTS_REFUSAL_H
#define BTS_REFUSAL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

#define BTS_CAP_SYS_PTRACE	19
#define BTS_CAP_SYS_ADMIN	21
#define BTS_CAP_PERFMON		38

/* What the probes found. */
struct bts_refusal_facts {
	int yama;		/* ptrace_scope; -1: no Yama */
	unsigned long long cap_eff;	/* CapEff of this process */
	int seccomp;		/* Seccomp: of this process; -1: unknown */
	int ptrace_err;		/* errno of a child's PTRACE_TRACEME; 0: it worked */
	int perf_err;		/* errno of perf_event_open on a dummy event; 0: it worked */
	int paranoid;		/* perf_event_paranoid; BTS_NO_PERF: no such file */
	char meltdown[96];	/* vulnerabilities/meltdown, "" when missing */
	int module_abi;		/* /sys/kernel/ptrace_bts/abi_version; -1: not loaded */
	char lockdown[32];	/* the selected lockdown mode, "" when no lockdown LSM */
};

#define BTS_NO_PERF (-1000)

/* refusal_probe.c */
/*
 * @path ("/proc/...", "/sys/...") below $BTS_PROC_ROOT or $BTS_SYSFS_ROOT
 * when set (tests only), into @buf.
 */
const char *bts_root_path(const char *path, char *buf, size_t len);
/* The first integer in a file (root-relative): 0, or -1 when unreadable. */
int bts_read_int_file(const char *path, long long *val);
/* The first line of a file without its newline: 0, or -1. */
int bts_read_line_file(const char *path, char *buf, size_t len);
/* A field of this process's status, "CapEff", "Seccomp": 0, or -1. */
int bts_self_status(const char *field, int base, unsigned long long *val);
bool bts_has_cap(unsigned long long cap_eff, int cap);
/* perf_event_open() of @attr on this thread, closed at once: 0 or errno. */
int bts_perf_try(struct perf_event_attr *attr);
/* Facts needed by @check (-1: every check), tries included. */
void bts_refusal_probe(int check, struct bts_refusal_facts *f);

/* refusal.c: bts_refusal_for() passing over the checks in @skip (1 << check). */
int bts_refusal_find(int source, bool attach, uint32_t skip,
		     struct bts_refusal *out);

/* refusal_checks.c: fills @out (line and what it refuses) from @f. */
void bts_refusal_decide(int check, const struct bts_refusal_facts *f,
			struct bts_refusal *out);
/* gdb's line for a perf_event_open refused by perf_event_paranoid. */
const char *bts_paranoid_line(void);

#endif /* BTS_REFUSAL_H */
