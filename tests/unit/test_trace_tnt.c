// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tnt record encoding (libbts/decode/tnt_*.c) on records of a small
 * program whose code the trace carries (a CODE chunk): the records come
 * back exactly, most of them walked from the code, the rest (a signal,
 * markers, a record the code does not reach) given whole; a damaged
 * chunk is refused without a crash.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "trace/trace_format.h"
#include "harness.h"

/*
 * The program, at CODE_AT:
 *	0x00  48 ff c8		dec %rax
 *	0x03  75 fb		jne 0x00
 *	0x05  e8 06 00 00 00	call 0x10
 *	0x0a  ff e3		jmp *%rbx	(to 0x0c)
 *	0x0c  eb f2		jmp 0x00
 *	0x0e  90 90
 *	0x10  c3		ret
 */
#define CODE_AT 0x500000ull
static const uint8_t code[] = {
	0x48, 0xff, 0xc8, 0x75, 0xfb, 0xe8, 0x06, 0x00, 0x00, 0x00,
	0xff, 0xe3, 0xeb, 0xf2, 0x90, 0x90, 0xc3,
};

#define NRECS 400

static struct ptbts_record br(uint64_t from, uint64_t to)
{
	return (struct ptbts_record){ CODE_AT + from, CODE_AT + to, 0 };
}

/*
 * Rounds of the loop with 1, 2, 3... iterations; a signal, its return,
 * a lost marker and a branch from outside the code on the way.
 */
static size_t program_records(struct ptbts_record *r, unsigned int *rounds)
{
	unsigned int round;
	size_t n = 0;

	for (round = 1; n + round + 8 < NRECS; round++) {
		for (unsigned int i = 1; i < round % 7 + 1; i++)
			r[n++] = br(0x03, 0x00);
		r[n++] = br(0x05, 0x10);
		if (round == 5) {
			r[n++] = (struct ptbts_record){ CODE_AT + 0x10, 0x7000,
				PTBTS_MKKIND(PTBTS_KIND_SIGNAL) };
			r[n++] = (struct ptbts_record){ 0x7010, CODE_AT + 0x10,
				PTBTS_MKKIND(PTBTS_KIND_SIGRETURN) };
		}
		if (round == 9)
			r[n++] = (struct ptbts_record){ 0, 7,
				PTBTS_MKKIND(PTBTS_KIND_LOST) };
		r[n++] = br(0x10, 0x0a);
		/*
		 * The indirect jump once elsewhere, twice to address 0 (a null
		 * function pointer): the next record is not walked.
		 */
		r[n++] = round == 12 ? br(0x0a, 0x0e) : br(0x0a, 0x0c);
		if (round == 20 || round == 21)
			r[n - 1].to = 0;
		r[n++] = round == 12 ? br(0x0f, 0x00) : br(0x0c, 0x00);
	}
	*rounds = round - 1;
	return n;
}

static char *tpath(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

static void write_program(const char *path, const struct ptbts_record *r,
			  size_t n)
{
	struct bts_map m = { .start = CODE_AT, .end = CODE_AT + 0x1000,
			     .prot = 5, .path = "" };
	struct bts_writer *w;

	unlink(path);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_format(w, BTS_FORMAT_COMPACT), 0);
	ASSERT_EQ(bts_writer_process(w, 100, 1, "/p"), 0);
	ASSERT_EQ(bts_writer_map(w, 100, &m), 0);
	ASSERT_EQ(bts_writer_code(w, 100, CODE_AT, code, sizeof(code)), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 100), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 100, r, n), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	struct stat st;
	uint8_t *b;
	FILE *f;

	ASSERT_EQ(stat(path, &st), 0);
	*n = st.st_size;
	b = malloc(*n);
	f = fopen(path, "rb");
	ASSERT_TRUE(f && fread(b, 1, *n, f) == *n);
	fclose(f);
	return b;
}

/* The offset of the first chunk of @type in the file @b, or 0. */
static size_t find_chunk(const uint8_t *b, size_t n, uint32_t type)
{
	size_t off = sizeof(struct bts_file_header);

	while (off + 8 <= n) {
		uint32_t t, len;

		memcpy(&t, b + off, 4);
		memcpy(&len, b + off + 4, 4);
		if (BTS_CHUNK_TYPE(t) == type)
			return off;
		off += 8 + len + (8 - len % 8) % 8;
	}
	return 0;
}

/* The records of thread 0 of the trace at @b, or an error; *@n of them. */
static int read_all(const uint8_t *b, size_t len, struct ptbts_record *r,
		    size_t *n)
{
	uint8_t *copy = malloc(len);
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	int err;

	/* An exact-size heap copy: ASan sees a read past the end. */
	memcpy(copy, b, len);
	*n = 0;
	err = bts_trace_new_mem(copy, len, &t);
	if (!err) {
		ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
		while (*n < NRECS && bts_rec_iter_next(it, &r[*n]) == 1)
			++*n;
		bts_rec_iter_free(it);
		bts_trace_free(t);
	}
	free(copy);
	return err;
}

struct sample {
	struct ptbts_record r[NRECS];
	size_t n;
	unsigned int rounds;
	uint8_t *b;		/* the tnt file */
	size_t len;
	size_t chunk;		/* its RECORDS_TNT chunk */
	uint32_t plen;
};

static void sample(struct sample *s)
{
	char *path = tpath("tnt-sample.btr");

	s->n = program_records(s->r, &s->rounds);
	write_program(path, s->r, s->n);
	if (bts_trace_tnt_file(path))
		FAIL("%s", bts_errdetail());
	s->b = slurp(path, &s->len);
	s->chunk = find_chunk(s->b, s->len, BTS_CHUNK_RECORDS_TNT);
	ASSERT_NE(s->chunk, (size_t)0);
	ASSERT_GT(s->rounds, 22u);
	memcpy(&s->plen, s->b + s->chunk + 4, 4);
	free(path);
}

TEST(trace_tnt, records_come_back_exactly)
{
	struct ptbts_record got[NRECS];
	struct bts_chunk_records_tnt h;
	struct bts_trace *t;
	uint32_t nbits;
	struct sample s;
	size_t n;

	sample(&s);
	ASSERT_EQ(read_all(s.b, s.len, got, &n), 0);
	ASSERT_EQ(n, s.n);
	for (size_t i = 0; i < n; i++)
		if (memcmp(&got[i], &s.r[i], sizeof(got[i])))
			FAIL("record %zu: 0x%llx -> 0x%llx flags 0x%llx, wrote 0x%llx -> 0x%llx flags 0x%llx",
			     i, (unsigned long long)got[i].from,
			     (unsigned long long)got[i].to,
			     (unsigned long long)got[i].flags,
			     (unsigned long long)s.r[i].from,
			     (unsigned long long)s.r[i].to,
			     (unsigned long long)s.r[i].flags);
	ASSERT_EQ(bts_trace_new_mem(s.b, s.len, &t), 0);
	EXPECT_EQ(bts_trace_format(t), BTS_FORMAT_TNT);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, (uint64_t)s.n);
	bts_trace_free(t);
	/*
	 * Walked: a bit per conditional branch, taken or not; the ret goes
	 * where the call stack says; the indirect jump's target the first
	 * time, then a bit (its last target again or not) and its target
	 * when not (rounds 12, 13 and 20); after going to 0, it has no last
	 * target (rounds 21 and 22: no bit, the target).  Given whole,
	 * without bits: the first record, the signal and its return, the
	 * marker, the record after the jump elsewhere (0x0f: not where a
	 * walk from 0x0e goes) and those after the jumps to 0.
	 */
	memcpy(&h, s.b + s.chunk + 8, sizeof(h));
	/* Not optional: a reader that does not know it refuses the file. */
	EXPECT_EQ(s.b[s.chunk + 3], 0);
	EXPECT_EQ(h.count, (uint32_t)s.n);
	EXPECT_EQ(h.codec, (uint32_t)BTS_CODEC_TNT_ZSTD);
	nbits = 0;
	for (unsigned int round = 1; round <= s.rounds; round++)
		nbits += round % 7 + 1 + (round > 1);
	EXPECT_EQ(h.nbits, nbits - 3);
	/* Targets of a byte (rounds 1, 12, 13, 22), four bytes to 0 (20, 21). */
	EXPECT_EQ(h.raw_len - (h.nbits + 7) / 8 - h.esc_len, 4u + 2 * 4);
	free(s.b);
}

/* Whether @b opens into exactly @s's records. */
static bool reads_as_written(const uint8_t *b, size_t len,
			     const struct sample *s)
{
	struct ptbts_record got[NRECS];
	size_t n;

	return !read_all(b, len, got, &n) && n == s->n &&
	       !memcmp(got, s->r, n * sizeof(*got));
}

/*
 * Any changed bit of the tnt chunk is refused, or decodes to exactly the
 * records written (zstd's frame has a few bits that change nothing); a
 * bit elsewhere gives a trace or an error, never a crash.
 */
TEST(trace_tnt, every_bit_flip_in_the_chunk_is_refused_or_harmless)
{
	struct sample s;
	size_t lo, hi;

	sample(&s);
	/* From its count on: a pid or tid of another thread is a trace too. */
	lo = s.chunk + 8 + 8;
	hi = s.chunk + 8 + s.plen;
	for (size_t bit = 0; bit < s.len * 8; bit++) {
		size_t at = bit / 8, n;
		struct ptbts_record got[NRECS];
		int err;

		s.b[at] ^= 1u << (bit % 8);
		err = read_all(s.b, s.len, got, &n);
		if (at >= lo && at < hi && !err && !reads_as_written(s.b, s.len, &s))
			FAIL("bit %zu (byte %zu of the chunk) went unnoticed", bit,
			     at - s.chunk - 8);
		s.b[at] ^= 1u << (bit % 8);
		if (err && err != -BTS_E_FORMAT && err != -BTS_E_VERSION &&
		    err != -BTS_E_TRUNCATED && err != -BTS_E_DECODE)
			FAIL("bit %zu: error %d", bit, err);
		if (err && !bts_errdetail()[0])
			FAIL("bit %zu: no detail", bit);
	}
	free(s.b);
}

TEST(trace_tnt, every_truncation_is_refused)
{
	struct ptbts_record got[NRECS];
	struct sample s;
	size_t n;

	sample(&s);
	for (size_t len = 0; len < s.len; len++) {
		int err = read_all(s.b, len, got, &n);

		if (err != -BTS_E_TRUNCATED && err != -BTS_E_FORMAT)
			FAIL("cut at %zu: error %d", len, err);
	}
	free(s.b);
}

static void expect_error(const struct sample *s, int want, const char *why)
{
	struct ptbts_record got[NRECS];
	char msg[400];
	size_t n;

	EXPECT_EQ(read_all(s->b, s->len, got, &n), want);
	snprintf(msg, sizeof(msg), why, s->chunk);
	EXPECT_STREQ(bts_errdetail(), msg);
}

/* Each header field out of its bounds, with its message. */
TEST(trace_tnt, a_bad_header_is_refused_with_its_reason)
{
	struct bts_chunk_records_tnt h;
	struct sample s;
	uint8_t *at;

	sample(&s);
	at = s.b + s.chunk + 8;
	memcpy(&h, at, sizeof(h));
	at[offsetof(struct bts_chunk_records_tnt, codec)] = BTS_CODEC_DELTA_ZSTD;
	expect_error(&s, -BTS_E_FORMAT,
		     "offset %zu: tnt records chunk: unknown codec or reserved field");
	memcpy(at, &h, sizeof(h));
	at[offsetof(struct bts_chunk_records_tnt, reserved)] = 1;
	expect_error(&s, -BTS_E_FORMAT,
		     "offset %zu: tnt records chunk: unknown codec or reserved field");
	memcpy(at, &h, sizeof(h));
	memset(at + offsetof(struct bts_chunk_records_tnt, nbits), 0xff, 4);
	expect_error(&s, -BTS_E_FORMAT,
		     "offset %zu: tnt records chunk: count or sizes out of bounds");
	memcpy(at, &h, sizeof(h));
	memset(at + offsetof(struct bts_chunk_records_tnt, count), 0, 4);
	expect_error(&s, -BTS_E_FORMAT,
		     "offset %zu: tnt records chunk: count or sizes out of bounds");
	memcpy(at, &h, sizeof(h));
	at[offsetof(struct bts_chunk_records_tnt, code_hash)] ^= 1;
	expect_error(&s, -BTS_E_DECODE,
		     "offset %zu: the tnt records of thread 100 need the code they were encoded against: a file the trace maps has changed since it was recorded (the code's hash differs)");
	free(s.b);
}

/* The code the records were encoded against, changed: refused, never decoded. */
TEST(trace_tnt, other_code_is_refused)
{
	size_t code_at;
	struct sample s;

	sample(&s);
	/* The CODE chunk's bytes: dec %rax becomes dec %rcx. */
	code_at = find_chunk(s.b, s.len, BTS_CHUNK_CODE);
	ASSERT_NE(code_at, (size_t)0);
	ASSERT_EQ(s.b[code_at + 8 + sizeof(struct bts_chunk_code) + 2], 0xc8);
	s.b[code_at + 8 + sizeof(struct bts_chunk_code) + 2] = 0xc9;
	expect_error(&s, -BTS_E_DECODE,
		     "offset %zu: the tnt records of thread 100 need the code they were encoded against: a file the trace maps has changed since it was recorded (the code's hash differs)");
	/* The jne's target moved: the walk ends elsewhere. */
	s.b[code_at + 8 + sizeof(struct bts_chunk_code) + 2] = 0xc8;
	s.b[code_at + 8 + sizeof(struct bts_chunk_code) + 4] = 0xfc;
	expect_error(&s, -BTS_E_DECODE,
		     "offset %zu: the tnt records of thread 100 need the code they were encoded against: a file the trace maps has changed since it was recorded (the code's hash differs)");
	free(s.b);
}
