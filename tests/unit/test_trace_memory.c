// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The memory of a traced process as its trace shows it
 * (bts_trace_memory_*): the code copies the trace carries and the files
 * its maps name, a file whose build-id differs holding nothing; every
 * other address is an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "harness.h"

/* A file of 0x3000 bytes, byte i being (i * 7) & 0xff. */
static char *write_file(const char *name)
{
	char *path = harness_path(harness_tmpdir(), name);
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f != NULL);
	for (int i = 0; i < 0x3000; i++)
		fputc((i * 7) & 0xff, f);
	ASSERT_EQ(fclose(f), 0);
	return path;
}

static void write_map(struct bts_writer *w, uint64_t start, uint64_t end,
		      uint64_t offset, const char *path, uint32_t id_len)
{
	struct bts_map m = {
		.start = start, .end = end, .offset = offset, .prot = 5,
		.build_id_len = id_len, .path = (char *)path,
	};

	memset(m.build_id, 0x5a, id_len);
	ASSERT_EQ(bts_writer_map(w, 9, &m), 0);
}

/*
 * Process 9: 0x20 bytes of 0xc3 copied at 0x1000; the file mapped at
 * 0x5000-0x6000 from offset 0x1000 (no build-id recorded); another file
 * at 0x8000 whose recorded build-id it does not have.
 */
static struct bts_trace *open_trace(char **files)
{
	char *path = harness_path(harness_tmpdir(), "memory.btr");
	struct bts_trace *t;
	struct bts_writer *w;
	uint8_t code[0x20];

	files[0] = write_file("memory-ok.bin");
	files[1] = write_file("memory-other.bin");
	memset(code, 0xc3, sizeof(code));
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 9, 1, files[0]), 0);
	ASSERT_EQ(bts_writer_thread(w, 9, 9), 0);
	ASSERT_EQ(bts_writer_code(w, 9, 0x1000, code, sizeof(code)), 0);
	write_map(w, 0x5000, 0x6000, 0x1000, files[0], 0);
	write_map(w, 0x8000, 0x9000, 0, files[1], 20);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	free(path);
	return t;
}

TEST(trace_memory, copies_and_files)
{
	struct bts_trace_memory *m;
	struct bts_trace *t;
	uint8_t buf[0x40];
	char *files[2];

	t = open_trace(files);
	ASSERT_EQ(bts_trace_memory_new(t, 9, &m), 0);

	/* A copy, and a read past its end: short. */
	EXPECT_EQ(bts_trace_memory_read(m, 0x1010, buf, 0x40), 0x10);
	for (int i = 0; i < 0x10; i++)
		EXPECT_EQ(buf[i], 0xc3);

	/* The file at its offset, up to the map's end. */
	EXPECT_EQ(bts_trace_memory_read(m, 0x5ff0, buf, 0x40), 0x10);
	for (int i = 0; i < 0x10; i++)
		EXPECT_EQ(buf[i], ((0x1ff0 + i) * 7) & 0xff);
	EXPECT_EQ(bts_trace_memory_read(m, 0x5000, buf, 1), 1);
	EXPECT_EQ(buf[0], (0x1000 * 7) & 0xff);
	EXPECT_EQ(bts_trace_memory_read(m, 0x5000, buf, 0), 0);

	/* Nothing there; the file of another build-id holds nothing. */
	EXPECT_EQ(bts_trace_memory_read(m, 0x6000, buf, 1), -BTS_E_IO);
	EXPECT_EQ(bts_trace_memory_read(m, 0x8000, buf, 1), -BTS_E_IO);
	ASSERT_TRUE(bts_trace_memory_warning(m, 0) != NULL);
	EXPECT_TRUE(strstr(bts_trace_memory_warning(m, 0),
			   "not the file that was traced (build-id differs)") != NULL);
	EXPECT_TRUE(bts_trace_memory_warning(m, 1) == NULL);

	bts_trace_memory_free(m);
	bts_trace_free(t);
	free(files[0]);
	free(files[1]);
}

TEST(trace_memory, bad_arguments)
{
	struct bts_trace_memory *m = NULL;
	struct bts_trace *t;
	uint8_t buf[4];
	char *files[2];

	t = open_trace(files);
	EXPECT_EQ(bts_trace_memory_new(t, 10, &m), -BTS_E_INVAL);
	EXPECT_TRUE(m == NULL);
	EXPECT_EQ(bts_trace_memory_new(NULL, 9, &m), -BTS_E_INVAL);
	EXPECT_EQ(bts_trace_memory_new(t, 9, NULL), -BTS_E_INVAL);
	EXPECT_EQ(bts_trace_memory_read(NULL, 0x1000, buf, 1), -BTS_E_INVAL);
	ASSERT_EQ(bts_trace_memory_new(t, 9, &m), 0);
	EXPECT_EQ(bts_trace_memory_read(m, 0x1000, NULL, 1), -BTS_E_INVAL);
	EXPECT_TRUE(bts_trace_memory_warning(NULL, 0) == NULL);
	bts_trace_memory_free(m);
	bts_trace_memory_free(NULL);
	bts_trace_free(t);
	free(files[0]);
	free(files[1]);
}
