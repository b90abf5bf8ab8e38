// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Copying a trace file's chunks into a new one (rewrite.h).  The reader
 * checked them all when it opened the file; a file that changes since is
 * noticed, not copied half.
 */
#include "decode/rewrite.h"

uint64_t bts_rewrite_records(uint32_t type, const uint8_t *p, size_t len)
{
	struct bts_chunk_records c;

	type = BTS_CHUNK_TYPE(type);
	/* All three start with pid, tid and count. */
	if ((type != BTS_CHUNK_RECORDS && type != BTS_CHUNK_RECORDS_COMPACT &&
	     type != BTS_CHUNK_RECORDS_TNT) || len < sizeof(c))
		return 0;
	bts_chunk_load(&c, p, sizeof(c), BTS_LAYOUT_RECORDS);
	return c.count;
}

int bts_rewrite_chunks(const struct bts_trace *t, struct bts_writer *w,
		       bts_rewrite_fn fn, void *arg)
{
	size_t off = sizeof(struct bts_file_header);
	struct bts_chunk_header h;
	int ret = 0;

	while (ret >= 0 && off + sizeof(h) <= t->len) {
		const uint8_t *p = t->buf + off + sizeof(h);
		uint32_t type;
		size_t len;

		bts_chunk_load(&h, t->buf + off, sizeof(h),
			       BTS_LAYOUT_CHUNK_HEADER);
		type = h.type;
		len = h.len;
		if (len > t->len - off - sizeof(h))
			break;
		if (BTS_CHUNK_TYPE(type) == BTS_CHUNK_END)
			return bts_reader_check_size(t);
		ret = fn(arg, w, type, p, len);
		if (!ret)
			ret = bts_writer_copy_chunk(w, type, p, len,
						    bts_rewrite_records(type, p, len));
		bts_reader_drop(t, off, sizeof(h) + len);
		off += sizeof(h) + len + bts_file_pad(len);
	}
	return ret < 0 ? ret : bts_fail(BTS_E_IO, "the trace file changed while it was rewritten");
}

int bts_rewrite_header(const struct bts_trace *t)
{
	struct bts_file_header h;

	bts_chunk_load(&h, t->buf, sizeof(h), BTS_LAYOUT_FILE_HEADER);
	if (h.header_size != sizeof(h))
		return bts_fail(BTS_E_VERSION, "a header of %u bytes: written by a newer libbts, not rewritten by this one",
				h.header_size);
	return 0;
}
