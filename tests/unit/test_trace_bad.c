// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Malformed trace files: each class of damage gives its exact error, and no
 * byte sequence crashes the reader.  The images are built by hand from the
 * documented layout (libbts/trace/trace_format.h), little-endian as on x86.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "trace/trace_format.h"
#include "harness.h"

struct img {
	uint8_t b[4096];
	size_t n;
	uint64_t chunks, records;
};

static void put(struct img *m, const void *p, size_t n)
{
	if (m->n + n > sizeof(m->b))
		FAIL("image too large");
	if (n)
		memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void header(struct img *m, uint32_t version, uint32_t size)
{
	struct bts_file_header h = { .version = version, .header_size = size };

	memcpy(h.magic, BTS_FILE_MAGIC, BTS_FILE_MAGIC_LEN);
	put(m, &h, sizeof(h));
	while (m->n < size)
		put(m, "", 1);
}

/* A chunk of a fixed part and a tail; returns its offset. */
static size_t chunk(struct img *m, uint32_t type, const void *fixed,
		    size_t flen, const void *tail, size_t tlen)
{
	struct bts_chunk_header h = { type, (uint32_t)(flen + tlen) };
	size_t off = m->n;

	put(m, &h, sizeof(h));
	put(m, fixed, flen);
	put(m, tail, tlen);
	while (m->n % 8)
		put(m, "", 1);
	m->chunks++;
	return off;
}

static size_t end(struct img *m)
{
	struct bts_chunk_end e = { m->chunks, m->records };

	return chunk(m, BTS_CHUNK_END, &e, sizeof(e), NULL, 0);
}

static size_t process(struct img *m, int32_t pid, const char *exe)
{
	struct bts_chunk_process c = { pid, 1, (uint32_t)strlen(exe), 0 };

	return chunk(m, BTS_CHUNK_PROCESS, &c, sizeof(c), exe, strlen(exe) + 1);
}

static size_t thread(struct img *m, int32_t pid, int32_t tid)
{
	struct bts_chunk_thread c = { pid, tid };

	return chunk(m, BTS_CHUNK_THREAD, &c, sizeof(c), NULL, 0);
}

static size_t records(struct img *m, int32_t pid, int32_t tid,
		      const struct ptbts_record *r, uint32_t n)
{
	struct bts_chunk_records c = { pid, tid, n, 0 };

	m->records += n;
	return chunk(m, BTS_CHUNK_RECORDS, &c, sizeof(c), r, n * sizeof(*r));
}

static const struct ptbts_record two[] = {
	{ 0x401000, 0x401100, 0 },
	{ 0, 5, PTBTS_MKKIND(PTBTS_KIND_LOST) },
};

/* Header, session, process 100 with thread 100: the start of most images. */
static void start(struct img *m)
{
	struct bts_chunk_session s = { PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096 };

	*m = (struct img){ .n = 0 };
	header(m, 1, 16);
	chunk(m, BTS_CHUNK_SESSION, &s, sizeof(s), NULL, 0);	/* 16 */
	process(m, 100, "/bin/sh");				/* 40 */
	thread(m, 100, 100);					/* 72 */
}

/* The small valid file every damage test starts from: 264 bytes. */
static void sample(struct img *m)
{
	struct bts_chunk_map map = { 100, 5, 0x400000, 0x401000, 0, 2, 4 };
	struct bts_chunk_exit ex = { 100, 0, 0, 0 };
	uint8_t tail[] = { 0xaa, 0xbb, '/', 'a', '/', 'b', 0 };

	start(m);
	chunk(m, BTS_CHUNK_MAP, &map, sizeof(map), tail, sizeof(tail));	/* 88 */
	records(m, 100, 100, two, 2);				/* 144 */
	chunk(m, BTS_CHUNK_EXIT, &ex, sizeof(ex), NULL, 0);	/* 216 */
	end(m);							/* 240 */
}

/*
 * Opens an exact-size heap copy (so that ASan sees any read past the end)
 * and, when it opens, walks everything in it.
 */
static int check(const void *bytes, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;
	const struct bts_map *maps;
	int err;

	memcpy(copy, bytes, n);
	err = bts_trace_new_mem(copy, n, &t);
	if (!err) {
		for (size_t i = 0; i < bts_trace_nprocesses(t); i++)
			bts_trace_maps(t, bts_trace_process(t, i)->pid, &maps);
		for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
			ASSERT_EQ(bts_rec_iter_new(t, i, &it), 0);
			while (bts_rec_iter_next(it, &r))
				if (bts_record_kind(&r) < 0)
					FAIL("a record the reader let through");
			bts_rec_iter_free(it);
		}
		bts_trace_free(t);
	}
	free(copy);
	return err;
}

static int check_img(const struct img *m)
{
	return check(m->b, m->n);
}

TEST(trace_bad, sample_is_valid)
{
	struct img m;

	sample(&m);
	EXPECT_EQ(m.n, (size_t)264);
	EXPECT_EQ(check_img(&m), 0);
}

/* The writer writes exactly the documented layout. */
TEST(trace_bad, writer_matches_the_layout)
{
	char *path = harness_path(harness_tmpdir(), "t.btr");
	struct bts_map map = {
		.start = 0x400000, .end = 0x401000, .prot = 5,
		.build_id_len = 2, .build_id = { 0xaa, 0xbb }, .path = "/a/b",
	};
	uint8_t bytes[400];
	struct bts_writer *w;
	struct img m;
	int fd;

	sample(&m);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(w, 100, 1, "/bin/sh"), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 100), 0);
	ASSERT_EQ(bts_writer_map(w, 100, &map), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 100, two, 2), 0);
	ASSERT_EQ(bts_writer_exit(w, 100, 0, 0), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	fd = open(path, O_RDONLY);
	ASSERT_EQ(read(fd, bytes, sizeof(bytes)), (ssize_t)m.n);
	close(fd);
	EXPECT_EQ(memcmp(bytes, m.b, m.n), 0);
	free(path);
}

TEST(trace_bad, bad_magic)
{
	struct img m;

	sample(&m);
	m.b[1] = 'X';
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "not a trace file");
	EXPECT_EQ(check("\x89" "BTX", 4), -BTS_E_FORMAT);
	EXPECT_EQ(check("#!/bin/sh\necho hello\n", 21), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "not a trace file");
}

TEST(trace_bad, bad_version)
{
	struct img m;

	sample(&m);
	m.b[8] = 2;
	EXPECT_EQ(check_img(&m), -BTS_E_VERSION);
	EXPECT_STREQ(bts_errdetail(), "trace file version 2; this libbts reads version 1");
	m.b[8] = 0;
	EXPECT_EQ(check_img(&m), -BTS_E_VERSION);
}

TEST(trace_bad, header_size)
{
	struct img m = { .n = 0 };

	header(&m, 1, 12);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 12: bad header size");
	m = (struct img){ .n = 0 };
	header(&m, 1, 20);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	/* A longer header (a later writer's) is skipped. */
	m = (struct img){ .n = 0 };
	header(&m, 1, 32);
	end(&m);
	EXPECT_EQ(check_img(&m), 0);
	/* ... but not one that runs past the file. */
	m.b[12] = 64;
	EXPECT_EQ(check_img(&m), -BTS_E_TRUNCATED);
}

TEST(trace_bad, truncated_at_every_byte)
{
	struct img m;

	sample(&m);
	EXPECT_EQ(check(m.b, 0), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "empty file: not a trace file");
	for (size_t n = 1; n < m.n; n++) {
		int err = check(m.b, n);

		if (err != -BTS_E_TRUNCATED)
			FAIL("a file cut at %zu bytes gave %d (%s)", n, err,
			     bts_errdetail());
		if (strncmp(bts_errdetail(), "truncated: ", 11) ||
		    !strstr(bts_errdetail(), " (an interrupted recording?)"))
			FAIL("cut at %zu: \"%s\"", n, bts_errdetail());
	}
	EXPECT_EQ(check(m.b, 7), -BTS_E_TRUNCATED);
	EXPECT_STREQ(bts_errdetail(),
		     "truncated: the file ends inside its header (an interrupted recording?)");
	EXPECT_EQ(check(m.b, 240), -BTS_E_TRUNCATED);
	EXPECT_STREQ(bts_errdetail(),
		     "truncated: the file has no end chunk (an interrupted recording?)");
	EXPECT_EQ(check(m.b, 250), -BTS_E_TRUNCATED);
	EXPECT_STREQ(bts_errdetail(),
		     "truncated: the file ends inside the chunk at offset 240 (an interrupted recording?)");
}

TEST(trace_bad, nothing_after_the_end)
{
	struct img m;

	sample(&m);
	put(&m, "\0\0\0\0\0\0\0\0", 8);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 264: data after the end chunk");
	sample(&m);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
}

/*
 * A file that ends with its end chunk was written whole: a length that
 * runs past it is damage, not an interrupted recording.
 */
TEST(trace_bad, chunk_length_overruns_the_file)
{
	struct img m;
	uint32_t len = 1000;

	sample(&m);
	memcpy(m.b + 144 + 4, &len, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 144: the chunk there runs past the end of the file: "
		     "the file is damaged");
	len = UINT32_MAX;
	memcpy(m.b + 144 + 4, &len, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	/* Without its end chunk, the same file was cut short. */
	EXPECT_EQ(check(m.b, m.n - 24), -BTS_E_TRUNCATED);
	EXPECT_STREQ(bts_errdetail(),
		     "truncated: the file ends inside the chunk at offset 144 (an interrupted recording?)");
}

/* Types stay small: a huge one is damage, not a newer libbts's. */
TEST(trace_bad, damaged_chunk_type_says_damaged)
{
	struct img m;
	uint32_t type = 0x7f3a0004;

	sample(&m);
	memcpy(m.b + 144, &type, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 144: 0x7f3a0004 is no chunk type: the file is damaged");
	type |= 1u << 31;	/* "optional" does not make it one */
	memcpy(m.b + 144, &type, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
}

TEST(trace_bad, field_lengths_overrun_the_chunk)
{
	struct img m;
	uint32_t v;

	sample(&m);		/* map path_len at 88 + 8 + 36 */
	v = 5;
	memcpy(m.b + 132, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 88: map chunk: the build-id and path lengths do not match the chunk");
	v = UINT32_MAX;		/* the two lengths must not wrap around */
	memcpy(m.b + 132, &v, 4);
	memcpy(m.b + 128, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	sample(&m);		/* build_id_len 6, path_len 0: the sizes still match */
	v = 0;
	memcpy(m.b + 132, &v, 4);
	v = 6;
	memcpy(m.b + 128, &v, 4);
	EXPECT_EQ(check_img(&m), 0);
	sample(&m);		/* process exe_len at 40 + 8 + 8 */
	v = 8;
	memcpy(m.b + 56, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 40: process chunk: the path length does not match the chunk");
	v = UINT32_MAX;
	memcpy(m.b + 56, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
}

TEST(trace_bad, strings_must_end_where_they_say)
{
	struct img m;

	sample(&m);
	m.b[40 + 8 + 16 + 3] = 0;		/* "/bi\0sh" */
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 40: process chunk: malformed path");
	sample(&m);
	m.b[40 + 8 + 16 + 7] = 'x';		/* no NUL */
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	sample(&m);
	m.b[88 + 8 + 40 + 2 + 4] = 'x';
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 88: map chunk: malformed path");
}

TEST(trace_bad, count_does_not_match)
{
	struct img m;
	uint32_t v;

	sample(&m);		/* count at 144 + 8 + 8 */
	v = 3;
	memcpy(m.b + 160, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 144: records chunk: the count does not match the chunk");
	v = 1;
	memcpy(m.b + 160, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	v = UINT32_MAX;
	memcpy(m.b + 160, &v, 4);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	/* A payload that is not a whole number of records. */
	start(&m);
	{
		struct bts_chunk_records c = { 100, 100, 1, 0 };

		chunk(&m, BTS_CHUNK_RECORDS, &c, sizeof(c), two, 25);
	}
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
}

TEST(trace_bad, unknown_required_chunk_is_refused)
{
	struct img m;

	start(&m);
	chunk(&m, 85, "abc", 3, NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_VERSION);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 88: chunk type 85 is unknown to this libbts and not optional (the file needs a newer libbts)");
	/* A type no libbts knows yet. */
	start(&m);
	chunk(&m, 63, "abc", 3, NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_VERSION);
	start(&m);
	chunk(&m, 0, NULL, 0, NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_VERSION);
}

TEST(trace_bad, unknown_optional_chunk_is_skipped)
{
	struct ptbts_record r;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	struct img m;

	start(&m);
	chunk(&m, 85 | BTS_CHUNK_OPTIONAL, "abcde", 5, NULL, 0);
	records(&m, 100, 100, two, 2);
	chunk(&m, 63 | BTS_CHUNK_OPTIONAL, NULL, 0, NULL, 0);
	end(&m);
	ASSERT_EQ(check_img(&m), 0);
	ASSERT_EQ(bts_trace_new_mem(m.b, m.n, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)1);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	EXPECT_EQ(r.from, 0x401000u);
	bts_trace_free(t);
	bts_rec_iter_free(it);
}

TEST(trace_bad, reserved_record_bits)
{
	struct ptbts_record r[] = {
		{ 0x401000, 0x401100, 0 },
		{ 0x401000, 0x401100, 1ULL << 47 },
	};
	struct img m;

	start(&m);
	records(&m, 100, 100, r, 2);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 136: record flags 0x800000000000: reserved flag bits are set");
	r[1].flags = PTBTS_MKKIND(0x20);
	start(&m);
	records(&m, 100, 100, r, 2);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 136: record flags 0x2000000000: unknown record kind");
	r[1].flags = PTBTS_MKKIND(PTBTS_KIND_GAP);
	start(&m);
	records(&m, 100, 100, r, 2);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	r[1].from = 0;
	start(&m);
	records(&m, 100, 100, r, 2);
	end(&m);
	EXPECT_EQ(check_img(&m), 0);
}

TEST(trace_bad, references_to_what_has_not_appeared)
{
	struct bts_chunk_exit ex = { 100, 101, 0, 0 };
	struct img m;

	start(&m);
	records(&m, 100, 101, two, 2);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 88: records of a thread that has not appeared");
	start(&m);
	records(&m, 99, 100, two, 2);		/* thread 100 is not 99's */
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);
	thread(&m, 200, 200);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 88: thread of a process that has not appeared");
	start(&m);
	chunk(&m, BTS_CHUNK_EXIT, &ex, sizeof(ex), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	ex.tid = 0;
	ex.pid = 7;
	start(&m);
	chunk(&m, BTS_CHUNK_EXIT, &ex, sizeof(ex), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 88: exit of a process that has not appeared");
}

TEST(trace_bad, repeats)
{
	struct bts_chunk_session s = { 0, 0, 0 };
	struct bts_chunk_exit ex = { 100, 100, 0, 0 };
	struct img m;

	start(&m);
	thread(&m, 100, 100);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);
	process(&m, 100, "again");
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);
	chunk(&m, BTS_CHUNK_SESSION, &s, sizeof(s), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);
	chunk(&m, BTS_CHUNK_EXIT, &ex, sizeof(ex), NULL, 0);
	chunk(&m, BTS_CHUNK_EXIT, &ex, sizeof(ex), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 112: thread exits twice");
}

TEST(trace_bad, bad_values)
{
	struct bts_chunk_session s = { PTBTS_SOURCE_MAX, 0, 0 };
	struct bts_chunk_exit ex = { 100, 0, 0, 1 };
	struct img m;

	m = (struct img){ .n = 0 };
	header(&m, 1, 16);
	chunk(&m, BTS_CHUNK_SESSION, &s, sizeof(s), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);
	chunk(&m, BTS_CHUNK_EXIT, &ex, sizeof(ex), NULL, 0);	/* reserved */
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);
	thread(&m, 100, -5);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	m = (struct img){ .n = 0 };
	header(&m, 1, 16);
	process(&m, 0, "zero");
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	start(&m);			/* a build-id longer than any */
	{
		struct bts_chunk_map c = { 100, 5, 0x1000, 0x2000, 0, 65, 0 };
		uint8_t tail[66] = { 0 };

		chunk(&m, BTS_CHUNK_MAP, &c, sizeof(c), tail, sizeof(tail));
	}
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 88: map chunk: bad range, protection or build-id length");
	sample(&m);			/* map start >= end */
	memcpy(m.b + 88 + 8 + 16, m.b + 88 + 8 + 8, 8);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	sample(&m);			/* a thread chunk that swallows the next */
	m.b[72 + 4] = 16;
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 72: thread chunk has the wrong size");
}

TEST(trace_bad, end_totals_are_checked)
{
	struct img m;

	sample(&m);
	m.b[240 + 8] = 5;		/* chunks */
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(),
		     "offset 240: the end chunk counts 5 chunks and 2 records, the file holds 6 and 2");
	sample(&m);
	m.b[240 + 16] = 3;		/* records */
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
}

TEST(trace_bad, padding_is_zero)
{
	struct img m;

	sample(&m);
	m.b[143] = 1;			/* the map chunk's pad byte */
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 143: padding is not zero");
}

/* Every single-bit change of a valid file: a trace or an error, never worse. */
TEST(trace_bad, every_bit_flip)
{
	struct img m;
	int ok = 0;

	sample(&m);
	for (size_t bit = 0; bit < m.n * 8; bit++) {
		int err;

		m.b[bit / 8] ^= 1u << (bit % 8);
		err = check_img(&m);
		m.b[bit / 8] ^= 1u << (bit % 8);
		if (!err)
			ok++;
		else if (err != -BTS_E_FORMAT && err != -BTS_E_VERSION &&
			 err != -BTS_E_TRUNCATED)
			FAIL("bit %zu: error %d", bit, err);
		else if (!bts_errdetail()[0])
			FAIL("bit %zu: no detail", bit);
	}
	/* Flips in addresses, statuses and the hardware flag bits are benign. */
	EXPECT_GT(ok, 100);
}

/* The START chunk names a thread that appeared, once, before its records. */
TEST(trace_bad, start_chunk_is_checked)
{
	struct bts_chunk_start st = { 100, 100, 0x401000 };
	uint32_t opt = BTS_CHUNK_START | BTS_CHUNK_OPTIONAL;
	struct bts_trace *t;
	struct img m;

	start(&m);
	chunk(&m, opt, &st, sizeof(st), NULL, 0);
	records(&m, 100, 100, two, 2);
	end(&m);
	ASSERT_EQ(bts_trace_new_mem(m.b, m.n, &t), 0);
	EXPECT_EQ(bts_trace_thread(t, 0)->start, (uint64_t)0x401000);
	bts_trace_free(t);
	start(&m);
	chunk(&m, opt, &st, sizeof(st) - 8, NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 88: start chunk has the wrong size");
	st.tid = 101;
	start(&m);
	chunk(&m, opt, &st, sizeof(st), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "offset 88: start of a thread that has not appeared");
	st.tid = 100;
	start(&m);
	records(&m, 100, 100, two, 2);
	chunk(&m, opt, &st, sizeof(st), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
	st.pc = 0;
	start(&m);
	chunk(&m, opt, &st, sizeof(st), NULL, 0);
	end(&m);
	EXPECT_EQ(check_img(&m), -BTS_E_FORMAT);
}
