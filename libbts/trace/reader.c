// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading a trace file: one pass over the bytes checks every field of every
 * chunk (trace_format.h) and builds the index (trace_index.c), so that no
 * later call can meet malformed data or read out of bounds.  Any byte
 * sequence gives either a trace or one clear error.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/abi32.h"
#include "trace/writer.h"
#include "trace/reader.h"
#include "trace/reader_images.h"

#define TRUNCATED_WHY "(an interrupted recording?)"

static int bad(size_t off, const char *what)
{
	return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, what);
}

/* A string of @len bytes and its NUL, with no NUL inside. */
static bool good_string(const uint8_t *s, uint32_t len)
{
	return s[len] == 0 && !memchr(s, 0, len);
}

static int rd_session(struct bts_trace *t, const uint8_t *p, size_t plen,
		      size_t off)
{
	struct bts_chunk_session c;

	if (plen != sizeof(c))
		return bad(off, "session chunk has the wrong size");
	if (t->session)
		return bad(off, "a second session chunk");
	memcpy(&c, p, sizeof(c));
	c.source = le32toh(c.source);
	c.mode = le32toh(c.mode);
	if (c.source >= PTBTS_SOURCE_MAX || c.mode > PTBTS_MODE_BLOCK)
		return bad(off, "session chunk names an unknown source or mode");
	t->session = true;
	t->info.source = c.source;
	t->info.mode = c.mode;
	t->info.buffer_size = le64toh(c.buffer_size);
	return 0;
}

static int rd_process(struct bts_trace *t, const uint8_t *p, size_t plen,
		      size_t off)
{
	struct bts_chunk_process c;
	const char *exe;

	if (plen < sizeof(c) + 1)
		return bad(off, "process chunk is too short");
	memcpy(&c, p, sizeof(c));
	c.pid = le32toh(c.pid);
	c.ppid = le32toh(c.ppid);
	c.exe_len = le32toh(c.exe_len);
	if (c.exe_len != plen - sizeof(c) - 1)
		return bad(off, "process chunk: the path length does not match the chunk");
	if (c.reserved || c.pid <= 0 || c.ppid < 0)
		return bad(off, "process chunk: bad pid or reserved field");
	if (!good_string(p + sizeof(c), c.exe_len))
		return bad(off, "process chunk: malformed path");
	if (bts_tindex_process(t, c.pid) >= 0)
		return bad(off, "process appears twice");
	exe = bts_trace_keep(t, p + sizeof(c), c.exe_len + 1);
	if (!exe)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return bts_tindex_add_process(t, c.pid, c.ppid, exe);
}

static int rd_thread(struct bts_trace *t, const uint8_t *p, size_t plen,
		     size_t off)
{
	struct bts_chunk_thread c;
	long proc;

	if (plen != sizeof(c))
		return bad(off, "thread chunk has the wrong size");
	memcpy(&c, p, sizeof(c));
	c.pid = le32toh(c.pid);
	c.tid = le32toh(c.tid);
	proc = bts_tindex_process(t, c.pid);
	if (proc < 0)
		return bad(off, "thread of a process that has not appeared");
	if (c.tid <= 0 || bts_tindex_thread(t, c.tid) >= 0)
		return bad(off, "bad or repeated thread id");
	return bts_tindex_add_thread(t, proc, c.tid);
}

static int rd_map(struct bts_trace *t, const uint8_t *p, size_t plen,
		  size_t off)
{
	struct bts_chunk_map c;
	struct bts_map m;
	long proc;

	if (plen < sizeof(c) + 1)
		return bad(off, "map chunk is too short");
	memcpy(&c, p, sizeof(c));
	c.build_id_len = le32toh(c.build_id_len);
	c.path_len = le32toh(c.path_len);
	/* 64-bit sums: the two lengths cannot wrap. */
	if ((uint64_t)sizeof(c) + c.build_id_len + c.path_len + 1 != plen)
		return bad(off, "map chunk: the build-id and path lengths do not match the chunk");
	m = (struct bts_map){
		.start = le64toh(c.start),
		.end = le64toh(c.end),
		.offset = le64toh(c.offset),
		.prot = le32toh(c.prot),
		.build_id_len = c.build_id_len,
		.path = (char *)p + sizeof(c) + c.build_id_len,
	};
	if (m.start >= m.end || (m.prot & ~7u) || c.build_id_len > BTS_BUILD_ID_MAX)
		return bad(off, "map chunk: bad range, protection or build-id length");
	if (!good_string((const uint8_t *)m.path, c.path_len))
		return bad(off, "map chunk: malformed path");
	proc = bts_tindex_process(t, (int32_t)le32toh(c.pid));
	if (proc < 0)
		return bad(off, "map of a process that has not appeared");
	memcpy(m.build_id, p + sizeof(c), c.build_id_len);
	m.path = (char *)bts_trace_keep(t, m.path, c.path_len + 1);
	if (!m.path)
		return bts_fail(BTS_E_NOMEM, "trace index");
	/* The union (the decoder's view), then the current image (trace_procs.c). */
	if (bts_tindex_add_map(t, proc, &m))
		return -BTS_E_NOMEM;
	return bts_tprocs_map(t, proc, &m);
}

static int rd_code(struct bts_trace *t, const uint8_t *p, size_t plen,
		   size_t off)
{
	struct bts_chunk_code c;
	const uint8_t *bytes;
	long proc;

	if (plen <= sizeof(c))
		return bad(off, "code chunk is too short");
	memcpy(&c, p, sizeof(c));
	c.length = le32toh(c.length);
	c.address = le64toh(c.address);
	if (c.length != plen - sizeof(c))
		return bad(off, "code chunk: the length does not match the chunk");
	if (c.address + c.length < c.address)
		return bad(off, "code chunk: the range wraps around");
	proc = bts_tindex_process(t, (int32_t)le32toh(c.pid));
	if (proc < 0)
		return bad(off, "code of a process that has not appeared");
	bytes = bts_trace_keep(t, p + sizeof(c), c.length);
	if (!bytes || bts_tindex_add_code(t, proc, c.address, bytes, c.length))
		return bts_fail(BTS_E_NOMEM, "trace index");
	return bts_tprocs_code(t, proc, c.address, bytes, c.length);
}

static int rd_records(struct bts_trace *t, const uint8_t *p, size_t plen,
		      size_t off)
{
	size_t roff = off + sizeof(struct bts_chunk_header) +
		      sizeof(struct bts_chunk_records);
	struct bts_chunk_records c;
	long th;

	if (plen < sizeof(c))
		return bad(off, "records chunk is too short");
	memcpy(&c, p, sizeof(c));
	c.count = le32toh(c.count);
	if ((plen - sizeof(c)) / sizeof(struct ptbts_record) != c.count ||
	    (plen - sizeof(c)) % sizeof(struct ptbts_record) || c.reserved)
		return bad(off, "records chunk: the count does not match the chunk");
	th = bts_tindex_thread(t, (int32_t)le32toh(c.tid));
	if (th < 0 || t->threads[th].info.pid != (int32_t)le32toh(c.pid))
		return bad(off, "records of a thread that has not appeared");
	for (uint32_t i = 0; i < c.count; i++) {
		size_t at = roff + (size_t)i * sizeof(struct ptbts_record);
		struct ptbts_record r;
		const char *why;
		int kind;

		memcpy(&r, t->buf + at, sizeof(r));
		r.from = le64toh(r.from);
		r.flags = le64toh(r.flags);
		why = bts_record_problem(&r, &kind);
		if (why)
			return bts_fail(BTS_E_FORMAT, "offset %zu: record flags 0x%llx: %s",
					at, (unsigned long long)r.flags, why);
	}
	t->records += c.count;
	if (bts_tindex_add_batch(t, th, roff, c.count))
		return -BTS_E_NOMEM;
	/* Read again later, from a file that may have changed (trace_guard.c). */
	t->threads[th].batches[t->threads[th].nbatches - 1].sum =
		bts_raw_sum(t->buf + roff, (size_t)c.count * sizeof(struct ptbts_record));
	bts_trace_drop(t, roff, (size_t)c.count * sizeof(struct ptbts_record));
	return 0;
}

static int rd_exit_thread(struct bts_trace *t, const struct bts_chunk_exit *c,
			  size_t off)
{
	long th = bts_tindex_thread(t, c->tid);

	if (th < 0 || t->threads[th].info.pid != c->pid)
		return bad(off, "exit of a thread that has not appeared");
	if (t->threads[th].info.exited)
		return bad(off, "thread exits twice");
	t->threads[th].info.exited = true;
	t->threads[th].info.status = c->status;
	return 0;
}

static int rd_exit(struct bts_trace *t, const uint8_t *p, size_t plen,
		   size_t off)
{
	struct bts_chunk_exit c;
	long proc;

	if (plen != sizeof(c))
		return bad(off, "exit chunk has the wrong size");
	memcpy(&c, p, sizeof(c));
	c.pid = le32toh(c.pid);
	c.tid = le32toh(c.tid);
	c.status = le32toh(c.status);
	if (c.reserved || c.tid < 0)
		return bad(off, "exit chunk: bad thread or reserved field");
	if (c.tid)
		return rd_exit_thread(t, &c, off);
	proc = bts_tindex_process(t, c.pid);
	if (proc < 0)
		return bad(off, "exit of a process that has not appeared");
	if (t->procs[proc].info.exited)
		return bad(off, "process exits twice");
	t->procs[proc].info.exited = true;
	t->procs[proc].info.status = c.status;
	return 0;
}

static int rd_end(struct bts_trace *t, const uint8_t *p, size_t plen,
		  size_t off)
{
	struct bts_chunk_end c;

	if (plen != sizeof(c))
		return bad(off, "end chunk has the wrong size");
	memcpy(&c, p, sizeof(c));
	if (le64toh(c.chunks) != t->chunks || le64toh(c.records) != t->records)
		return bts_fail(BTS_E_FORMAT,
				"offset %zu: the end chunk counts %llu chunks and %llu records, the file holds %llu and %llu",
				off, (unsigned long long)le64toh(c.chunks),
				(unsigned long long)le64toh(c.records),
				(unsigned long long)t->chunks,
				(unsigned long long)t->records);
	return 0;
}

typedef int (*rd_fn)(struct bts_trace *, const uint8_t *, size_t, size_t);

static const rd_fn readers[] = {
	[BTS_CHUNK_SESSION]	= rd_session,
	[BTS_CHUNK_PROCESS]	= rd_process,
	[BTS_CHUNK_THREAD]	= rd_thread,
	[BTS_CHUNK_MAP]		= rd_map,
	[BTS_CHUNK_RECORDS]	= rd_records,
	[BTS_CHUNK_EXIT]	= rd_exit,
	[BTS_CHUNK_END]		= rd_end,
	[BTS_CHUNK_CODE]	= rd_code,
	[BTS_CHUNK_RECORDS_COMPACT] = bts_rd_records_compact,	/* issue 5 */
	[BTS_CHUNK_EXEC]	= bts_rd_exec,
	[BTS_CHUNK_CRASH]	= bts_rd_crash,
	[BTS_CHUNK_ABI]		= bts_rd_abi,		/* issue 9 */
	[BTS_CHUNK_START]	= bts_rd_start,
};

static int rd_chunk(struct bts_trace *t, uint32_t type, size_t off,
		    size_t plen)
{
	uint32_t n = BTS_CHUNK_TYPE(type);
	const uint8_t *p = t->buf + off + sizeof(struct bts_chunk_header);

	if (n < ARRAY_SIZE(readers) && readers[n])
		return readers[n](t, p, plen, off);
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

static int rd_header(const uint8_t *buf, size_t len)
{
	struct bts_file_header h;

	if (!len)
		return bts_fail(BTS_E_FORMAT, "empty file: not a trace file");
	if (memcmp(buf, BTS_FILE_MAGIC, len < BTS_FILE_MAGIC_LEN ? len : BTS_FILE_MAGIC_LEN))
		return bts_fail(BTS_E_FORMAT, "not a trace file");
	if (len < sizeof(h))
		return bts_fail(BTS_E_TRUNCATED, "truncated: the file ends inside its header "
				TRUNCATED_WHY);
	memcpy(&h, buf, sizeof(h));
	h.version = le32toh(h.version);
	h.header_size = le32toh(h.header_size);
	if (h.version != BTS_FILE_VERSION)
		return bts_fail(BTS_E_VERSION,
				"trace file version %u; this libbts reads version %u",
				h.version, BTS_FILE_VERSION);
	if (h.header_size < sizeof(h) || h.header_size % BTS_FILE_ALIGN ||
	    h.header_size > BTS_FILE_HEADER_MAX)
		return bad(12, "bad header size");
	if (h.header_size > len)
		return bts_fail(BTS_E_TRUNCATED, "truncated: the file ends inside its header "
				TRUNCATED_WHY);
	return h.header_size;
}

/*
 * Whether the file ends with an end chunk: it was written whole, and a
 * chunk that runs past its end is damage, not an interrupted recording.
 */
static bool ends_whole(const struct bts_trace *t, size_t from)
{
	size_t tail = sizeof(struct bts_chunk_header) + sizeof(struct bts_chunk_end);
	struct bts_chunk_header h;

	if (t->len < from + tail)
		return false;
	memcpy(&h, t->buf + t->len - tail, sizeof(h));
	return le32toh(h.type) == BTS_CHUNK_END &&
	       le32toh(h.len) == sizeof(struct bts_chunk_end);
}

static int rd_all(struct bts_trace *t)
{
	struct bts_chunk_header h;
	size_t off, plen, end;
	int err = rd_header(t->buf, t->len);

	if (err < 0)
		return err;
	for (off = err; off < t->len; off = end + bts_file_pad(end)) {
		if (t->len - off < sizeof(h))
			break;
		memcpy(&h, t->buf + off, sizeof(h));
		h.type = le32toh(h.type);
		plen = le32toh(h.len);
		end = off + sizeof(h) + plen;
		if (end > t->len || bts_file_pad(end) > t->len - end)
			break;
		for (size_t i = end; i < end + bts_file_pad(end); i++)
			if (t->buf[i])
				return bad(i, "padding is not zero");
		err = rd_chunk(t, h.type, off, plen);
		if (err)
			return err;
		if (BTS_CHUNK_TYPE(h.type) == BTS_CHUNK_END) {
			end += bts_file_pad(end);
			if (end != t->len)
				return bad(end, "data after the end chunk");
			bts_tindex_finish(t);
			return bts_tprocs_finish(t);
		}
		t->chunks++;
	}
	if (t->incomplete_ok) {
		/* What a killed recorder left: its whole chunks, marked so. */
		t->info.incomplete = true;
		t->info.whole_len = off;
		bts_tindex_finish(t);
		return bts_tprocs_finish(t);
	}
	if (off < t->len && ends_whole(t, off))
		return bts_fail(BTS_E_FORMAT, "offset %zu: the chunk there runs past "
				"the end of the file: the file is damaged", off);
	if (off < t->len)
		return bts_fail(BTS_E_TRUNCATED, "truncated: the file ends inside the chunk at offset %zu "
				TRUNCATED_WHY, off);
	return bts_fail(BTS_E_TRUNCATED, "truncated: the file has no end chunk "
			TRUNCATED_WHY);
}

static int trace_parse(const void *buf, size_t len, void *mapped,
		       bool incomplete_ok, struct bts_trace **out)
{
	struct bts_trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return bts_fail(BTS_E_NOMEM, "trace");
	t->buf = buf;
	t->len = len;
	t->fd = -1;
	/* Set before the pass: it may drop pages it has read (bts_trace_drop). */
	t->mapped = mapped;
	t->incomplete_ok = incomplete_ok;
	t->info.version = BTS_FILE_VERSION;
	err = rd_all(t);
	if (err) {
		bts_tprocs_free(t);
		bts_tindex_free(t);
		bts_trace_keep_free(t);
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

int bts_trace_open_mem(const void *buf, size_t len, struct bts_trace **out)
{
	if ((!buf && len) || !out)
		return bts_fail(BTS_E_INVAL, "no trace");
	return trace_parse(buf, len, NULL, false, out);
}

/* Details name no path: callers print it, once. */
static int map_file(int fd, void **mem, size_t *len)
{
	struct stat st;

	if (fstat(fd, &st))
		return bts_fail_errno(BTS_E_IO, "cannot read");
	/* Nothing went wrong reading: it is the wrong kind of file. */
	if (S_ISDIR(st.st_mode))
		return bts_fail(BTS_E_FORMAT, "a directory");
	if (!S_ISREG(st.st_mode))
		return bts_fail(BTS_E_FORMAT, "not a regular file");
	if (!st.st_size)
		return bts_fail(BTS_E_FORMAT, "empty file: not a trace file");
	if ((uint64_t)st.st_size > SIZE_MAX)
		return bts_fail(BTS_E_IO, "cannot read: too large");
	*mem = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (*mem == MAP_FAILED)
		return bts_fail_errno(BTS_E_IO, "cannot map");
	*len = st.st_size;
	return 0;
}

static int trace_open(const char *path, bool incomplete_ok,
		      struct bts_trace **out)
{
	void *mem = NULL;
	size_t len = 0;
	int fd, err;

	if (!path || !out)
		return bts_fail(BTS_E_INVAL, "no trace file name");
	/* O_NONBLOCK: a FIFO must not hang us before we see what it is. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return bts_fail_errno(BTS_E_IO, "cannot open");
	err = map_file(fd, &mem, &len);
	if (err) {
		close(fd);
		return err;
	}
	err = trace_parse(mem, len, mem, incomplete_ok, out);
	if (err) {
		munmap(mem, len);
		close(fd);
		return err;
	}
	/* Kept to notice the file shrinking under the mapping (trace_guard.c). */
	(*out)->fd = fd;
	return 0;
}

int bts_trace_open(const char *path, struct bts_trace **out)
{
	return trace_open(path, false, out);
}

int bts_trace_open_incomplete(const char *path, struct bts_trace **out)
{
	return trace_open(path, true, out);
}

void bts_trace_close(struct bts_trace *t)
{
	if (!t)
		return;
	if (t->mapped)
		munmap(t->mapped, t->len);
	if (t->fd >= 0)
		close(t->fd);
	bts_tprocs_free(t);
	bts_tindex_free(t);
	bts_trace_keep_free(t);
	free(t);
}
