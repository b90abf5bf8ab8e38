/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The in-memory model of an opened trace: what trace_reader.c builds while
 * it validates a file, and what the bts_trace_* accessors read
 * (trace_index.c).  Records stay in the file's bytes; batches point at them.
 */
#ifndef BTS_TRACE_INDEX_H
#define BTS_TRACE_INDEX_H

#include "trace_format.h"

/* pid or tid -> index, open addressing; keys are > 0, 0 marks a free slot. */
struct bts_idmap {
	struct bts_idmap_slot {
		int32_t key;
		uint32_t val;
	} *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

struct bts_batch {
	size_t off;		/* of the first record in the trace's bytes */
	uint32_t count;
};

struct bts_tthread {
	struct bts_thread_info info;
	size_t process;		/* index in bts_trace.procs */
	struct bts_batch *batches;
	size_t nbatches, cap;
};

struct bts_tprocess {
	struct bts_process_info info;
	/* The effective maps: sorted by start, none overlapping. */
	struct bts_map *maps;
	size_t nmaps, cap;
	/* The effective code copies: sorted by addr, none overlapping. */
	struct bts_code *code;
	size_t ncode, capcode;
};

struct bts_trace {
	const uint8_t *buf;
	size_t len;
	void *mapped;		/* buf when bts_trace_open() mapped the file */
	struct bts_trace_info info;
	bool session;
	uint64_t chunks;	/* before END */
	uint64_t records;
	struct bts_tprocess *procs;
	size_t nprocs, capprocs;
	struct bts_tthread *threads;
	size_t nthreads, capthreads;
	struct bts_idmap pids, tids;
};

/* Index of a process or thread, or -1. */
long bts_tindex_process(const struct bts_trace *t, pid_t pid);
long bts_tindex_thread(const struct bts_trace *t, pid_t tid);

/* These return 0 or -BTS_E_NOMEM; callers have checked for duplicates. */
int bts_tindex_add_process(struct bts_trace *t, pid_t pid, pid_t ppid,
			   const char *exe);
int bts_tindex_add_thread(struct bts_trace *t, size_t process, pid_t tid);
int bts_tindex_add_batch(struct bts_trace *t, size_t thread, size_t off,
			 uint32_t count);
/* Adds @m to the effective set: it trims or removes the maps it overlaps. */
int bts_tindex_add_map(struct bts_trace *t, size_t process,
		       const struct bts_map *m);
/* Adds a code copy; it trims or removes the copies it overlaps. */
int bts_tindex_add_code(struct bts_trace *t, size_t process, uint64_t addr,
			const uint8_t *bytes, uint32_t len);
/* After the last chunk: threads of ended processes have ended too. */
void bts_tindex_finish(struct bts_trace *t);
/* Frees the model (not the bytes, not @t). */
void bts_tindex_free(struct bts_trace *t);

#endif /* BTS_TRACE_INDEX_H */
