// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The compact record encoding (libbts/trace/codec.h) on its own: exact
 * bytes, exact round trips of any record, refusal of any damaged stream,
 * and the zstd frame checks.
 */
#include <stdlib.h>

#include <bts.h>

#include "trace/codec.h"
#include "harness.h"

#define NREC 20000

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: the same numbers on every run. */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ull;
}

/* Mostly near branches, sometimes far ones, markers and odd flags. */
static void random_records(struct ptbts_record *r, size_t n)
{
	static const uint64_t edge[] = { 0, 1, 0x7fffffffffffffffull,
					 0x8000000000000000ull, ~0ull };
	uint64_t pc = 0x555555554000ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = rnd() % 16;

		r[i].from = pc + rnd() % 64;
		r[i].to = r[i].from + (int64_t)(rnd() % 4096) - 2048;
		r[i].flags = k == 0 ? PTBTS_MKKIND(PTBTS_KIND_SIGNAL) : k == 1 ? 0x10 : 0;
		if (k == 2)
			r[i].to = rnd();
		if (k == 3)
			r[i].from = edge[rnd() % 5];
		if (k == 4)
			r[i] = (struct ptbts_record){ 0, rnd(), rnd() };
		if (k == 5)
			r[i] = (struct ptbts_record){ edge[rnd() % 5], edge[rnd() % 5],
						      edge[rnd() % 5] };
		pc = r[i].to;
	}
}

static void round_trip(const struct ptbts_record *r, size_t n)
{
	uint8_t *enc = malloc(n * BTS_CODEC_REC_MAX + 1);
	struct ptbts_record *back = calloc(n + 1, sizeof(*back));
	size_t len = bts_codec_encode(r, n, enc);

	ASSERT_LE(len, n * BTS_CODEC_REC_MAX);
	EXPECT_TRUE(bts_codec_decode(enc, len, back, n) == NULL);
	for (size_t i = 0; i < n; i++) {
		if (memcmp(&r[i], &back[i], sizeof(*r)))
			FAIL("record %zu: %llx %llx %llx came back as %llx %llx %llx", i,
			     (unsigned long long)r[i].from, (unsigned long long)r[i].to,
			     (unsigned long long)r[i].flags, (unsigned long long)back[i].from,
			     (unsigned long long)back[i].to, (unsigned long long)back[i].flags);
	}
	free(enc);
	free(back);
}

TEST(codec, round_trip_random)
{
	struct ptbts_record *r = calloc(NREC, sizeof(*r));

	random_records(r, NREC);
	round_trip(r, NREC);
	round_trip(r, 1);
	round_trip(r + 17, 333);
	free(r);
}

/* Every extreme value in every field, in every order. */
TEST(codec, round_trip_extremes)
{
	static const uint64_t v[] = { 0, 1, 63, 64, 0x7f, 0x80, 0x3fff,
				      0x7fffffffffffffffull, 0x8000000000000000ull,
				      ~0ull, ~0ull - 1 };
	struct ptbts_record r[11 * 11 * 11];
	size_t n = 0;

	for (size_t a = 0; a < 11; a++)
		for (size_t b = 0; b < 11; b++)
			for (size_t c = 0; c < 11; c++)
				r[n++] = (struct ptbts_record){ v[a], v[b], v[c] };
	round_trip(r, n);
}

/* The layout of codec.h, byte for byte. */
TEST(codec, exact_bytes)
{
	struct ptbts_record r[] = {
		{ 0x10, 0x20, 0 },	/* from - 0 = 16 -> 32, to - from = 16 -> 32 */
		{ 0x25, 0x10, 0 },	/* 5 -> 10; -21 -> 41 */
		{ 0, 7, PTBTS_MKKIND(PTBTS_KIND_LOST) },	/* -16 -> 31, flags */
		{ 0x11, 0x11, PTBTS_MKKIND(PTBTS_KIND_LOST) },	/* prev stays 0x10 */
		{ 0x1000, 0x1000, 0 },	/* 0xfef -> 0x1fde, flags back to 0 */
	};
	const uint8_t want[] = {
		32 << 1, 32,
		10 << 1, 41,
		(31 << 1) | 1, 0x80, 0x80, 0x80, 0x80, 0x90, 0x02, 14,
		2 << 1, 0,
		((0x1fde & 0x3f) << 1) | 1 | 0x80, 0x1fde >> 6, 0, 0,
	};
	uint8_t out[sizeof(r) / sizeof(r[0]) * BTS_CODEC_REC_MAX];
	size_t len = bts_codec_encode(r, 5, out);

	ASSERT_EQ(len, sizeof(want));
	for (size_t i = 0; i < len; i++)
		EXPECT_EQ(out[i], want[i]);
	round_trip(r, 5);
}

/* A loop's branch costs two bytes before compression. */
TEST(codec, a_loop_is_two_bytes_a_record)
{
	struct ptbts_record r[1000];
	uint8_t out[1000 * BTS_CODEC_REC_MAX];

	for (int i = 0; i < 1000; i++)
		r[i] = (struct ptbts_record){ 0x401010, 0x401000, 0 };

	/* The first record's from is 0x401010 - 0: four bytes. */
	EXPECT_EQ(bts_codec_encode(r, 1000, out), (size_t)(4 + 1 + 999 * 2));
}

static const char *decode(const uint8_t *in, size_t len, size_t n)
{
	struct ptbts_record r[8];

	return bts_codec_decode(in, len, r, n);
}

TEST(codec, refuses_damaged_streams)
{
	struct ptbts_record r[4];
	uint8_t enc[4 * BTS_CODEC_REC_MAX + 1];
	size_t len;
	static const uint8_t overlong[] = { 0x80, 0xff, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0xff, 0xff, 0x01, 0 };
	static const uint8_t too_big[] = { 0, 0xff, 0xff, 0xff, 0xff, 0xff,
					   0xff, 0xff, 0xff, 0xff, 0x02 };
	static const uint8_t same_flags[] = { 1, 0, 0 };

	random_records(r, 4);
	len = bts_codec_encode(r, 4, enc);
	for (size_t cut = 0; cut < len; cut++)
		EXPECT_TRUE(decode(enc, cut, 4) != NULL);
	enc[len] = 0;
	EXPECT_STREQ(decode(enc, len + 1, 4), "bytes after the last record");
	EXPECT_TRUE(decode(enc, len, 3) != NULL);
	EXPECT_STREQ(decode(overlong, sizeof(overlong), 1),
		     "a record's address is cut or overlong");
	EXPECT_STREQ(decode(too_big, sizeof(too_big), 1),
		     "a record's target is cut or overlong");
	EXPECT_STREQ(decode(same_flags, sizeof(same_flags), 1),
		     "a record's flags are cut, overlong or repeated");
	EXPECT_TRUE(decode(NULL, 0, 0) == NULL);
}

TEST(codec, zstd_frames)
{
	struct bts_zstd *z = bts_zstd_new();
	uint8_t in[5000], packed[6000], out[5001];
	long n;

	ASSERT_TRUE(z != NULL);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i % 7);
	n = bts_zstd_pack(z, in, sizeof(in), packed, sizeof(packed));
	ASSERT_GT(n, 0);
	ASSERT_LT(n, 200);
	EXPECT_TRUE(bts_zstd_unpack(z, packed, n, out, sizeof(in)) == NULL);
	EXPECT_EQ(memcmp(in, out, sizeof(in)), 0);
	EXPECT_STREQ(bts_zstd_unpack(z, packed, n, out, sizeof(in) + 1),
		     "the compressed data does not hold the size the chunk says");
	packed[n] = 0;
	EXPECT_STREQ(bts_zstd_unpack(z, packed, n + 1, out, sizeof(in)),
		     "the compressed data is not one whole zstd frame");
	EXPECT_STREQ(bts_zstd_unpack(z, packed, n - 1, out, sizeof(in)),
		     "the compressed data is not one whole zstd frame");
	EXPECT_STREQ(bts_zstd_unpack(z, "junk", 4, out, sizeof(in)),
		     "the compressed data is not one whole zstd frame");
	/*
	 * The checksum: a changed bit of the frame is refused, or (in bits
	 * the format leaves redundant) decodes to the very same bytes.
	 */
	for (long bit = 0; bit < n * 8; bit++) {
		packed[bit / 8] ^= 1u << (bit % 8);
		memset(out, 0, sizeof(out));
		if (!bts_zstd_unpack(z, packed, n, out, sizeof(in)) &&
		    memcmp(in, out, sizeof(in)))
			FAIL("bit %ld of the frame changed the data unnoticed", bit);
		packed[bit / 8] ^= 1u << (bit % 8);
	}
	bts_zstd_free(z);
}
