/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What a trace knows of its processes beyond trace_index.h: the images of
 * each process (one per exec, trace_procs.c) and the state of a crashed
 * one (trace_crash.c).  The reader calls in for EXEC, CRASH, MAP and CODE
 * chunks; the model hangs off struct bts_trace's @ext.
 */
#ifndef BTS_TRACE_PROCS_H
#define BTS_TRACE_PROCS_H

#include "trace/reader.h"

struct bts_timage {
	struct bts_image_info info;
	struct bts_map *maps;
	size_t capmaps;
	struct bts_code *code;
	size_t capcode;
};

struct bts_tcrash {
	struct bts_crash_info info;
	struct bts_crash_thread *threads;
	size_t cap;
};

/* Per process, by its index in bts_trace.procs. */
struct bts_tproc_ext {
	struct bts_timage *images;
	size_t nimages, capimages;
	struct bts_tcrash *crash;	/* NULL: no crash */
};

struct bts_trace_ext {
	struct bts_tproc_ext *procs;
	size_t nprocs;
};

/* The extension of process @proc (an index), created on first use; NULL: no memory. */
struct bts_tproc_ext *bts_tprocs_get(struct bts_trace *t, size_t proc);
/* The same, read-only: NULL when there is none. */
const struct bts_tproc_ext *bts_tprocs_find(const struct bts_trace *t,
					    pid_t pid);

/* Chunk readers, with trace_reader.c's signature (payload, its length, chunk offset). */
int bts_rd_exec(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off);
int bts_rd_crash(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off);

/* After a MAP or CODE chunk was added to process @proc: its current image too. */
int bts_tprocs_map(struct bts_trace *t, size_t proc, const struct bts_map *m);
int bts_tprocs_code(struct bts_trace *t, size_t proc, uint64_t addr,
		    const uint8_t *bytes, uint32_t len);

/* After the last chunk: every process has its first image. */
int bts_tprocs_finish(struct bts_trace *t);
/* Frees @t->ext (trace_procs.c calls trace_crash.c's part). */
void bts_tprocs_free(struct bts_trace *t);
void bts_tcrash_free(struct bts_tcrash *c);

#endif /* BTS_TRACE_PROCS_H */
