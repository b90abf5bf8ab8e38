// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CODE chunk (trace_format.h): copies of code without a file (the
 * vDSO) written, validated, read back, later copies replacing earlier
 * ones; and what the symbolizer says about a vDSO the trace has no copy of.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <bts.h>

#include "trace/trace_format.h"
#include "harness.h"

#define PID 100

static char *tmp(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

static void start(const char *path, struct bts_writer **w)
{
	ASSERT_EQ(bts_writer_new(path, w), 0);
	ASSERT_EQ(bts_writer_session(*w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(*w, PID, 1, "/bin/sh"), 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	static uint8_t buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ASSERT_TRUE(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	ASSERT_GT(n, 0);
	*len = (size_t)n;
	return buf;
}

/* Opens an exact-size heap copy, so that ASan sees a read past the end. */
static int open_copy(const uint8_t *bytes, size_t n, struct bts_trace **t,
		     uint8_t **copy)
{
	*copy = malloc(n);
	memcpy(*copy, bytes, n);
	return bts_trace_new_mem(*copy, n, t);
}

TEST(symbols_code, round_trip)
{
	char *path = tmp("code.btr");
	const struct bts_code *code;
	struct bts_writer *w;
	struct bts_trace *t;
	uint8_t *bytes;
	uint32_t type;
	size_t len;

	start(path, &w);
	ASSERT_EQ(bts_writer_code(w, PID, 0x7fff1000, "0123456789", 10), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);

	/* Header 16, session 24, process 32: the code chunk is at 72. */
	bytes = slurp(path, &len);
	memcpy(&type, bytes + 72, 4);
	EXPECT_EQ(type, BTS_CHUNK_CODE | BTS_CHUNK_OPTIONAL);

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_code(t, PID, &code), (size_t)1);
	EXPECT_EQ(code[0].addr, 0x7fff1000u);
	EXPECT_EQ(code[0].len, 10u);
	EXPECT_EQ(memcmp(code[0].bytes, "0123456789", 10), 0);
	EXPECT_EQ(bts_trace_code(t, PID + 1, &code), (size_t)0);
	EXPECT_TRUE(code == NULL);
	bts_trace_free(t);
	free(path);
}

TEST(symbols_code, later_copies_replace_what_they_overlap)
{
	char *path = tmp("code.btr");
	const struct bts_code *c;
	struct bts_writer *w;
	struct bts_trace *t;

	start(path, &w);
	ASSERT_EQ(bts_writer_code(w, PID, 0x1000, "aaaaaaaaaaaaaaaa", 16), 0);
	ASSERT_EQ(bts_writer_code(w, PID, 0x1008, "bbbbbbbbbbbbbbbb", 16), 0);
	ASSERT_EQ(bts_writer_code(w, PID, 0x0ff8, "cccccccccccc", 12), 0);
	ASSERT_EQ(bts_writer_code(w, PID, 0x2000, "d", 1), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_code(t, PID, &c), (size_t)4);
	EXPECT_EQ(c[0].addr, 0xff8u);
	EXPECT_EQ(c[0].len, 12u);
	EXPECT_EQ(c[0].bytes[0], 'c');
	EXPECT_EQ(c[1].addr, 0x1004u);	/* what c left of a */
	EXPECT_EQ(c[1].len, 4u);
	EXPECT_EQ(memcmp(c[1].bytes, "aaaa", 4), 0);
	EXPECT_EQ(c[2].addr, 0x1008u);
	EXPECT_EQ(c[2].len, 16u);
	EXPECT_EQ(c[2].bytes[15], 'b');
	EXPECT_EQ(c[3].addr, 0x2000u);
	EXPECT_EQ(c[3].len, 1u);
	bts_trace_free(t);
	free(path);
}

TEST(symbols_code, writer_refuses_bad_copies)
{
	char *path = tmp("code.btr");
	struct bts_writer *w;

	start(path, &w);
	EXPECT_EQ(bts_writer_code(w, 0, 0x1000, "a", 1), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_code(w, PID, 0x1000, NULL, 1), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_code(w, PID, 0x1000, "a", 0), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_code(w, PID, ~0ull, "ab", 2), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "a malformed code copy of process 100");
	/* The file stays whole and readable. */
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	free(path);
}

/* A valid file with one code chunk at 72, damaged by @damage. */
static int damaged(void (*damage)(uint8_t *b, size_t *len))
{
	char *path = tmp("code.btr");
	struct bts_writer *w;
	struct bts_trace *t;
	uint8_t *bytes, *copy;
	size_t len;
	int err;

	start(path, &w);
	ASSERT_EQ(bts_writer_code(w, PID, 0x7fff1000, "0123456789", 10), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	bytes = slurp(path, &len);
	damage(bytes, &len);
	err = open_copy(bytes, len, &t, &copy);
	if (!err)
		bts_trace_free(t);
	free(copy);
	unlink(path);
	free(path);
	return err;
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static void bad_length(uint8_t *b, size_t *len)
{
	(void)len;
	put32(b, 84, 11);
}

static void bad_pid(uint8_t *b, size_t *len)
{
	(void)len;
	put32(b, 80, 5);
}

static void wraps(uint8_t *b, size_t *len)
{
	(void)len;
	put64(b, 88, ~0ull - 4);
}

/* The fixed part alone: a chunk of 16 bytes, the end chunk right after. */
static void no_bytes(uint8_t *b, size_t *len)
{
	uint8_t end[24];

	memcpy(end, b + 112, sizeof(end));	/* 72 + 8 + 16 + 10 + 6 padding */
	put32(b, 76, 16);
	put32(b, 84, 0);
	memcpy(b + 96, end, sizeof(end));
	*len = 96 + sizeof(end);
}

static void required(uint8_t *b, size_t *len)
{
	(void)len;
	put32(b, 72, BTS_CHUNK_CODE);
}

TEST(symbols_code, reader_checks_every_field)
{
	EXPECT_EQ(damaged(bad_length), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 72: code chunk: the length does not match the chunk");
	EXPECT_EQ(damaged(bad_pid), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 72: code of a process that has not appeared");
	EXPECT_EQ(damaged(wraps), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 72: code chunk: the range wraps around");
	EXPECT_EQ(damaged(no_bytes), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 72: code chunk is too short");
	/* A reader that knows the type reads it with or without the bit. */
	EXPECT_EQ(damaged(required), 0);
}

/* ------------------------------------------------------------ vDSO */

/* A trace of this very process: its maps, and its vDSO copied or not. */
static struct bts_trace *self_trace(const char *path, bool copy_vdso)
{
	struct bts_map *maps;
	struct bts_writer *w;
	struct bts_trace *t;
	int n = bts_maps_new(getpid(), &maps);

	ASSERT_GT(n, 0);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(w, getpid(), 1, "self"), 0);
	for (int i = 0; i < n; i++) {
		ASSERT_EQ(bts_writer_map(w, getpid(), &maps[i]), 0);
		if (copy_vdso && !strcmp(maps[i].path, "[vdso]"))
			ASSERT_EQ(bts_writer_code(w, getpid(), maps[i].start,
						  (void *)(uintptr_t)maps[i].start,
						  maps[i].end - maps[i].start), 0);
	}
	bts_maps_free(maps, n);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	return t;
}

/* How many warnings start with @prefix. */
static int warnings(const struct bts_symbolizer *s, const char *prefix)
{
	const char *w;
	int n = 0;

	for (size_t i = 0; (w = bts_symbolizer_warning(s, i)); i++)
		n += !strncmp(w, prefix, strlen(prefix));
	return n;
}

TEST(symbols_code, vdso_without_a_copy_is_said)
{
	char *path = tmp("self.btr");
	struct bts_symbolizer *s;
	struct bts_trace *t;
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR), off;
	const char *name;

	ASSERT_NE(vdso, 0u);
	t = self_trace(path, false);
	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	EXPECT_EQ(warnings(s, "[vdso]: the trace holds no copy of it: no symbols from it"), 1);
	EXPECT_EQ(warnings(s, "[vdso]"), 1);
	EXPECT_EQ(bts_symbolize(s, vdso + 0x400, &name, &off), -BTS_E_INVAL);
	bts_symbolizer_free(s);
	bts_trace_free(t);

	unlink(path);
	t = self_trace(path, true);
	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	EXPECT_EQ(warnings(s, "[vdso]"), 0);
	bts_symbolizer_free(s);
	bts_trace_free(t);
	free(path);
}
