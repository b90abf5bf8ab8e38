/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The model of an opened trace, shared by the files of the reader.
 * reader.c walks the file and reader_chunks.c checks each chunk before it
 * adds what the chunk says to the model (reader_model.c); the bts_trace_*
 * accessors read the model (reader_query.c, reader_records.c).  The model
 * holds one record per process and per thread; records stay in the file's
 * bytes, where a thread's batches point.
 */
#ifndef BTS_TRACE_READER_H
#define BTS_TRACE_READER_H

#include <stdbool.h>
#include <string.h>

#include "trace/trace_format.h"

/* pid or tid -> index, open addressing; keys are > 0, 0 marks a free slot. */
struct trace_ids {
	struct trace_id_slot {
		int32_t key;
		uint32_t val;
	} *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

/* One RECORDS, RECORDS_COMPACT or RECORDS_TNT chunk of a thread. */
struct trace_batch {
	size_t off;		/* of the first record, or of a compact payload */
	uint32_t count;
	bool compact;		/* a payload decoded through reader_compact.c */
	bool tnt;		/* ...in the tnt encoding */
	uint32_t len;		/* compact: the payload's bytes */
	uint64_t first;		/* the thread's index of its first record */
	uint64_t sum;		/* raw: bts_reader_raw_sum() of its records */
};

struct trace_thread {
	struct bts_thread_info info;
	size_t process;		/* its process's index in bts_trace.procs */
	struct trace_batch *batches;
	size_t nbatches, capbatches;
	struct bts_index *index;	/* its INDEX chunk's, or NULL */
	/*
	 * A raw batch holds a code-change marker, or a compact batch (read
	 * only when decoded) may: the decoder looks for them only then.
	 */
	bool may_change;
};

/*
 * What an address space holds: maps and code copies, each sorted by
 * address and none overlapping.  A later one replaces what it overlaps of
 * earlier ones, as mmap() does (reader_space.c).
 */
struct trace_space {
	struct bts_map *maps;
	size_t nmaps, capmaps;
	struct bts_code *code;
	size_t ncode, capcode;
};

/*
 * One program a process ran, from its PROCESS chunk or an EXEC chunk to
 * the next EXEC: the MAP and CODE chunks in between are its @space.
 * @info's maps and code are set when the file has been read.
 */
struct trace_image {
	struct bts_image_info info;
	struct trace_space space;
};

/* A crashed process's state (CRASH chunks, reader_crash.c). */
struct trace_crash {
	struct bts_crash_info info;
	struct bts_crash_thread *threads;
	size_t capthreads;
};

struct trace_process {
	struct bts_process_info info;
	struct trace_image *images;	/* >= 1, in exec order */
	size_t nimages, capimages;
	/*
	 * What all its images mapped, later over earlier: the decoder's view
	 * (bts_trace_maps).  Built when the file has been read, and only for
	 * a process that exec'd: otherwise it is its one image's space
	 * (trace_process_space()).
	 */
	struct trace_space merged;
	uint32_t abi_bits;		/* its ABI chunk's; 0: 64-bit */
	struct trace_crash *crash;	/* NULL: no crash */
};

struct bts_trace {
	const uint8_t *buf;
	size_t len;
	void *mapped;		/* buf when bts_trace_new() mapped the file */
	bool incomplete_ok;	/* bts_trace_new_incomplete() */
	struct bts_trace_info info;
	bool session;
	uint64_t chunks;	/* before END */
	uint64_t records;
	struct trace_process *procs;
	size_t nprocs, capprocs;
	struct trace_thread *threads;
	size_t nthreads, capthreads;
	struct trace_ids pids, tids;
	struct bts_pebs_sample *pebs;	/* PEBS chunks' records, decoded */
	size_t npebs, cappebs;
	uint64_t pebs_lost;
	struct reader_cache *cache;	/* reader_compact.c: decoded chunks */
	struct reader_raw *raw;		/* reader_raw.c: raw chunks read */
	/*
	 * Slots of those two caches filled so far: an iterator reading a
	 * slot's records reads on while no slot has been filled since.
	 */
	uint64_t fills;
	/* reader_guard.c: against a file that changes while it is read. */
	int fd;				/* the mapped file's, or -1 */
	struct reader_kept *kept;	/* copies of the file's bytes */
	struct {
		bool valid;
		size_t thread, batch;
	} checked[4];			/* raw batches checked lately */
	unsigned int next_checked;
	uintptr_t drop_lo, drop_hi;	/* pages waiting for bts_reader_drop() */
};

/* The space the decoder reads for @p. */
static inline const struct trace_space *
trace_process_space(const struct trace_process *p)
{
	return p->nimages > 1 ? &p->merged : &p->images[0].space;
}

/* ------------------------------------------------ building (reader_model.c) */

/* -BTS_E_FORMAT, saying what is wrong at byte @off of the file. */
int bts_reader_bad(size_t off, const char *what);

/*
 * Room for one more element of @size bytes in the doubling array *@arrp
 * of @n elements and capacity *@cap: 0, or -BTS_E_NOMEM.
 */
int bts_reader_grow(void *arrp, size_t *cap, size_t n, size_t size);

/* A process or thread by its id, or NULL. */
struct trace_process *bts_reader_process(const struct bts_trace *t, pid_t pid);
struct trace_thread *bts_reader_thread(const struct bts_trace *t, pid_t tid);
/*
 * Thread @tid of process @pid, as a THREAD chunk made it: NULL when none
 * did, or made it another process's (every chunk about a thread names
 * both).
 */
struct trace_thread *bts_reader_thread_of(const struct bts_trace *t, pid_t pid,
					  pid_t tid);
/* The index of a thread in bts_trace.threads, or -1. */
long bts_reader_thread_index(const struct bts_trace *t, pid_t tid);

/* These return 0 or -BTS_E_NOMEM; callers have checked for duplicates. */
int bts_reader_add_process(struct bts_trace *t, pid_t pid, pid_t ppid,
			   const char *exe);
int bts_reader_add_thread(struct bts_trace *t, struct trace_process *p,
			  pid_t tid);
/* A batch of @count records at @off; a compact one is @len payload bytes. */
int bts_reader_add_batch(struct trace_thread *th, size_t off, uint32_t count);
int bts_reader_add_compact(struct trace_thread *th, size_t off, uint32_t len,
			   uint32_t count);
/* An exec of @p: a new image, which the MAP and CODE chunks after it fill. */
int bts_reader_add_image(struct trace_process *p, const char *exe, pid_t tid,
			 uint64_t entry);
/* A MAP or CODE chunk of @p: its current image's. */
int bts_reader_add_map(struct trace_process *p, const struct bts_map *m);
int bts_reader_add_code(struct trace_process *p, const struct bts_code *c);
/*
 * After the last chunk: threads of ended processes have ended too, and
 * each process's views are set.  0 or -BTS_E_NOMEM.
 */
int bts_reader_finish(struct bts_trace *t);
/* Frees the model (not the bytes, not @t). */
void bts_reader_free(struct bts_trace *t);

/* ------------------------------------------------- spaces (reader_space.c) */

/* These return 0 or -BTS_E_NOMEM; @s is unchanged when they fail. */
int bts_space_add_map(struct trace_space *s, const struct bts_map *m);
int bts_space_add_code(struct trace_space *s, const struct bts_code *c);
/* @from laid over @to, as if its maps and copies came after @to's. */
int bts_space_merge(struct trace_space *to, const struct trace_space *from);
void bts_space_free(struct trace_space *s);

/* ---------------------------------------------- chunks (reader_chunks.c) */

/*
 * The checks of one chunk of @type and @plen payload bytes at offset @off,
 * and what it adds to the model (reader_chunks.c): 0 or an error.
 */
int bts_read_chunk(struct bts_trace *t, uint32_t type, size_t off, size_t plen);
/*
 * Chunk readers in other files: the payload @p of @plen bytes of the chunk
 * at offset @off.
 */
int bts_read_compact_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			   size_t off);
int bts_read_tnt_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
		       size_t off);
int bts_read_crash_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			 size_t off);
int bts_read_pebs_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			size_t off);
int bts_read_index_chunk(struct bts_trace *t, const uint8_t *p, size_t plen,
			 size_t off);
/* After the last chunk: no thread has records after its INDEX chunk. */
int bts_reader_check_indexes(const struct bts_trace *t);
void bts_reader_crash_free(struct trace_crash *c);

/* ------------------------------------- compact records (reader_compact.c) */

/*
 * The records of compact batch @batch of @thread, decoded into a small
 * cache: an error only when memory ran out or the file changed since it
 * was checked.  The cache's end.
 */
int bts_reader_compact_batch(const struct bts_trace *t, size_t thread,
			     size_t batch, const struct ptbts_record **out);
void bts_reader_compact_free(struct bts_trace *t);
/*
 * After the last chunk, with the maps known: every tnt batch decodes
 * against the code the trace names, into well-formed records.  0, or
 * bts_tnt_decode()'s error.
 */
int bts_reader_check_tnt(struct bts_trace *t);

/* ----------------------------------------------- raw records (reader_raw.c) */

/*
 * Whether a raw chunk of @count records is read through a buffer (a
 * mapped file's chunks of at most BTS_RECORDS_PER_CHUNK records), not
 * from the file's bytes in memory.
 */
bool bts_reader_raw_buffered(const struct bts_trace *t, uint32_t count);
/*
 * @len bytes at offset @off of the file into @dst, read from the file
 * when it was mapped, not touched in the mapping: 0, or an error when the
 * file shrank or cannot be read.
 */
int bts_reader_read(const struct bts_trace *t, void *dst, size_t len,
		    size_t off);
/*
 * The bytes of the @count raw records at offset @off of the file, read
 * into a buffer that the next read may reuse, or the file's bytes when
 * not buffered: 0, or an error when the file shrank or cannot be read.
 */
int bts_reader_raw_load(struct bts_trace *t, size_t off, uint32_t count,
			const uint8_t **out);
/*
 * The bytes of raw batch @batch of @thread, as the opening pass checked
 * them: 0, or an error when the file changed since (reader_guard.c).
 * They stay valid until the next call.  Read through a buffer, they are
 * records in the host's order, aligned.
 */
int bts_reader_raw_batch(const struct bts_trace *t, size_t thread,
			 size_t batch, const uint8_t **out);
void bts_reader_raw_free(struct bts_trace *t);

/* ------------------------------------------------ the file (reader_guard.c) */

/*
 * A copy of @len bytes of the file, owned by @t (@p itself for a caller's
 * buffer), or NULL when memory ran out; they are freed with
 * bts_reader_keep_free().  The sum of a raw batch's bytes.  The error of a
 * file that shrank; 0, or that error when the file shrank since it was
 * opened; 0, or an error when @bytes are not raw batch @b's as opened; 0,
 * or an error when raw batch @batch of @thread, read from the file's
 * bytes, differs from the file as opened.
 */
const void *bts_reader_keep(struct bts_trace *t, const void *p, size_t len);
void bts_reader_keep_free(struct bts_trace *t);
uint64_t bts_reader_raw_sum(const uint8_t *p, size_t len);
int bts_reader_shrank(void);
int bts_reader_check_size(const struct bts_trace *t);
int bts_reader_check_sum(const struct trace_batch *b, const uint8_t *bytes);
int bts_reader_check_batch(const struct bts_trace *t, size_t thread,
			   size_t batch);
/*
 * Lets the kernel drop the pages of a mapped file's bytes [off, off + len)
 * once read: they come back from the file if read again, so the memory of
 * reading a trace stays flat however long it is.
 */
void bts_reader_drop(const struct bts_trace *t, size_t off, size_t len);

#endif /* BTS_TRACE_READER_H */
