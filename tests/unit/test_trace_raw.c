// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Raw records of a trace file, read through the reader's two buffers
 * (libbts/trace/reader_raw.c): readers of three threads taking turns each
 * get their own records, and a chunk larger than the buffers (no libbts
 * writes one) is read from the mapped file, checked as the others are.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bts.h>

#include "trace/trace_format.h"
#include "harness.h"

#define PID 10
/* Two chunks a thread: the writer splits at BTS_RECORDS_PER_CHUNK. */
#define PER_THREAD (BTS_RECORDS_PER_CHUNK + 3000)
/* One more than a buffer holds. */
#define BIG (BTS_RECORDS_PER_CHUNK + 1)

static struct ptbts_record rec(pid_t tid, uint64_t i)
{
	return (struct ptbts_record){ 0x400000 + ((uint64_t)tid << 24) + i,
				      0x500000 + i,
				      PTBTS_MKKIND(PTBTS_KIND_BRANCH) };
}

static void expect_rec(const struct ptbts_record *r, pid_t tid, uint64_t i)
{
	struct ptbts_record want = rec(tid, i);

	if (r->from != want.from || r->to != want.to || r->flags != want.flags)
		FAIL("thread %d, record %llu: 0x%llx -> 0x%llx, not 0x%llx -> 0x%llx",
		     tid, (unsigned long long)i, (unsigned long long)r->from,
		     (unsigned long long)r->to, (unsigned long long)want.from,
		     (unsigned long long)want.to);
}

TEST(trace_raw, readers_taking_turns_each_read_their_own_records)
{
	static struct ptbts_record recs[PER_THREAD];
	char *path = harness_path(harness_tmpdir(), "turns.btr");
	struct bts_rec_iter *it[3] = { NULL };
	struct ptbts_record r;
	struct bts_writer *w;
	struct bts_trace *t;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_format(w, BTS_FORMAT_RAW), 0);
	ASSERT_EQ(bts_writer_process(w, PID, 1, "/bin/turns"), 0);
	for (pid_t tid = PID; tid < PID + 3; tid++) {
		ASSERT_EQ(bts_writer_thread(w, PID, tid), 0);
		for (uint64_t i = 0; i < PER_THREAD; i++)
			recs[i] = rec(tid, i);
		ASSERT_EQ(bts_writer_records(w, PID, tid, recs, PER_THREAD), 0);
	}
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)3);
	for (size_t k = 0; k < 3; k++)
		ASSERT_EQ(bts_rec_iter_new(t, k, &it[k]), 0);
	/* Three readers, two buffers: each record read, another one refilled. */
	for (uint64_t i = 0; i < PER_THREAD; i++)
		for (size_t k = 0; k < 3; k++) {
			ASSERT_EQ(bts_rec_iter_next(it[k], &r), 1);
			expect_rec(&r, bts_trace_thread(t, k)->tid, i);
		}
	for (size_t k = 0; k < 3; k++)
		EXPECT_EQ(bts_rec_iter_next(it[k], &r), 0);
	/* Back into the first chunk, after the buffers held others. */
	ASSERT_EQ(bts_rec_iter_seek(it[1], 5), 1);
	ASSERT_EQ(bts_rec_iter_next(it[1], &r), 1);
	expect_rec(&r, bts_trace_thread(t, 1)->tid, 5);
	for (size_t k = 0; k < 3; k++)
		bts_rec_iter_free(it[k]);
	bts_trace_free(t);
	unlink(path);
	free(path);
}

static void put(FILE *f, const void *p, size_t n)
{
	if (n)
		ASSERT_EQ(fwrite(p, 1, n, f), n);
}

static void chunk(FILE *f, uint32_t type, const void *fixed, uint32_t flen,
		  const void *tail, uint32_t tlen)
{
	struct bts_chunk_header h = { type, flen + tlen };
	static const uint8_t zeros[8];

	put(f, &h, sizeof(h));
	put(f, fixed, flen);
	put(f, tail, tlen);
	put(f, zeros, (8 - (flen + tlen) % 8) % 8);
}

/*
 * A file with one RECORDS chunk of @n records (little-endian, as on
 * x86), record @bad with reserved flag bits when @bad < @n; returns its
 * path.  The records start at byte 88.
 */
static char *write_by_hand(const char *name, uint32_t n, uint32_t bad)
{
	char *path = harness_path(harness_tmpdir(), name);
	struct bts_file_header h = { .version = BTS_FILE_VERSION, .header_size = 16 };
	struct bts_chunk_process p = { PID, 1, 1, 0 };
	struct bts_chunk_thread th = { PID, PID };
	struct bts_chunk_records c = { PID, PID, n, 0 };
	struct bts_chunk_end e = { 3, n };
	struct ptbts_record *recs = calloc(n, sizeof(*recs));
	FILE *f = fopen(path, "wb");

	ASSERT_TRUE(f && recs);
	for (uint32_t i = 0; i < n; i++)
		recs[i] = rec(PID, i);
	if (bad < n)
		recs[bad].flags |= PTBTS_FLAG_SW_RESERVED;
	memcpy(h.magic, BTS_FILE_MAGIC, BTS_FILE_MAGIC_LEN);
	put(f, &h, sizeof(h));
	chunk(f, BTS_CHUNK_PROCESS, &p, sizeof(p), "x", 2);	/* 16 */
	chunk(f, BTS_CHUNK_THREAD, &th, sizeof(th), NULL, 0);	/* 48 */
	chunk(f, BTS_CHUNK_RECORDS, &c, sizeof(c), recs,	/* 64, records at 88 */
	      n * (uint32_t)sizeof(*recs));
	chunk(f, BTS_CHUNK_END, &e, sizeof(e), NULL, 0);
	ASSERT_EQ(fclose(f), 0);
	free(recs);
	return path;
}

TEST(trace_raw, a_chunk_larger_than_a_buffer_is_read_and_checked)
{
	char *path = write_by_hand("big-chunk.btr", BIG, BIG);
	struct ptbts_record r, forged = rec(PID, 7);
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	uint64_t n = 0;
	int fd, ret;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, (uint64_t)BIG);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	for (n = 0; (ret = bts_rec_iter_next(it, &r)) > 0; n++)
		expect_rec(&r, PID, n);
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(n, (uint64_t)BIG);
	bts_rec_iter_free(it);
	bts_trace_free(t);

	/* Changed after opening: an error, never the forged record. */
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pwrite(fd, &forged, sizeof(forged), 88 + 24 * (BIG - 1)),
		  (ssize_t)sizeof(forged));
	close(fd);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	for (n = 0; (ret = bts_rec_iter_next(it, &r)) > 0; n++)
		expect_rec(&r, PID, n);
	EXPECT_EQ(ret, -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(bts_errdetail(), "changed since the trace was opened") != NULL);
	bts_rec_iter_free(it);
	bts_trace_free(t);
	unlink(path);
	free(path);
}

TEST(trace_raw, a_bad_record_is_named_by_its_offset_in_the_file)
{
	/* Read through a buffer, and from the mapped file. */
	static const uint32_t sizes[] = { 100, BIG };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		char *path = write_by_hand("bad-record.btr", sizes[i], 42);
		struct bts_trace *t = NULL;
		char want[128];

		snprintf(want, sizeof(want), "offset %u: record flags 0x%llx: "
			 "reserved flag bits are set", 88 + 24 * 42,
			 (unsigned long long)(PTBTS_MKKIND(PTBTS_KIND_BRANCH) |
					      PTBTS_FLAG_SW_RESERVED));
		EXPECT_EQ(bts_trace_new(path, &t), -BTS_E_FORMAT);
		EXPECT_STREQ(bts_errdetail(), want);
		unlink(path);
		free(path);
	}
}
