// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Compact trace files: what the writer writes in either format
 * the reader gives back exactly, raw files still read, records can be
 * reached by index, and a damaged compact chunk is refused with its error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "trace/trace_format.h"
#include "harness.h"

#define GUARD_S 60

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ull;
}

/* Valid records of every kind: near and far branches, signals, markers. */
static void random_records(struct ptbts_record *r, size_t n)
{
	uint64_t pc = 0x7f0000401000ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = rnd() % 32;

		r[i].from = pc + rnd() % 40;
		r[i].to = r[i].from + (int64_t)(rnd() % 8192) - 4096;
		r[i].flags = k == 1 ? 0x10 : 0;
		if (k == 2)
			r[i].to = rnd() | 1;
		if (k == 3)
			r[i].flags = PTBTS_MKKIND(PTBTS_KIND_SIGNAL) | 0x10;
		if (k == 4)
			r[i].flags = PTBTS_MKKIND(PTBTS_KIND_SIGRETURN);
		if (k == 5)
			r[i] = (struct ptbts_record){ 0, rnd() % 1000,
						      PTBTS_MKKIND(PTBTS_KIND_LOST) };
		if (k == 6)
			r[i] = (struct ptbts_record){ 0, PTBTS_GAP_UNREADABLE,
						      PTBTS_MKKIND(PTBTS_KIND_GAP) };
		if (r[i].from)
			pc = r[i].to;
	}
}

static char *tpath(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

/*
 * Process 7 with threads 7 and 8: @a's records for 7 and @b's for 8 in
 * interleaved batches of uneven sizes (some cross a chunk's end).
 */
static void write_two(const char *path, int format, const struct ptbts_record *a,
		      size_t na, const struct ptbts_record *b, size_t nb)
{
	static const size_t sizes[] = { 1, 7, 100, 20000, 3, 16384, 5000 };
	struct bts_writer *w;
	size_t ia = 0, ib = 0;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_format(w, format), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(w, 7, 1, "/bin/prog"), 0);
	ASSERT_EQ(bts_writer_thread(w, 7, 7), 0);
	ASSERT_EQ(bts_writer_thread(w, 7, 8), 0);
	for (size_t i = 0; ia < na || ib < nb; i++) {
		size_t k = sizes[i % 7], ka = k < na - ia ? k : na - ia;
		size_t kb = (k * 3) / 2 < nb - ib ? (k * 3) / 2 : nb - ib;

		ASSERT_EQ(bts_writer_records(w, 7, 7, a + ia, ka), 0);
		ASSERT_EQ(bts_writer_records(w, 7, 8, b + ib, kb), 0);
		ia += ka;
		ib += kb;
	}
	ASSERT_EQ(bts_writer_exit(w, 7, 0, 0), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
}

static void expect_records(const struct bts_trace *t, size_t thread,
			   const struct ptbts_record *want, size_t n)
{
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	size_t i = 0;

	ASSERT_EQ(bts_trace_thread(t, thread)->nrecords, (uint64_t)n);
	ASSERT_EQ(bts_rec_iter_new(t, thread, &it), 0);
	for (; bts_rec_iter_next(it, &r) == 1; i++) {
		ASSERT_LT(i, n);
		if (memcmp(&r, &want[i], sizeof(r)))
			FAIL("record %zu: %llx %llx %llx, want %llx %llx %llx", i,
			     (unsigned long long)r.from, (unsigned long long)r.to,
			     (unsigned long long)r.flags, (unsigned long long)want[i].from,
			     (unsigned long long)want[i].to, (unsigned long long)want[i].flags);
	}
	EXPECT_EQ(i, n);
	bts_rec_iter_free(it);
}

static off_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		FAIL("%s: %m", path);
	return st.st_size;
}

TEST(trace_compact, random_round_trip_in_both_formats)
{
	const size_t na = 70000, nb = 50001;
	struct ptbts_record *a = calloc(na, sizeof(*a)), *b = calloc(nb, sizeof(*b));
	int formats[] = { BTS_FORMAT_RAW, BTS_FORMAT_COMPACT };
	off_t size[2];

	random_records(a, na);
	random_records(b, nb);
	for (int f = 0; f < 2; f++) {
		char *path = tpath(f ? "compact.btr" : "raw.btr");
		struct bts_trace *t;

		write_two(path, formats[f], a, na, b, nb);
		ASSERT_EQ(bts_trace_new(path, &t), 0);
		EXPECT_EQ(bts_trace_format(t), formats[f]);
		ASSERT_EQ(bts_trace_nthreads(t), (size_t)2);
		expect_records(t, 0, a, na);
		expect_records(t, 1, b, nb);
		EXPECT_TRUE(bts_trace_thread(t, 0)->exited);
		bts_trace_free(t);
		size[f] = file_size(path);
		free(path);
	}
	/* Random records compress poorly, yet still below half of 24 bytes. */
	EXPECT_LT(size[1] * 2, size[0]);
	free(a);
	free(b);
}

/* A raw file (the format before compact records) has the same layout as ever. */
TEST(trace_compact, raw_files_still_read)
{
	struct ptbts_record r[1000];
	char *path = tpath("old.btr");
	struct bts_writer *w;
	struct bts_trace *t;

	random_records(r, 1000);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 3, 1, "/x"), 0);
	ASSERT_EQ(bts_writer_thread(w, 3, 3), 0);
	ASSERT_EQ(bts_writer_records(w, 3, 3, r, 1000), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	/* header, process (16 + 3 -> 24), thread, records, end */
	EXPECT_EQ(file_size(path), (off_t)(16 + 8 + 24 + 8 + 8 + 8 + 16 + 24000 + 8 + 16));
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_EQ(bts_trace_format(t), BTS_FORMAT_RAW);
	expect_records(t, 0, r, 1000);
	bts_trace_free(t);
	free(path);
}

/* A thread's records by index, in both formats, without reading the rest. */
TEST(trace_compact, seek)
{
	const size_t n = 60000;
	struct ptbts_record *a = calloc(n, sizeof(*a)), r;
	int formats[] = { BTS_FORMAT_RAW, BTS_FORMAT_COMPACT };

	random_records(a, n);
	for (int f = 0; f < 2; f++) {
		char *path = tpath("seek.btr");
		struct bts_rec_iter *it = NULL;
		struct bts_trace *t;

		unlink(path);
		write_two(path, formats[f], a, n, a, 10);
		ASSERT_EQ(bts_trace_new(path, &t), 0);
		ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
		for (uint64_t i = n - 1;; i = i * 7 / 9) {
			ASSERT_EQ(bts_rec_iter_seek(it, i), 1);
			ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
			EXPECT_EQ(memcmp(&r, &a[i], sizeof(r)), 0);
			if (i + 1 < n) {
				ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
				EXPECT_EQ(memcmp(&r, &a[i + 1], sizeof(r)), 0);
			}
			if (!i)
				break;
		}
		EXPECT_EQ(bts_rec_iter_seek(it, n), 0);
		EXPECT_EQ(bts_rec_iter_next(it, &r), 0);
		EXPECT_EQ(bts_rec_iter_seek(it, ~0ull), 0);
		bts_rec_iter_free(it);
		ASSERT_EQ(bts_rec_iter_new(t, 5, &it), 0);
		EXPECT_EQ(bts_rec_iter_seek(it, 0), 0);
		bts_rec_iter_free(it);
		bts_trace_free(t);
		free(path);
	}
	free(a);
}

TEST(trace_compact, format_is_chosen_before_the_records)
{
	struct ptbts_record r = { 0x1000, 0x2000, 0 };
	char *path = tpath("late.btr");
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	EXPECT_EQ(bts_writer_format(w, 2), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_format(w, BTS_FORMAT_COMPACT), 0);
	ASSERT_EQ(bts_writer_process(w, 3, 1, "/x"), 0);
	ASSERT_EQ(bts_writer_thread(w, 3, 3), 0);
	ASSERT_EQ(bts_writer_records(w, 3, 3, &r, 1), 0);
	EXPECT_EQ(bts_writer_format(w, BTS_FORMAT_RAW), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "the trace format is chosen before any record");
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	free(path);
}

/* ------------------------------------------------------- a real program */

static int record(const char *prog, const char *out, int format)
{
	char *argv[] = { (char *)prog, NULL };
	BTS_OPTS(bts_session_opts, o, .mode = PTBTS_MODE_BLOCK);
	struct bts_session *s;
	struct bts_writer *w;
	int err;

	if (bts_writer_new(out, &w) || bts_writer_format(w, format))
		FAIL("writer: %s", bts_errdetail());
	o.writer = w;
	alarm(GUARD_S);
	err = bts_session_new_spawn(argv, &o, &s);
	if (!err) {
		err = bts_session_run(s);
		bts_session_free(s);
	}
	alarm(0);
	if (!err)
		err = bts_writer_finish(w);
	bts_writer_free(w);
	return err;
}

static struct ptbts_record *all_records(const struct bts_trace *t, size_t th,
					size_t *n)
{
	struct ptbts_record *r = calloc(bts_trace_thread(t, th)->nrecords + 1,
					sizeof(*r));
	struct bts_rec_iter *it = NULL;

	*n = 0;
	ASSERT_EQ(bts_rec_iter_new(t, th, &it), 0);
	while (bts_rec_iter_next(it, &r[*n]) == 1)
		(*n)++;
	bts_rec_iter_free(it);
	return r;
}

/*
 * A recorded program's records, rewritten compact, read back exactly;
 * and recorded compact directly, they decode to the same branch count.
 */
TEST(trace_compact, real_records_round_trip)
{
	char *prog = PROG_PATH("seq-calls"), *raw = tpath("real-raw.btr");
	char *re = tpath("real-re.btr"), *direct = tpath("real-direct.btr");
	struct bts_trace *t, *t2;
	struct ptbts_record *r;
	struct bts_writer *w;
	unsigned long persona;
	size_t n;

	persona = harness_aslr_off();
	ASSERT_EQ(record(prog, raw, BTS_FORMAT_RAW), 0);
	ASSERT_EQ(bts_trace_new(raw, &t), 0);
	ASSERT_GE(bts_trace_nthreads(t), (size_t)1);
	r = all_records(t, 0, &n);
	ASSERT_GT(n, (size_t)100);
	ASSERT_EQ(bts_writer_new(re, &w), 0);
	ASSERT_EQ(bts_writer_format(w, BTS_FORMAT_COMPACT), 0);
	ASSERT_EQ(bts_writer_process(w, 1, 0, ""), 0);
	ASSERT_EQ(bts_writer_thread(w, 1, 1), 0);
	ASSERT_EQ(bts_writer_records(w, 1, 1, r, n), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	if (bts_trace_new(re, &t2))
		FAIL("%s", bts_errdetail());
	expect_records(t2, 0, r, n);
	/* A program's branches: the target is well below 4 bytes each. */
	EXPECT_LT(file_size(re), (off_t)(n * 4));
	bts_trace_free(t2);
	bts_trace_free(t);
	free(r);

	ASSERT_EQ(record(prog, direct, BTS_FORMAT_COMPACT), 0);
	harness_aslr_restore(persona);
	ASSERT_EQ(bts_trace_new(direct, &t), 0);
	EXPECT_EQ(bts_trace_format(t), BTS_FORMAT_COMPACT);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, (uint64_t)n);
	bts_trace_free(t);
	free(prog);
	free(raw);
	free(re);
	free(direct);
}

/* ------------------------------------------------------------- damage */

struct sample {
	uint8_t *b;
	size_t n;
	size_t chunk;		/* the compact chunk's header */
	size_t plen;
	struct ptbts_record r[40];
};

/* One thread, 40 records in one compact chunk: a small file. */
static void sample(struct sample *s)
{
	struct ptbts_record *r = s->r;
	char *path = tpath("sample.btr");
	struct bts_writer *w;
	FILE *f;

	/* The same sample whichever tests ran before in this process. */
	rnd_state = 0x2545f4914f6cdd1dull;
	random_records(r, 40);
	unlink(path);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_format(w, BTS_FORMAT_COMPACT), 0);
	ASSERT_EQ(bts_writer_process(w, 100, 1, "/p"), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 100), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 100, r, 40), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	s->n = file_size(path);
	s->b = malloc(s->n);
	f = fopen(path, "rb");
	ASSERT_TRUE(f && fread(s->b, 1, s->n, f) == s->n);
	fclose(f);
	free(path);
	/* header 16, process 8 + 16 + 3 (-> 32), thread 16: the chunk at 64. */
	s->chunk = 64;
	ASSERT_EQ(s->b[s->chunk], BTS_CHUNK_RECORDS_COMPACT);
	memcpy(&s->plen, s->b + s->chunk + 4, 4);
	s->plen &= 0xffffffff;
}

/* Opens an exact-size heap copy and walks every record in it. */
static int check(const uint8_t *bytes, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;
	int err;

	memcpy(copy, bytes, n);
	err = bts_trace_new_mem(copy, n, &t);
	if (!err) {
		for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
			ASSERT_EQ(bts_rec_iter_new(t, i, &it), 0);
			while (bts_rec_iter_next(it, &r) == 1)
				if (bts_record_kind(&r) < 0)
					FAIL("a record the reader let through");
			bts_rec_iter_free(it);
		}
		bts_trace_free(t);
	}
	free(copy);
	return err;
}

TEST(trace_compact, every_truncation_is_refused)
{
	struct sample s;

	sample(&s);
	EXPECT_EQ(check(s.b, s.n), 0);
	for (size_t len = 0; len < s.n; len++) {
		int err = check(s.b, len);

		if (err != -BTS_E_TRUNCATED && err != -BTS_E_FORMAT)
			FAIL("cut at %zu: error %d", len, err);
	}
	free(s.b);
}

/* Whether @bytes open as a trace of exactly @s's records. */
static bool reads_as_written(const uint8_t *bytes, size_t n,
			     const struct sample *s)
{
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;
	size_t i = 0;
	bool same;

	if (bts_trace_new_mem(bytes, n, &t))
		return false;
	same = bts_trace_nthreads(t) == 1 && !bts_rec_iter_new(t, 0, &it);
	while (same && bts_rec_iter_next(it, &r) == 1)
		same = i < 40 && !memcmp(&r, &s->r[i++], sizeof(r));
	bts_rec_iter_free(it);
	bts_trace_free(t);
	return same && i == 40;
}

/*
 * Any changed bit of the compact chunk (its header or the frame, which has
 * a checksum over what it decodes to) is refused, or decodes to exactly
 * the records written: zstd's format has a few bits that change nothing
 * (which ones depends on the records).  A bit elsewhere gives a trace or
 * an error.
 */
TEST(trace_compact, every_bit_flip_in_the_chunk_is_refused_or_harmless)
{
	struct sample s;
	size_t lo, hi;

	sample(&s);
	lo = s.chunk + 8;
	hi = lo + s.plen;
	for (size_t bit = 0; bit < s.n * 8; bit++) {
		size_t at = bit / 8;
		int err;

		s.b[at] ^= 1u << (bit % 8);
		err = check(s.b, s.n);
		if (at >= lo && at < hi && !err && !reads_as_written(s.b, s.n, &s))
			FAIL("bit %zu (byte %zu of the chunk) went unnoticed", bit, at - lo);
		s.b[at] ^= 1u << (bit % 8);
		if (err && err != -BTS_E_FORMAT && err != -BTS_E_VERSION &&
		    err != -BTS_E_TRUNCATED)
			FAIL("bit %zu: error %d", bit, err);
		if (err && !bts_errdetail()[0])
			FAIL("bit %zu: no detail", bit);
	}
	free(s.b);
}

static void set32(struct sample *s, size_t field, uint32_t v)
{
	memcpy(s->b + s->chunk + 8 + field, &v, 4);
}

static void expect_refused(struct sample *s, const char *why)
{
	char want[200];

	snprintf(want, sizeof(want), "offset %zu: %s", s->chunk, why);
	EXPECT_EQ(check(s->b, s->n), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), want);
}

/* Sizes are bounded before anything is allocated or decompressed. */
TEST(trace_compact, header_fields_are_bounded)
{
	struct sample s;
	uint32_t count, raw;

	sample(&s);
	memcpy(&count, s.b + s.chunk + 16, 4);
	memcpy(&raw, s.b + s.chunk + 20, 4);
	EXPECT_EQ(count, 40u);
	set32(&s, 8, 0xffffffff);
	expect_refused(&s, "compact records chunk: count or size out of bounds");
	set32(&s, 8, 0);
	expect_refused(&s, "compact records chunk: count or size out of bounds");
	set32(&s, 8, 39);
	expect_refused(&s, "bytes after the last record");
	set32(&s, 8, count);
	set32(&s, 12, 40 * 30 + 1);
	expect_refused(&s, "compact records chunk: count or size out of bounds");
	set32(&s, 12, 0xffffffff);
	expect_refused(&s, "compact records chunk: count or size out of bounds");
	set32(&s, 12, raw + 1);
	expect_refused(&s, "the compressed data does not hold the size the chunk says");
	set32(&s, 12, raw);
	set32(&s, 16, 2);
	expect_refused(&s, "compact records chunk: unknown codec or reserved field");
	set32(&s, 16, BTS_CODEC_DELTA_ZSTD);
	set32(&s, 20, 1);
	expect_refused(&s, "compact records chunk: unknown codec or reserved field");
	set32(&s, 20, 0);
	set32(&s, 4, 101);
	expect_refused(&s, "records of a thread that has not appeared");
	set32(&s, 4, 100);
	EXPECT_EQ(check(s.b, s.n), 0);
	free(s.b);
}
