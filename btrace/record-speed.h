/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrace record's options of speed and bounds: --cpu, --skip, --max-size
 * and --duration (record-speed.c).
 */
#ifndef BTRACE_RECORD_SPEED_H
#define BTRACE_RECORD_SPEED_H

#include <stdint.h>

#include <bts.h>

#include "options.h"

#define RECORD_SKIP_MAX 64

struct record_speed {
	int cpu_placement;	/* &enum bts_cpu_placement */
	int cpu;
	const char *skip[RECORD_SKIP_MAX + 1];	/* NULL-terminated */
	size_t nskip;
	uint64_t max_size;
	uint64_t duration_ms;
};

const char *parse_cpu(const char *arg, void *value);	/* struct record_speed */
const char *parse_skip(const char *arg, void *value);	/* struct record_speed */
const char *parse_duration(const char *arg, void *value); /* uint64_t ms */

#define OPT_RECORD_SPEED(v)						\
	OPT_CALLBACK(0, "cpu", "N|auto|none", (v),			\
		     "tracer and program on CPU N, on the tracer's (auto, the default), or anywhere (none)", \
		     parse_cpu),					\
	OPT_CALLBACK(0, "skip", "OBJ", (v),				\
		     "run code of objects whose file name matches glob OBJ at full speed (repeatable)", \
		     parse_skip),					\
	OPT_CALLBACK(0, "max-size", "SIZE", &(v)->max_size,		\
		     "cut the recording after SIZE bytes of records (24 each), K/M/G suffixes", \
		     parse_records_size),					\
	OPT_CALLBACK(0, "duration", "SECONDS", &(v)->duration_ms,	\
		     "cut the recording after SECONDS (decimals allowed)", \
		     parse_duration)

/* Copies the options into @so. */
void record_speed_opts(const struct record_speed *r, struct bts_session_opts *so);
/* Arms the --duration timer: it stops @s when the time is up. */
void record_speed_arm(const struct record_speed *r, struct bts_session *s);
/* The timer is off: call before the session is freed. */
void record_speed_disarm(void);
/* "; cut at --max-size" or the like for the summary line, or "". */
const char *record_speed_cut(const struct bts_session_stats *st);

#endif /* BTRACE_RECORD_SPEED_H */
