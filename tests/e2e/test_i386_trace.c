// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How a trace says a process is 32-bit: the optional ABI chunk
 * (libbts/trace/trace_format.h), as written, read and refused.
 */
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

#include "trace/writer.h"
#include "harness.h"

/* A trace of processes 5 (one ABI chunk of @bits5, 0: none) and 6. */
static char *write_trace(const char *name, unsigned int bits5)
{
	char *path = harness_path(harness_tmpdir(), name);
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 5, 1, "x"), 0);
	if (bits5)
		ASSERT_EQ(bts_writer_abi(w, 5, bits5), 0);
	ASSERT_EQ(bts_writer_process(w, 6, 5, "y"), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	return path;
}

static int bits_of(const char *path, pid_t pid)
{
	struct bts_trace *t;
	int bits;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	bits = bts_trace_process_bits(t, pid);
	bts_trace_free(t);
	return bits;
}

TEST(i386_trace, abi_chunk_marks_one_process)
{
	char *p32 = write_trace("abi32.btr", 32);
	char *p64 = write_trace("abi64.btr", 64);
	char *none = write_trace("abi0.btr", 0);

	EXPECT_EQ(bits_of(p32, 5), 32);
	EXPECT_EQ(bits_of(p32, 6), 64);
	EXPECT_EQ(bits_of(p64, 5), 64);
	EXPECT_EQ(bits_of(none, 5), 64);
	EXPECT_EQ(bits_of(none, 7), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "no process 7 in the trace");
	EXPECT_EQ(bts_trace_process_bits(NULL, 5), -BTS_E_INVAL);
	free(p32);
	free(p64);
	free(none);
}

TEST(i386_trace, writer_refuses_bad_abi)
{
	char *path = harness_path(harness_tmpdir(), "abibad.btr");
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 5, 1, "x"), 0);
	EXPECT_EQ(bts_writer_abi(w, 5, 16), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "abi of process 5: 16-bit");
	EXPECT_EQ(bts_writer_abi(w, 0, 32), -BTS_E_INVAL);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	free(path);
}

/* A chunk the writer would not write: the reader refuses the file. */
static void expect_refused(const struct bts_chunk_abi *c, size_t len,
			   const char *why)
{
	char *path = harness_path(harness_tmpdir(), "abiread.btr");
	struct bts_writer *w;
	struct bts_trace *t;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 5, 1, "x"), 0);
	ASSERT_EQ(bts_writer_chunk(w, BTS_CHUNK_ABI | BTS_CHUNK_OPTIONAL, c,
				   len, NULL, 0, NULL), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	EXPECT_EQ(bts_trace_new(path, &t), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), why);
	free(path);
}

TEST(i386_trace, reader_refuses_bad_abi_chunks)
{
	/* After the 16-byte header and the 32-byte process chunk. */
	struct bts_chunk_abi c = { .pid = 5, .bits = 16 };

	expect_refused(&c, sizeof(c), "offset 48: abi chunk: 16-bit code");
	c = (struct bts_chunk_abi){ .pid = 9, .bits = 32 };
	expect_refused(&c, sizeof(c),
		       "offset 48: abi of a process that has not appeared");
	expect_refused(&c, 4, "offset 48: abi chunk has the wrong size");
}
