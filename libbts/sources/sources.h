/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The table of the sources (sources.c), each in its folder here: what
 * the layer that creates sessions (../recorder/) picks a source from.
 */
#ifndef BTS_SOURCES_H
#define BTS_SOURCES_H

#include "session/source.h"

/* The sources, each defined in its folder. */
extern const struct bts_source_ops bts_ptrace_step_ops;
extern const struct bts_source_ops bts_kmod_step_ops;
extern const struct bts_source_ops bts_kmod_bts_ops;
extern const struct bts_source_ops bts_kmod_pebs_ops;
extern const struct bts_source_ops bts_perf_bts_ops;
extern const struct bts_source_ops bts_qemu_user_ops;

/*
 * The source that records for a session asking for @want (0 or
 * BTS_SOURCE_AUTO: any) in @mode, into *@ops: its PTBTS_SOURCE_*, or
 * -BTS_E_NOSOURCE saying why the one asked for cannot record here, or
 * -BTS_E_INVAL for an unknown one.
 */
int bts_source_pick(int want, int mode, const struct bts_source_ops **ops);

#endif /* BTS_SOURCES_H */
