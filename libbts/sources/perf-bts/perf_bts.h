/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The perf-bts source: branch sampling through perf_event_open, as gdb's
 * native Linux BTS backend does it (gdb/nat/linux-btrace.c): a
 * branch-instructions event with a sample period of 1, user mode only,
 * which Intel's perf driver serves with BTS; records {header, from, to}
 * land in a read-only (overwriting) perf ring that the tracer reads.
 *
 * perf_bts_probe.c  may it work here: gdb's vendor and model checks first
 * perf_bts.c        one thread's event: open, map, read the ring, close
 * perf_bts_source.c the session's side: a thread's event from its first
 *                   stop, its records into the thread's ring; the
 *                   source's operations (bts_perf_bts_ops)
 *
 * Like gdb's, the ring overwrites: perf-bts keeps the newest records of a
 * thread (RING mode), read at its stops and at its end.
 */
#ifndef BTS_PERF_BTS_H
#define BTS_PERF_BTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"

/* The CPU as /proc/cpuinfo names its first processor. */
struct bts_cpu_id {
	char vendor[16];	/* "GenuineIntel", "AuthenticAMD", ... */
	int family;
	int model;		/* with the extended model folded in */
};

/* gdb's text when the vendor or model rules BTS out. */
#define BTS_PERF_CPU_REFUSED "BTS support has been disabled for the target cpu."

/* perf_bts_probe.c */
/* From /proc/cpuinfo (below $BTS_PROC_ROOT in tests): 0, or -1. */
int bts_cpu_id_read(struct bts_cpu_id *id);
/*
 * gdb's cpu_supports_bts(): AMD has no BTS; Intel family 6 models from
 * Nehalem to Ivy Bridge have erratum AAJ122 (wrong "from" addresses);
 * other vendors are assumed to have it.
 */
bool bts_cpu_supports_bts(const struct bts_cpu_id *id);
/* Fills @si for perf-bts: available, or why not. */
void bts_perf_probe(struct bts_source_info *si);

struct perf_event_attr;
/*
 * The event gdb's perf-bts opens: every taken user branch sampled with its
 * source and destination (perf_bts.c; the probe opens the same).
 */
void bts_perf_branch_attr(struct perf_event_attr *attr);

/* perf_bts.c: one thread's event. */
struct bts_perf_ring {
	int fd;
	void *base;		/* the header page, then the data */
	size_t data_size;	/* bytes of ring (a power-of-two number of pages) */
	size_t data_offset;
	uint64_t last_head;	/* data_head when last read */
};

/*
 * Opens the event for thread @tid and maps a ring of at least @size bytes
 * (rounded up to a power-of-two number of pages; halved until the mapping
 * succeeds, as gdb does).  gdb's error texts for perf_event_paranoid.
 */
int bts_perf_open(pid_t tid, size_t size, struct bts_perf_ring *r);
void bts_perf_close(struct bts_perf_ring *r);

typedef void (*bts_perf_emit_fn)(void *arg, uint64_t from, uint64_t to);

/*
 * Takes the records written since the last read, oldest first, to @emit
 * (kernel "from" addresses skipped, as gdb does).  The ring is walked
 * backwards from data_head like gdb's: in an overwriting ring only the
 * newest record's start is known.  Returns the number of records that
 * were overwritten unread (lost), or -BTS_E_FORMAT when a record that is
 * not a 24-byte sample stopped the walk (gdb: "Branch trace may be
 * incomplete"); records newer than it were still emitted.
 */
int64_t bts_perf_read(struct bts_perf_ring *r, bts_perf_emit_fn emit, void *arg);

/* perf_bts_source.c */
struct bts_session;
struct bts_thread;
/*
 * For a session's requested source: PTBTS_SOURCE_PERF_BTS when asked for
 * (or @want is auto) and usable, 0 when auto finds it unusable, or
 * -BTS_E_NOSOURCE / -BTS_E_INVAL with the reason.
 */
int bts_perf_pick(int want, int mode);
/* At a thread's first stop: its event; it then runs with PTRACE_CONT. */
void bts_perf_start(struct bts_session *s, struct bts_thread *t);
/* The records perf holds for the thread, into its ring (lost ones counted). */
void bts_perf_drain(struct bts_session *s, struct bts_thread *t);
/* At an exec stop: the old image's records, then its new maps. */
void bts_perf_exec(struct bts_session *s, struct bts_thread *t);
/* The thread leaves the session: its event closed. */
void bts_perf_forget(struct bts_session *s, struct bts_thread *t);

#endif /* BTS_PERF_BTS_H */
