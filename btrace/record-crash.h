/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btrace record: following children and the flight recorder. */
#ifndef BTRACE_RECORD_CRASH_H
#define BTRACE_RECORD_CRASH_H

#include <stdint.h>

#include <bts.h>

/* --keep N: the newest N records per thread; memory is about 24 bytes each. */
#define RECORD_KEEP_DEFAULT	65536
#define RECORD_KEEP_MAX		(1u << 26)

/* --keep's argument: a count of records, 1 .. RECORD_KEEP_MAX. */
const char *parse_keep(const char *arg, void *value);

/* Lines "  process PID (NAME): exited N" for a session of several processes. */
void record_print_processes(const struct bts_session *s);

/*
 * --on-crash: the one line that says what happened (no crash, or which
 * process crashed and where its trace went); returns how many crash
 * traces could not be written.
 */
int record_crash_summary(const struct bts_session *s,
			 const struct bts_session_stats *st, uint64_t keep);

/* The processes whose exec'd programs a qemu-user session did not record. */
void record_print_unrecorded(const struct bts_session *s, int source);

#endif /* BTRACE_RECORD_CRASH_H */
