/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The on-disk layout of a trace file (.btr), version 1.  Internal: only the
 * writer and the reader know it; everything else goes through bts.h.
 *
 * All integers are little-endian.  A file is
 *
 *	header		struct bts_file_header, @header_size bytes
 *	chunk ...	struct bts_chunk_header, @len bytes of payload, then
 *			zero padding up to the next multiple of 8
 *	END chunk	the last chunk; nothing follows it
 *
 * Chunk payloads start 8-aligned, so that their 64-bit fields and the
 * records are naturally aligned in a mapped file.  Each known payload has
 * an exact size given by its own fields; every reserved field is zero.
 *
 * Compatibility: a type with BTS_CHUNK_OPTIONAL set may be skipped by a
 * reader that does not know it; an unknown type without that bit is refused
 * (the file needs a newer libbts).  New information therefore comes as new
 * chunk types (EXEC, CRASH and CODE are numbered already), and the version
 * changes only when an old reader could misread a new file.  A header may
 * grow at its end (@header_size): readers skip what they do not know.
 */
#ifndef BTS_TRACE_FORMAT_H
#define BTS_TRACE_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "internal.h"

/* PNG-style: a high byte and CR LF / ^Z / LF catch text-mode transfers. */
#define BTS_FILE_MAGIC		"\x89" "BTR\r\n\x1a\n"
#define BTS_FILE_MAGIC_LEN	8
#define BTS_FILE_VERSION	1
#define BTS_FILE_ALIGN		8
/* A header this large is not one we wrote: refuse it rather than skip it. */
#define BTS_FILE_HEADER_MAX	4096

struct bts_file_header {
	uint8_t magic[BTS_FILE_MAGIC_LEN];
	uint32_t version;
	uint32_t header_size;	/* bytes, a multiple of 8, >= 16 */
};
#define BTS_LAYOUT_FILE_HEADER	"xx44"

struct bts_chunk_header {
	uint32_t type;		/* enum bts_chunk_type | BTS_CHUNK_OPTIONAL */
	uint32_t len;		/* payload bytes, padding excluded */
};
#define BTS_LAYOUT_CHUNK_HEADER	"44"

#define BTS_CHUNK_OPTIONAL	(1u << 31)
#define BTS_CHUNK_TYPE(type)	((type) & ~BTS_CHUNK_OPTIONAL)
/*
 * Types stay below this forever: an unknown type under it may come from a
 * newer libbts, one above it is damage.
 */
#define BTS_CHUNK_TYPE_LIMIT	0x10000u

enum bts_chunk_type {
	BTS_CHUNK_SESSION	= 1,	/* at most one */
	BTS_CHUNK_PROCESS	= 2,	/* before anything naming its pid */
	BTS_CHUNK_THREAD	= 3,	/* after its process, before its records */
	BTS_CHUNK_MAP		= 4,
	BTS_CHUNK_RECORDS	= 5,	/* any number per thread, interleaved */
	BTS_CHUNK_EXIT		= 6,
	BTS_CHUNK_END		= 7,	/* exactly one, the last */
	/* Written optional (writer_optional.c). */
	BTS_CHUNK_EXEC		= 8,	/* an exec: a new image and its maps */
	BTS_CHUNK_CRASH		= 9,	/* signal, siginfo, registers, stack */
	/* Written optional: readers older than it skip it. */
	BTS_CHUNK_CODE		= 10,	/* copies of code pages without a file */
	/*
	 * Records in the compact encoding (codec.h).  Not
	 * optional: a reader that skipped it would lose records, so an older
	 * reader refuses the file ("needs a newer libbts") instead.
	 */
	BTS_CHUNK_RECORDS_COMPACT = 16,
	/* Written optional: the bitness of a process's image. */
	BTS_CHUNK_ABI		= 17,
	/* Written optional: where a thread's history starts. */
	BTS_CHUNK_START		= 18,
	/* Written optional: kmod-pebs's samples of a thread. */
	BTS_CHUNK_PEBS		= 19,
	/* Written optional: where a thread's history may be entered (index). */
	BTS_CHUNK_INDEX		= 20,
	/*
	 * Records in the code-aware encoding (decode/tnt.h).  Not optional,
	 * as RECORDS_COMPACT: an older reader refuses the file.
	 */
	BTS_CHUNK_RECORDS_TNT	= 21,
};

struct bts_chunk_session {
	uint32_t source;	/* enum ptbts_source */
	uint32_t mode;		/* enum ptbts_mode */
	uint64_t buffer_size;	/* bytes per thread */
};
#define BTS_LAYOUT_SESSION	"448"

/* Followed by exe_len bytes of path and a NUL. */
struct bts_chunk_process {
	int32_t pid;
	int32_t ppid;
	uint32_t exe_len;
	uint32_t reserved;
};
#define BTS_LAYOUT_PROCESS	"4444"

struct bts_chunk_thread {
	int32_t pid;
	int32_t tid;
};
#define BTS_LAYOUT_THREAD	"44"

/*
 * START: the pc a thread was at when recording began (a spawned program's
 * entry point); after the thread's THREAD chunk, before its records.
 * Records start at the first taken branch; the instructions from this pc
 * up to it ran too, and the decoder shows them.  A reader that skips it
 * starts the history at the first branch.
 */
struct bts_chunk_start {
	int32_t pid;
	int32_t tid;
	uint64_t pc;		/* != 0 */
};
#define BTS_LAYOUT_START	"448"

/* Followed by build_id_len bytes of build-id, path_len bytes of path, NUL. */
struct bts_chunk_map {
	int32_t pid;
	uint32_t prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint64_t start;
	uint64_t end;		/* > start */
	uint64_t offset;
	uint32_t build_id_len;	/* <= BTS_BUILD_ID_MAX */
	uint32_t path_len;
};
#define BTS_LAYOUT_MAP	"4488844"

/* Followed by count struct ptbts_record, oldest first. */
struct bts_chunk_records {
	int32_t pid;
	int32_t tid;
	uint32_t count;
	uint32_t reserved;
};
#define BTS_LAYOUT_RECORDS	"4444"

/*
 * @tid 0: the process @pid ended, @status is its waitpid() status.
 * @tid != 0: that one thread of @pid ended.  The main thread (tid == pid)
 * is a thread like the others, but as waitpid() reports the process's
 * status for it, a process without an EXIT of its own takes its main
 * thread's.  A process that ended has no threads left: its threads without
 * an EXIT chunk of their own read as ended with the process's status.
 */
struct bts_chunk_exit {
	int32_t pid;
	int32_t tid;
	int32_t status;
	uint32_t reserved;
};
#define BTS_LAYOUT_EXIT	"4444"

/*
 * Followed by @length bytes: a copy of the process's memory at @address,
 * for code that has no file to read it from (the vDSO).  Written with
 * BTS_CHUNK_OPTIONAL: a reader that skips it loses those names and bytes,
 * nothing else.  A later copy replaces what it overlaps of earlier ones.
 */
struct bts_chunk_code {
	int32_t pid;
	uint32_t length;	/* > 0, the rest of the chunk */
	uint64_t address;	/* address + length does not wrap */
};
#define BTS_LAYOUT_CODE	"448"

/*
 * EXEC and CRASH are written with BTS_CHUNK_OPTIONAL: a reader
 * older than them reads the records and maps and skips the rest.
 *
 * EXEC: thread @tid of @pid exec'd; followed by exe_len bytes of the new
 * program's path and a NUL.  MAP and CODE chunks after it belong to the
 * new image.
 */
struct bts_chunk_exec {
	int32_t pid;
	int32_t tid;
	uint64_t entry;
	uint32_t exe_len;
	uint32_t reserved;
};
#define BTS_LAYOUT_EXEC	"44844"

/*
 * CRASH: one chunk per part, told by @part.  BTS_CRASH_SIGNAL (exactly one
 * per crashed pid, first) is followed by struct bts_chunk_crash_signal;
 * BTS_CRASH_THREAD (after it, one per thread) by struct
 * bts_chunk_crash_thread, @nframes struct bts_frame, then err_len bytes of
 * the unwinder's complaint and a NUL.
 */
struct bts_chunk_crash {
	int32_t pid;
	uint32_t part;
};
#define BTS_LAYOUT_CRASH	"44"

enum { BTS_CRASH_SIGNAL = 1, BTS_CRASH_THREAD = 2 };

struct bts_chunk_crash_signal {
	int32_t tid;
	int32_t signo;
	int32_t code;
	int32_t si_errno;
	int32_t sender_pid;
	uint32_t sender_uid;
	uint64_t addr;
	uint8_t siginfo[128];
};
#define BTS_LAYOUT_CRASH_SIGNAL	"4444448"

/* Flags of a thread part. */
#define BTS_CRASH_CRASHED	1u	/* the thread the signal hit */
#define BTS_CRASH_REGS		2u	/* @regs hold its registers */

struct bts_chunk_crash_thread {
	int32_t tid;
	uint32_t flags;		/* BTS_CRASH_CRASHED, BTS_CRASH_REGS */
	uint32_t nframes;
	uint32_t err_len;
	uint64_t regs[27];	/* struct bts_regs */
};
#define BTS_LAYOUT_CRASH_THREAD	"4444"

/* Totals a reader checks: a file cut and re-joined does not pass. */
struct bts_chunk_end {
	uint64_t chunks;	/* chunks before this one */
	uint64_t records;	/* records in all RECORDS chunks */
};
#define BTS_LAYOUT_END	"88"

/* The writer splits larger batches; readers accept any count that fits. */
#define BTS_RECORDS_PER_CHUNK	16384

/*
 * RECORDS_COMPACT: followed by the chunk's records as one zstd frame of the
 * codec.h stream, which decompresses to exactly @raw_len bytes.  A
 * reader allocates from these fields, so they are bounded: @count is
 * 1..BTS_RECORDS_PER_CHUNK and @raw_len at most BTS_CODEC_REC_MAX bytes a
 * record; a chunk decodes on its own (no state crosses chunks).
 */
struct bts_chunk_records_compact {
	int32_t pid;
	int32_t tid;
	uint32_t count;
	uint32_t raw_len;	/* bytes of the stream, decompressed */
	uint32_t codec;		/* BTS_CODEC_DELTA_ZSTD */
	uint32_t reserved;
};
#define BTS_LAYOUT_RECORDS_COMPACT	"444444"

#define BTS_CODEC_DELTA_ZSTD	1

/*
 * RECORDS_TNT: followed by the chunk's records as one zstd frame of the
 * decode/tnt.h stream, which decompresses to exactly @raw_len bytes: the
 * taken / not-taken bits ((@nbits + 7) / 8 bytes), @esc_len bytes of
 * records given whole, then the targets the code does not give.  The
 * records follow from these and the code at their addresses: @code_hash
 * hashes the bytes of every instruction block the encoder went through,
 * so that other code (a file changed since) is refused, never decoded
 * into other records.  Bounded as RECORDS_COMPACT: @count
 * 1..BTS_RECORDS_PER_CHUNK, @raw_len at most BTS_TNT_REC_MAX bytes and
 * @nbits at most BTS_TNT_WALK_BITS a record; a chunk decodes on its own.
 */
struct bts_chunk_records_tnt {
	int32_t pid;
	int32_t tid;
	uint32_t count;
	uint32_t raw_len;	/* bytes of the stream, decompressed */
	uint32_t codec;		/* BTS_CODEC_TNT_ZSTD */
	uint32_t nbits;		/* branch bits */
	uint32_t esc_len;	/* bytes of the whole records, after the bits */
	uint32_t reserved;
	uint64_t code_hash;	/* of the code blocks walked, in order */
};
#define BTS_LAYOUT_RECORDS_TNT	"444444448"

#define BTS_CODEC_TNT_ZSTD	2
/* Bits one record's walk may take; a longer walk is given whole. */
#define BTS_TNT_WALK_BITS	256
/* Stream bytes a record may take: its bits, a record whole, a target. */
#define BTS_TNT_REC_MAX		(BTS_TNT_WALK_BITS / 8 + 4 + 30 + 10)

/*
 * PEBS: @count PEBS records of thread @tid, @record_size bytes each, as
 * the CPU stored them in kmod-pebs's second region (format @format, the
 * module's IA32_PERF_CAPABILITIES.PEBS_FORMAT), oldest first; before
 * them @lost samples were overwritten unread.  The thread sampled @event
 * (IA32_PERFEVTSEL's event select and unit mask) once every @period
 * events.  Written with BTS_CHUNK_OPTIONAL: a reader that skips it reads
 * the branch records all the same.
 */
struct bts_chunk_pebs {
	int32_t pid;
	int32_t tid;
	uint32_t format;	/* 0-5 */
	uint32_t record_size;	/* of the format; an adaptive record's own */
	uint32_t count;		/* 0..BTS_PEBS_PER_CHUNK */
	uint32_t reserved;
	uint64_t event;		/* bits 0-7 != 0, bits 8-15; no other bit */
	uint64_t period;	/* 1..PTBTS_PEBS_PERIOD_MAX */
	uint64_t lost;		/* count + lost > 0 */
};
#define BTS_LAYOUT_PEBS	"444444888"

#define BTS_PEBS_PER_CHUNK	4096
/* Adaptive PEBS with every group and 32 LBR entries. */
#define BTS_PEBS_RECORD_MAX	1232

/*
 * INDEX: points where decoding thread @tid's history may start, written
 * after its last records and before END: @npoints struct
 * bts_chunk_index_point, then their return sites (u64, each point's
 * @nsites in turn, innermost first).  The first point is the history's
 * start.  @records and @entries are the thread's totals.  Written with
 * BTS_CHUNK_OPTIONAL: a reader that skips it decodes from the start.
 */
struct bts_chunk_index {
	int32_t pid;
	int32_t tid;
	uint32_t npoints;	/* 1..BTS_INDEX_POINTS_MAX */
	uint32_t stack_max;	/* 1..BTS_INDEX_STACK_MAX: sites kept a point */
	uint64_t interval;	/* > 0: records between points, as built */
	uint64_t records;	/* the thread's records */
	uint64_t entries;	/* the entries of its history */
};
#define BTS_LAYOUT_INDEX	"4444888"

/* The decoder's state after @record records, as decode.c keeps it. */
struct bts_chunk_index_point {
	uint64_t record;	/* increasing; the first 0 */
	uint64_t entry;		/* entries before it, non-decreasing */
	uint64_t prev_to;	/* where the next block starts; 0: unknown */
	int64_t depth;		/* frames entered minus left (bts.h) */
	uint32_t flags;		/* BTS_IF_RESYNC | BTS_IF_SIGNAL: the next entry's */
	uint32_t nsites;	/* <= stack_max */
};
#define BTS_LAYOUT_INDEX_POINT	"888844"

#define BTS_INDEX_STACK_MAX	4096
/* A chunk's length is 32 bits: a bound that keeps the points inside it. */
#define BTS_INDEX_POINTS_MAX	(1u << 24)

_Static_assert(sizeof(struct bts_chunk_index) == 40, "index layout");
_Static_assert(sizeof(struct bts_chunk_index_point) == 40, "index point layout");
_Static_assert(sizeof(struct bts_file_header) == 16, "header layout");
_Static_assert(sizeof(struct bts_chunk_header) == 8, "chunk header layout");
_Static_assert(sizeof(struct bts_chunk_session) == 16, "session layout");
_Static_assert(sizeof(struct bts_chunk_process) == 16, "process layout");
_Static_assert(sizeof(struct bts_chunk_thread) == 8, "thread layout");
_Static_assert(sizeof(struct bts_chunk_map) == 40, "map layout");
_Static_assert(sizeof(struct bts_chunk_records) == 16, "records layout");
_Static_assert(sizeof(struct bts_chunk_exit) == 16, "exit layout");
_Static_assert(sizeof(struct bts_chunk_end) == 16, "end layout");
_Static_assert(sizeof(struct bts_chunk_code) == 16, "code layout");
_Static_assert(sizeof(struct bts_chunk_records_compact) == 24, "compact layout");
_Static_assert(sizeof(struct bts_chunk_pebs) == 48, "pebs layout");
_Static_assert(sizeof(struct bts_chunk_records_tnt) == 40, "tnt layout");
_Static_assert(sizeof(struct ptbts_record) == 24, "record layout");

static inline size_t bts_file_pad(size_t len)
{
	return (BTS_FILE_ALIGN - len % BTS_FILE_ALIGN) % BTS_FILE_ALIGN;
}

/*
 * What is wrong with a record, or NULL when it is well-formed (record.c);
 * *kind gets its kind.  The reader and writer name the record's place.
 */
const char *bts_record_problem(const struct ptbts_record *rec, int *kind);

/* Layouts (below) of structs defined elsewhere, as the file holds them. */
#define BTS_LAYOUT_RECORD	"888"	/* struct ptbts_record */
#define BTS_LAYOUT_FRAME	"88844"	/* struct bts_frame, a crash's stack */

/*
 * Converts the leading fields of a chunk's fixed part at @c from the
 * file's order to the host's, as @layout names them, one character a
 * field: '4' a 32-bit integer, '8' a 64-bit one, 'x' four bytes kept as
 * they are.  Bytes past the layout (arrays: siginfo, registers) stay raw.
 */
void bts_chunk_to_host(void *c, const char *layout);

/*
 * @size bytes of a chunk's fixed part from @src (any alignment), in host
 * order.  Inline, a plain copy on little-endian hosts: the readers load
 * every record through it.
 */
static inline void bts_chunk_load(void *dst, const void *src, size_t size,
				  const char *layout)
{
	memcpy(dst, src, size);
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		bts_chunk_to_host(dst, layout);
}
/* The bytes @layout covers, so that a test can hold it to its struct. */
size_t bts_chunk_layout_size(const char *layout);

/*
 * ABI: the image of @pid, as of its PROCESS or latest EXEC
 * chunk, is @bits-bit code (32: i386, decoded in 32-bit mode; 64).  A
 * process without one is 64-bit; a reader that skips it decodes as 64-bit.
 */
struct bts_chunk_abi {
	int32_t pid;
	uint32_t bits;		/* 32 or 64 */
};
#define BTS_LAYOUT_ABI	"44"

#endif /* BTS_TRACE_FORMAT_H */
