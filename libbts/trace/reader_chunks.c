// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The checks of each chunk the reader knows (trace_format.h), and what a
 * chunk adds to the model (reader_model.c) once every field of it passed,
 * so that no later call can meet malformed data or read out of bounds.
 * Compact records, crashes and PEBS samples have their own files
 * (reader_compact.c, reader_crash.c, reader_pebs.c).
 */

#include "trace/reader.h"

/* A string of @len bytes and its NUL, with no NUL inside. */
static bool good_string(const uint8_t *s, uint32_t len)
{
	return s[len] == 0 && !memchr(s, 0, len);
}

static int rd_session(struct bts_trace *t, const uint8_t *p, size_t off)
{
	struct bts_chunk_session c;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_SESSION); /* size: readers[] */
	if (t->session)
		return bts_reader_bad(off, "a second session chunk");
	if (c.source >= PTBTS_SOURCE_MAX || c.mode > PTBTS_MODE_BLOCK)
		return bts_reader_bad(off, "session chunk names an unknown source or mode");
	t->session = true;
	t->info.source = c.source;
	t->info.mode = c.mode;
	t->info.buffer_size = c.buffer_size;
	return 0;
}

static int rd_process(struct bts_trace *t, const uint8_t *p, size_t plen,
		      size_t off)
{
	struct bts_chunk_process c;
	const char *exe;

	if (plen < sizeof(c) + 1)
		return bts_reader_bad(off, "process chunk is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_PROCESS);
	if (c.exe_len != plen - sizeof(c) - 1)
		return bts_reader_bad(off, "process chunk: the path length does not match the chunk");
	if (c.reserved || c.pid <= 0 || c.ppid < 0)
		return bts_reader_bad(off, "process chunk: bad pid or reserved field");
	if (!good_string(p + sizeof(c), c.exe_len))
		return bts_reader_bad(off, "process chunk: malformed path");
	if (bts_reader_process(t, c.pid))
		return bts_reader_bad(off, "process appears twice");
	exe = bts_reader_keep(t, p + sizeof(c), c.exe_len + 1);
	if (!exe)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return bts_reader_add_process(t, c.pid, c.ppid, exe);
}

static int rd_thread(struct bts_trace *t, const uint8_t *p, size_t off)
{
	struct bts_chunk_thread c;
	struct trace_process *proc;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_THREAD); /* size: readers[] */
	proc = bts_reader_process(t, c.pid);
	if (!proc)
		return bts_reader_bad(off, "thread of a process that has not appeared");
	if (c.tid <= 0 || bts_reader_thread(t, c.tid))
		return bts_reader_bad(off, "bad or repeated thread id");
	return bts_reader_add_thread(t, proc, c.tid);
}

static int rd_map(struct bts_trace *t, const uint8_t *p, size_t plen,
		  size_t off)
{
	struct bts_chunk_map c;
	struct trace_process *proc;
	struct bts_map m;

	if (plen < sizeof(c) + 1)
		return bts_reader_bad(off, "map chunk is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_MAP);
	/* 64-bit sums: the two lengths cannot wrap. */
	if ((uint64_t)sizeof(c) + c.build_id_len + c.path_len + 1 != plen)
		return bts_reader_bad(off, "map chunk: the build-id and path lengths do not match the chunk");
	m = (struct bts_map){
		.start = c.start,
		.end = c.end,
		.offset = c.offset,
		.prot = c.prot,
		.build_id_len = c.build_id_len,
		.path = (char *)p + sizeof(c) + c.build_id_len,
	};
	if (m.start >= m.end || (m.prot & ~7u) || c.build_id_len > BTS_BUILD_ID_MAX)
		return bts_reader_bad(off, "map chunk: bad range, protection or build-id length");
	if (!good_string((const uint8_t *)m.path, c.path_len))
		return bts_reader_bad(off, "map chunk: malformed path");
	proc = bts_reader_process(t, c.pid);
	if (!proc)
		return bts_reader_bad(off, "map of a process that has not appeared");
	memcpy(m.build_id, p + sizeof(c), c.build_id_len);
	m.path = (char *)bts_reader_keep(t, m.path, c.path_len + 1);
	if (!m.path)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return bts_reader_add_map(proc, &m);
}

static int rd_code(struct bts_trace *t, const uint8_t *p, size_t plen,
		   size_t off)
{
	struct bts_chunk_code c;
	struct trace_process *proc;
	struct bts_code code;

	if (plen <= sizeof(c))
		return bts_reader_bad(off, "code chunk is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_CODE);
	if (c.length != plen - sizeof(c))
		return bts_reader_bad(off, "code chunk: the length does not match the chunk");
	if (c.address + c.length < c.address)
		return bts_reader_bad(off, "code chunk: the range wraps around");
	proc = bts_reader_process(t, c.pid);
	if (!proc)
		return bts_reader_bad(off, "code of a process that has not appeared");
	code = (struct bts_code){ c.address, c.length, NULL };
	code.bytes = bts_reader_keep(t, p + sizeof(c), c.length);
	if (!code.bytes)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return bts_reader_add_code(proc, &code);
}

/* Each of @count records at @p (offset @off of the file) is well formed. */
static int check_records(struct trace_thread *th, const uint8_t *p,
			 uint32_t count, size_t off)
{
	for (uint32_t i = 0; i < count; i++) {
		size_t at = (size_t)i * sizeof(struct ptbts_record);
		struct ptbts_record r;
		const char *why;
		int kind;

		bts_chunk_load(&r, p + at, sizeof(r), BTS_LAYOUT_RECORD);
		/* Most are branches: no other flag of the software half, a @from. */
		if (!(r.flags & (PTBTS_FLAG_SW_RESERVED | PTBTS_KIND_MASK)) && r.from)
			continue;
		why = bts_record_problem(&r, &kind);
		if (why)
			return bts_fail(BTS_E_FORMAT, "offset %zu: record flags 0x%llx: %s",
					off + at, (unsigned long long)r.flags, why);
		if (kind == PTBTS_KIND_GAP && !r.from &&
		    r.to == PTBTS_GAP_CODE_CHANGED)
			th->may_change = true;
	}
	return 0;
}

static int rd_records(struct bts_trace *t, const uint8_t *p, size_t plen,
		      size_t off)
{
	size_t roff = off + sizeof(struct bts_chunk_header) +
		      sizeof(struct bts_chunk_records);
	uint8_t raw[sizeof(struct bts_chunk_records)];
	struct bts_chunk_records c;
	struct trace_thread *th;
	const uint8_t *recs;
	size_t len;
	int err;

	if (plen < sizeof(c))
		return bts_reader_bad(off, "records chunk is too short");
	/* Read, not mapped: a raw chunk's pages are never touched. */
	err = bts_reader_read(t, raw, sizeof(raw), p - t->buf);
	if (err)
		return err;
	bts_chunk_load(&c, raw, sizeof(c), BTS_LAYOUT_RECORDS);
	if ((plen - sizeof(c)) / sizeof(struct ptbts_record) != c.count ||
	    (plen - sizeof(c)) % sizeof(struct ptbts_record) || c.reserved)
		return bts_reader_bad(off, "records chunk: the count does not match the chunk");
	th = bts_reader_thread_of(t, c.pid, c.tid);
	if (!th)
		return bts_reader_bad(off, "records of a thread that has not appeared");
	len = (size_t)c.count * sizeof(struct ptbts_record);
	err = bts_reader_raw_load(t, roff, c.count, &recs);
	if (!err)
		err = check_records(th, recs, c.count, roff);
	if (err)
		return err;
	t->records += c.count;
	if (bts_reader_add_batch(th, roff, c.count))
		return -BTS_E_NOMEM;
	/* Read again later, from a file that may have changed (reader_guard.c). */
	th->batches[th->nbatches - 1].sum = bts_reader_raw_sum(recs, len);
	if (!bts_reader_raw_buffered(t, c.count))
		bts_reader_drop(t, roff, len);
	return 0;
}

static int rd_exit_thread(struct bts_trace *t, const struct bts_chunk_exit *c,
			  size_t off)
{
	struct trace_thread *th = bts_reader_thread_of(t, c->pid, c->tid);

	if (!th)
		return bts_reader_bad(off, "exit of a thread that has not appeared");
	if (th->info.exited)
		return bts_reader_bad(off, "thread exits twice");
	th->info.exited = true;
	th->info.status = c->status;
	return 0;
}

static int rd_exit(struct bts_trace *t, const uint8_t *p, size_t off)
{
	struct bts_chunk_exit c;
	struct trace_process *proc;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_EXIT); /* size: readers[] */
	if (c.reserved || c.tid < 0)
		return bts_reader_bad(off, "exit chunk: bad thread or reserved field");
	if (c.tid)
		return rd_exit_thread(t, &c, off);
	proc = bts_reader_process(t, c.pid);
	if (!proc)
		return bts_reader_bad(off, "exit of a process that has not appeared");
	if (proc->info.exited)
		return bts_reader_bad(off, "process exits twice");
	proc->info.exited = true;
	proc->info.status = c.status;
	return 0;
}

static int rd_end(struct bts_trace *t, const uint8_t *p, size_t off)
{
	struct bts_chunk_end c;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_END); /* size: readers[] */
	if (c.chunks != t->chunks || c.records != t->records)
		return bts_fail(BTS_E_FORMAT,
				"offset %zu: the end chunk counts %llu chunks and %llu records, the file holds %llu and %llu",
				off, (unsigned long long)c.chunks,
				(unsigned long long)c.records,
				(unsigned long long)t->chunks,
				(unsigned long long)t->records);
	return 0;
}

/* An exec: a new image of the process, which the MAP and CODE chunks after it fill. */
static int rd_exec(struct bts_trace *t, const uint8_t *p, size_t plen,
		   size_t off)
{
	struct trace_process *proc;
	struct bts_chunk_exec c;
	const char *exe;

	if (plen < sizeof(c) + 1)
		return bts_reader_bad(off, "exec chunk is too short");
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_EXEC);
	if (c.exe_len != plen - sizeof(c) - 1 || c.reserved)
		return bts_reader_bad(off, "exec chunk: the path length does not match the chunk");
	if (!good_string(p + sizeof(c), c.exe_len))
		return bts_reader_bad(off, "exec chunk: malformed path");
	proc = bts_reader_process(t, c.pid);
	if (!proc || c.tid <= 0)
		return bts_reader_bad(off, "exec of a process that has not appeared");
	exe = bts_reader_keep(t, p + sizeof(c), c.exe_len + 1);
	if (!exe || bts_reader_add_image(proc, exe, c.tid, c.entry))
		return bts_fail(BTS_E_NOMEM, "trace index");
	return 0;
}

static int rd_abi(struct bts_trace *t, const uint8_t *p, size_t off)
{
	struct trace_process *proc;
	struct bts_chunk_abi c;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_ABI); /* size: readers[] */
	proc = bts_reader_process(t, c.pid);
	if (!proc)
		return bts_reader_bad(off, "abi of a process that has not appeared");
	if (c.bits != 32 && c.bits != 64)
		return bts_fail(BTS_E_FORMAT, "offset %zu: abi chunk: %u-bit code",
				off, c.bits);
	proc->abi_bits = c.bits;
	return 0;
}

/* Where a thread's history starts: before any of its records. */
static int rd_start(struct bts_trace *t, const uint8_t *p, size_t off)
{
	struct bts_chunk_start c;
	struct trace_thread *th;

	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_START); /* size: readers[] */
	th = bts_reader_thread_of(t, c.pid, c.tid);
	if (!th)
		return bts_reader_bad(off, "start of a thread that has not appeared");
	if (!c.pc || th->info.nrecords)
		return bts_reader_bad(off, "start chunk: pc 0 or after the thread's records");
	th->info.start = c.pc;
	return 0;
}

typedef int (*rd_fn)(struct bts_trace *, const uint8_t *, size_t, size_t);
typedef int (*rd_fixed_fn)(struct bts_trace *, const uint8_t *, size_t);

/*
 * The reader of each chunk type: @fn, or for a chunk of a fixed size,
 * @fixed with that size and the chunk's name, for the one check all of
 * those need.
 */
static const struct {
	rd_fn fn;
	rd_fixed_fn fixed;
	size_t size;
	const char *name;
} readers[] = {
#define FIXED(fn, type, name) \
	{ NULL, fn, sizeof(struct bts_chunk_##type), name }
	[BTS_CHUNK_SESSION]	= FIXED(rd_session, session, "session"),
	[BTS_CHUNK_PROCESS]	= { rd_process },
	[BTS_CHUNK_THREAD]	= FIXED(rd_thread, thread, "thread"),
	[BTS_CHUNK_MAP]		= { rd_map },
	[BTS_CHUNK_RECORDS]	= { rd_records },
	[BTS_CHUNK_EXIT]	= FIXED(rd_exit, exit, "exit"),
	[BTS_CHUNK_END]		= FIXED(rd_end, end, "end"),
	[BTS_CHUNK_CODE]	= { rd_code },
	[BTS_CHUNK_RECORDS_COMPACT] = { bts_read_compact_chunk },
	[BTS_CHUNK_EXEC]	= { rd_exec },
	[BTS_CHUNK_CRASH]	= { bts_read_crash_chunk },
	[BTS_CHUNK_ABI]		= FIXED(rd_abi, abi, "abi"),
	[BTS_CHUNK_START]	= FIXED(rd_start, start, "start"),
	[BTS_CHUNK_PEBS]	= { bts_read_pebs_chunk },
	[BTS_CHUNK_INDEX]	= { bts_read_index_chunk },
	[BTS_CHUNK_RECORDS_TNT]	= { bts_read_tnt_chunk },
#undef FIXED
};

int bts_read_chunk(struct bts_trace *t, uint32_t type, size_t off, size_t plen)
{
	uint32_t n = BTS_CHUNK_TYPE(type);
	const uint8_t *p = t->buf + off + sizeof(struct bts_chunk_header);

	if (n < ARRAY_SIZE(readers) && readers[n].fn)
		return readers[n].fn(t, p, plen, off);
	if (n < ARRAY_SIZE(readers) && readers[n].fixed) {
		if (plen != readers[n].size)
			return bts_fail(BTS_E_FORMAT,
					"offset %zu: %s chunk has the wrong size",
					off, readers[n].name);
		return readers[n].fixed(t, p, off);
	}
	if (n >= BTS_CHUNK_TYPE_LIMIT)
		return bts_fail(BTS_E_FORMAT,
				"offset %zu: 0x%x is no chunk type: the file is damaged",
				off, type);
	if (type & BTS_CHUNK_OPTIONAL)
		return 0;
	return bts_fail(BTS_E_VERSION,
			"offset %zu: chunk type %u is unknown to this libbts and not optional (the file needs a newer libbts)",
			off, n);
}

