/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The in-memory model of an opened trace: what trace_reader.c builds while
 * it validates a file, and what the bts_trace_* accessors read
 * (trace_index.c).  Records stay in the file's bytes; batches point at them.
 */
#ifndef BTS_TRACE_INDEX_H
#define BTS_TRACE_INDEX_H

#include "trace/trace_format.h"

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
	/* Issue 5: a RECORDS_COMPACT chunk; @off is then its payload's. */
	bool compact;
	uint32_t len;		/* compact: the payload's bytes */
	uint64_t first;		/* the thread's index of its first record */
	uint64_t sum;		/* raw: bts_raw_sum() of its records */
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
	uint32_t abi_bits;	/* issue 9: BTS_CHUNK_ABI's; 0: 64-bit */
};

struct bts_trace {
	const uint8_t *buf;
	size_t len;
	void *mapped;		/* buf when bts_trace_open() mapped the file */
	bool incomplete_ok;	/* bts_trace_open_incomplete() */
	struct bts_trace_info info;
	bool session;
	uint64_t chunks;	/* before END */
	uint64_t records;
	struct bts_tprocess *procs;
	size_t nprocs, capprocs;
	struct bts_tthread *threads;
	size_t nthreads, capthreads;
	struct bts_idmap pids, tids;
	struct bts_trace_ext *ext;	/* trace_procs.h: images, crashes */
	struct bts_rec_cache *cache;	/* trace_codec_read.c: decoded chunks */
	/* trace_guard.c: against a file that changes while it is read. */
	int fd;				/* the mapped file's, or -1 */
	struct bts_kept *kept;		/* copies of the file's bytes */
	struct {
		bool valid;
		size_t thread, batch;
	} checked[4];			/* raw batches checked lately */
	unsigned int next_checked;
};

/*
 * trace_guard.c.  A copy of @len bytes of the file, owned by @t (@p itself
 * for a caller's buffer), or NULL when memory ran out; they are freed with
 * bts_trace_keep_free().  The sum of a raw batch's bytes.  0, or an error
 * when the file shrank since it was opened; 0, or an error when raw batch
 * @batch of @thread differs from the file as opened.
 */
const void *bts_trace_keep(struct bts_trace *t, const void *p, size_t len);
void bts_trace_keep_free(struct bts_trace *t);
uint64_t bts_raw_sum(const uint8_t *p, size_t len);
int bts_trace_check_size(const struct bts_trace *t);
int bts_raw_batch_check(const struct bts_trace *t, size_t thread, size_t batch);

/* Index of a process or thread, or -1. */
long bts_tindex_process(const struct bts_trace *t, pid_t pid);
long bts_tindex_thread(const struct bts_trace *t, pid_t tid);

/*
 * Room for one more element of @size bytes in the doubling array *@arrp
 * of @n elements and capacity *@cap: 0, or -BTS_E_NOMEM.
 */
int bts_tindex_grow(void *arrp, size_t *cap, size_t n, size_t size);
/* These return 0 or -BTS_E_NOMEM; callers have checked for duplicates. */
int bts_tindex_add_process(struct bts_trace *t, pid_t pid, pid_t ppid,
			   const char *exe);
int bts_tindex_add_thread(struct bts_trace *t, size_t process, pid_t tid);
int bts_tindex_add_batch(struct bts_trace *t, size_t thread, size_t off,
			 uint32_t count);
/* A compact batch: @len payload bytes at @off (trace_codec_read.c). */
int bts_tindex_add_compact(struct bts_trace *t, size_t thread, size_t off,
			   uint32_t len, uint32_t count);

/*
 * Compact records (trace_codec_read.c).  The reader of RECORDS_COMPACT
 * chunks, with trace_reader.c's signature; the records of a compact batch
 * (decoded into a small cache; an error only when memory ran out or the
 * file changed since it was checked); the cache's end.
 */
int bts_rd_records_compact(struct bts_trace *t, const uint8_t *p, size_t plen,
			   size_t off);
int bts_compact_batch(const struct bts_trace *t, size_t thread, size_t batch,
		      const struct ptbts_record **out);
void bts_compact_free(struct bts_trace *t);
/*
 * Lets the kernel drop the pages of a mapped file's bytes [off, off + len)
 * once read: they come back from the file if read again, so the memory of
 * reading a trace stays flat however long it is.
 */
void bts_trace_drop(const struct bts_trace *t, size_t off, size_t len);
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
