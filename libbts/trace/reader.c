// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Opening a trace file: one pass over the bytes checks the header and the
 * framing of every chunk, and hands each chunk to its reader
 * (reader_chunks.c), which checks its fields and builds the model
 * (reader.h).  Any byte sequence gives either a trace or one clear error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/reader.h"

#define TRUNCATED_WHY "(an interrupted recording?)"

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
	bts_chunk_load(&h, buf, sizeof(h), BTS_LAYOUT_FILE_HEADER);
	if (h.version != BTS_FILE_VERSION)
		return bts_fail(BTS_E_VERSION,
				"trace file version %u; this libbts reads version %u",
				h.version, BTS_FILE_VERSION);
	if (h.header_size < sizeof(h) || h.header_size % BTS_FILE_ALIGN ||
	    h.header_size > BTS_FILE_HEADER_MAX)
		return bts_reader_bad(12, "bad header size");
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
	bts_chunk_load(&h, t->buf + t->len - tail, sizeof(h),
		       BTS_LAYOUT_CHUNK_HEADER);
	return h.type == BTS_CHUNK_END && h.len == sizeof(struct bts_chunk_end);
}

static int rd_all(struct bts_trace *t)
{
	struct bts_chunk_header h;
	size_t off, plen, end;
	int err = rd_header(t->buf, t->len);

	if (err < 0)
		return err;
	for (off = err; off < t->len; off = end + bts_file_pad(end)) {
		uint8_t raw[sizeof(h)];

		if (t->len - off < sizeof(h))
			break;
		/* Read, not mapped: a raw chunk's pages are never touched. */
		err = bts_reader_read(t, raw, sizeof(raw), off);
		if (err)
			return err;
		bts_chunk_load(&h, raw, sizeof(h), BTS_LAYOUT_CHUNK_HEADER);
		plen = h.len;
		end = off + sizeof(h) + plen;
		if (end > t->len || bts_file_pad(end) > t->len - end)
			break;
		for (size_t i = end; i < end + bts_file_pad(end); i++)
			if (t->buf[i])
				return bts_reader_bad(i, "padding is not zero");
		err = bts_read_chunk(t, h.type, off, plen);
		if (err)
			return err;
		if (BTS_CHUNK_TYPE(h.type) == BTS_CHUNK_END) {
			end += bts_file_pad(end);
			if (end != t->len)
				return bts_reader_bad(end, "data after the end chunk");
			return bts_reader_finish(t);
		}
		t->chunks++;
	}
	if (t->incomplete_ok) {
		/* What a killed recorder left: its whole chunks, marked so. */
		t->info.incomplete = true;
		t->info.whole_len = off;
		return bts_reader_finish(t);
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

static int trace_parse(const void *buf, size_t len, void *mapped, int fd,
		       bool incomplete_ok, struct bts_trace **out)
{
	struct bts_trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return bts_fail(BTS_E_NOMEM, "trace");
	t->buf = buf;
	t->len = len;
	/*
	 * Set before the pass: it reads raw records from the file
	 * (reader_raw.c) and may drop pages it has read (bts_reader_drop).
	 */
	t->fd = fd;
	t->mapped = mapped;
	t->incomplete_ok = incomplete_ok;
	t->info.version = BTS_FILE_VERSION;
	err = rd_all(t);
	if (!err)
		err = bts_reader_check_tnt(t);
	if (err) {
		bts_reader_free(t);
		bts_reader_keep_free(t);
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

int bts_trace_new_mem(const void *buf, size_t len, struct bts_trace **out)
{
	if ((!buf && len) || !out)
		return bts_fail(BTS_E_INVAL, "no trace");
	return trace_parse(buf, len, NULL, -1, false, out);
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
	/* Kept to read records and to notice the file shrinking (reader_guard.c). */
	err = trace_parse(mem, len, mem, fd, incomplete_ok, out);
	if (err) {
		munmap(mem, len);
		close(fd);
	}
	return err;
}

int bts_trace_new(const char *path, struct bts_trace **out)
{
	return trace_open(path, false, out);
}

int bts_trace_new_incomplete(const char *path, struct bts_trace **out)
{
	return trace_open(path, true, out);
}

void bts_trace_free(struct bts_trace *t)
{
	if (!t)
		return;
	if (t->mapped)
		munmap(t->mapped, t->len);
	if (t->fd >= 0)
		close(t->fd);
	bts_reader_free(t);
	bts_reader_keep_free(t);
	free(t);
}
