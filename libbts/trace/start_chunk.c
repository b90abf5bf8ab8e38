// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Where a thread's history starts: the pc it was at when recording began
 * (a spawned program's entry point).  Records start at the first taken
 * branch; the instructions from this pc up to it ran too, and the decoder
 * shows them.  Written optional: a reader that skips it starts the history
 * at the first branch, as before.
 */
#include <endian.h>
#include <string.h>

#include "trace/reader.h"
#include "trace/writer.h"

int bts_writer_start(struct bts_writer *w, pid_t pid, pid_t tid, uint64_t pc)
{
	struct bts_chunk_start c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
		.pc = htole64(pc),
	};

	if (!w || pid <= 0 || tid <= 0 || !pc)
		return bts_fail(BTS_E_INVAL, "start of thread %d: pc 0x%llx",
				(int)tid, (unsigned long long)pc);
	return bts_writer_chunk(w, BTS_CHUNK_START | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, NULL);
}

int bts_rd_start(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off)
{
	struct bts_chunk_start c;
	long th;

	if (plen != sizeof(c))
		return bts_fail(BTS_E_FORMAT, "offset %zu: start chunk has the wrong size",
				off);
	memcpy(&c, p, sizeof(c));
	th = bts_tindex_thread(t, (int32_t)le32toh(c.tid));
	if (th < 0 || t->threads[th].info.pid != (int32_t)le32toh(c.pid))
		return bts_fail(BTS_E_FORMAT, "offset %zu: start of a thread that has "
				"not appeared", off);
	if (!c.pc || t->threads[th].info.nrecords)
		return bts_fail(BTS_E_FORMAT, "offset %zu: start chunk: pc 0 or after "
				"the thread's records", off);
	t->threads[th].info.start = le64toh(c.pc);
	return 0;
}
