// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The instruction decoder on traces written here, over a code file written
 * here: exact entry sequences for a well-formed trace, for a signal, and
 * for corrupted records, each of which must become an explicit gap.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"

#define BASE 0x10000ULL

/*
 *	0x00 xor %rax,%rax	0x03 call 0x10		0x08 nop
 *	0x09 jz 0x10		0x0b jmp 0x00		0x0d nop x3
 *	0x10 nop		0x11 ret		0x12 ud2
 *	0x14 ff ff (no instruction)
 */
static const uint8_t code[] = {
	0x48, 0x31, 0xc0, 0xe8, 0x08, 0x00, 0x00, 0x00, 0x90, 0x74, 0x05,
	0xeb, 0xf3, 0x90, 0x90, 0x90, 0x90, 0xc3, 0x0f, 0x0b, 0xff, 0xff,
};

struct want {
	uint64_t ip;		/* 0: a gap */
	int iclass;		/* or the gap reason */
	uint16_t flags;
	uint64_t gap_arg;
};

#define BR(f, t)	{ BASE + (f), BASE + (t), 0 }
#define SIG(f, t)	{ BASE + (f), BASE + (t), PTBTS_MKKIND(PTBTS_KIND_SIGNAL) }
#define LOST(n)		{ 0, (n), PTBTS_MKKIND(PTBTS_KIND_LOST) }

static char *write_code(void)
{
	char *path = harness_path(harness_tmpdir(), "code.bin");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, code, sizeof(code)), (ssize_t)sizeof(code));
	close(fd);
	return path;
}

static struct bts_trace *make_trace(const struct ptbts_record *recs, size_t n)
{
	char *code_path = write_code();
	char *path = harness_path(harness_tmpdir(), "t.btr");
	struct bts_map m = {
		.start = BASE, .end = BASE + 0x1000, .prot = 5, .path = code_path,
	};
	struct bts_writer *w;
	struct bts_trace *t;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 10, 1, code_path), 0);
	ASSERT_EQ(bts_writer_map(w, 10, &m), 0);
	ASSERT_EQ(bts_writer_thread(w, 10, 10), 0);
	ASSERT_EQ(bts_writer_records(w, 10, 10, recs, n), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	free(path);
	free(code_path);
	return t;
}

static void expect_entries(struct bts_trace *t, const struct want *want,
			   size_t n)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	size_t i = 0;

	ASSERT_EQ(bts_insn_decoder_new(t, 0, NULL, &d), 0);
	for (; bts_insn_next(d, &e, sizeof(e)) > 0; i++) {
		if (i >= n)
			FAIL("entry %zu past the %zu expected, at 0x%llx", i + 1,
			     n, (unsigned long long)e.ip);
		EXPECT_EQ(e.index, (uint64_t)i + 1);
		EXPECT_EQ(e.ip, want[i].ip);
		EXPECT_EQ(e.flags, want[i].flags);
		if (want[i].ip) {
			EXPECT_EQ(e.iclass, want[i].iclass);
			EXPECT_EQ(e.raw[0], code[e.ip - BASE]);
		} else {
			EXPECT_EQ(e.iclass, BTS_ICLASS_GAP);
			EXPECT_EQ(e.gap, (uint32_t)want[i].iclass);
			EXPECT_EQ(e.gap_arg, want[i].gap_arg);
		}
	}
	EXPECT_EQ(i, n);
	EXPECT_EQ(bts_insn_next(d, &e, sizeof(e)), 0);
	bts_insn_decoder_free(d);
}

#define I(off, cls, fl)	{ BASE + (off), BTS_ICLASS_##cls, (fl), 0 }
#define GAP(r, arg)	{ 0, BTS_GAP_##r, 0, (arg) }
#define TK	BTS_IF_TAKEN
#define RS	BTS_IF_RESYNC

static const struct ptbts_record good[] = {
	BR(0x03, 0x10), BR(0x11, 0x08), BR(0x0b, 0x00), BR(0x03, 0x10),
};

TEST(decode, exact_sequence)
{
	static const struct want want[] = {
		I(0x03, CALL, TK | RS),		/* before: unknown */
		I(0x10, OTHER, 0), I(0x11, RETURN, TK),
		I(0x08, OTHER, 0), I(0x09, COND, 0), I(0x0b, JUMP, TK),
		I(0x00, OTHER, 0), I(0x03, CALL, TK),
		I(0x10, OTHER, BTS_IF_TAIL),	/* up to the ret, exclusive */
	};
	struct bts_trace *t = make_trace(good, 4);

	expect_entries(t, want, sizeof(want) / sizeof(want[0]));
	bts_trace_free(t);
}

TEST(decode, signal_before_from)
{
	static const struct ptbts_record recs[] = {
		BR(0x03, 0x10), SIG(0x11, 0x00), BR(0x03, 0x10),
	};
	static const struct want want[] = {
		I(0x03, CALL, TK | RS),
		I(0x10, OTHER, 0),		/* the ret did not run */
		I(0x00, OTHER, BTS_IF_SIGNAL), I(0x03, CALL, TK),
		I(0x10, OTHER, BTS_IF_TAIL),
	};
	struct bts_trace *t = make_trace(recs, 3);

	expect_entries(t, want, sizeof(want) / sizeof(want[0]));
	bts_trace_free(t);
}

TEST(decode, corrupted_records_are_gaps)
{
	static const struct ptbts_record recs[] = {
		BR(0x03, 0x10),
		BR(0x08, 0x00),		/* no path from 0x10; a nop is no branch */
		BR(0x03, 0x800),	/* 0x800 lies past the file */
		LOST(7),
		BR(0x0b, 0x14),		/* 0x14 is no instruction */
		BR(0x11, 0x09),
		{ 0x20000, BASE, 0 },	/* nothing maps 0x20000 */
	};
	static const struct want want[] = {
		I(0x03, CALL, TK | RS),
		GAP(NO_PATH, BASE + 0x08), GAP(NOT_BRANCH, BASE + 0x08),
		I(0x00, OTHER, RS), I(0x03, CALL, TK),
		GAP(LOST, 7),
		I(0x0b, JUMP, TK | RS),
		GAP(UNDECODABLE, BASE + 0x14),
		I(0x11, RETURN, TK | RS),
		GAP(NO_PATH, 0x20000), GAP(NOCODE, 0x20000),
		I(0x00, OTHER, BTS_IF_TAIL | RS),
	};
	struct bts_trace *t = make_trace(recs, sizeof(recs) / sizeof(recs[0]));

	expect_entries(t, want, sizeof(want) / sizeof(want[0]));
	bts_trace_free(t);
}

TEST(decode, block_cache_of_one_block)
{
	/* A cache of one block empties itself on every new block. */
	BTS_OPTS(bts_decoder_opts, opts, .cache_blocks = 1);
	struct bts_trace *t = make_trace(good, 4);
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	uint64_t n = 0;

	ASSERT_EQ(bts_insn_decoder_new(t, 0, &opts, &d), 0);
	while (bts_insn_next(d, &e, sizeof(e)) > 0)
		n++;
	EXPECT_EQ(n, (uint64_t)9);
	bts_insn_decoder_free(d);
	EXPECT_EQ(bts_insn_decoder_new(t, 1, NULL, &d), -BTS_E_INVAL);
	bts_trace_free(t);
}

TEST(decode, options_of_a_newer_libbts_read_only_with_a_zero_tail)
{
	struct {
		struct bts_decoder_opts o;
		uint64_t newer;
	} dec = { .o = { .sz = sizeof(dec), .cache_blocks = 1 }, .newer = 1 };
	struct {
		struct bts_calls_opts o;
		uint64_t newer;
	} calls = { .o = { .sz = sizeof(calls) }, .newer = 1 };
	struct bts_trace *t = make_trace(good, 4);
	struct bts_call_history *h = NULL;
	struct bts_insn_decoder *d = NULL;

	/* an option this libbts does not know, set: refused, not ignored */
	EXPECT_EQ(bts_insn_decoder_new(t, 0, &dec.o, &d), -BTS_E_INVAL);
	EXPECT_TRUE(strstr(bts_errdetail(), "decoder options") != NULL);
	EXPECT_EQ(bts_call_history_new(t, 0, &calls.o, &h), -BTS_E_INVAL);
	EXPECT_TRUE(strstr(bts_errdetail(), "call history options") != NULL);
	dec.newer = 0;
	calls.newer = 0;
	ASSERT_EQ(bts_insn_decoder_new(t, 0, &dec.o, &d), 0);
	bts_insn_decoder_free(d);
	ASSERT_EQ(bts_call_history_new(t, 0, &calls.o, &h), 0);
	EXPECT_EQ(bts_call_history_count(h), 4u);
	bts_call_history_free(h);
	bts_trace_free(t);
}

TEST(decode, segments_without_symbols)
{
	/* No names: calls and returns alone shape the history. */
	static const struct { int entry, level; uint64_t first, last; } want[] = {
		{ BTS_SEG_START, 0, 1, 1 }, { BTS_SEG_CALL, 1, 2, 3 },
		{ BTS_SEG_RETURN, 0, 4, 8 }, { BTS_SEG_CALL, 1, 9, 9 },
	};
	struct bts_trace *t = make_trace(good, 4);
	struct bts_call_history *h;

	ASSERT_EQ(bts_call_history_new(t, 0, NULL, &h), 0);
	ASSERT_EQ(bts_call_history_count(h), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < bts_call_history_count(h); i++) {
		const struct bts_segment *s = bts_call_history_segment(h, i);

		EXPECT_EQ(s->number, (uint64_t)i + 1);
		EXPECT_EQ(s->entry, want[i].entry);
		EXPECT_EQ(s->level, want[i].level);
		EXPECT_EQ(s->first, want[i].first);
		EXPECT_EQ(s->last, want[i].last);
		EXPECT_TRUE(s->function == NULL);
	}
	EXPECT_EQ(bts_call_history_insns(h), (uint64_t)9);
	EXPECT_EQ(bts_call_history_gaps(h), (uint64_t)0);
	EXPECT_TRUE(bts_call_history_segment(h, 4) == NULL);
	bts_call_history_free(h);
	bts_trace_free(t);
}

TEST(decode, gap_segments)
{
	static const struct ptbts_record recs[] = {
		BR(0x03, 0x10), LOST(3), BR(0x11, 0x08),
	};
	struct bts_trace *t = make_trace(recs, 3);
	struct bts_call_history *h;
	const struct bts_segment *s;

	ASSERT_EQ(bts_call_history_new(t, 0, NULL, &h), 0);
	/*
	 * call | gap | ret | nop, jz (the tail stops before the jmp): the
	 * ret returns to a caller the history does not hold.
	 */
	ASSERT_EQ(bts_call_history_count(h), (size_t)4);
	s = bts_call_history_segment(h, 1);
	EXPECT_EQ(s->entry, BTS_SEG_GAP);
	EXPECT_EQ(s->gap, (uint32_t)BTS_GAP_LOST);
	EXPECT_EQ(s->gap_arg, (uint64_t)3);
	EXPECT_EQ(s->first, (uint64_t)2);
	s = bts_call_history_segment(h, 2);
	EXPECT_EQ(s->entry, BTS_SEG_START);
	EXPECT_EQ(s->first, (uint64_t)3);
	EXPECT_EQ(s->last, (uint64_t)3);
	s = bts_call_history_segment(h, 3);
	EXPECT_EQ(s->entry, BTS_SEG_RETURN);
	EXPECT_EQ(s->level + 1, bts_call_history_segment(h, 2)->level);
	EXPECT_EQ(s->first, (uint64_t)4);
	EXPECT_EQ(s->last, (uint64_t)5);
	EXPECT_EQ(bts_call_history_gaps(h), (uint64_t)1);
	EXPECT_STREQ(bts_gap_name(BTS_GAP_LOST), "lost");
	bts_call_history_free(h);
	bts_trace_free(t);
}

TEST(decode, cursor_hands_out_segments_one_by_one)
{
	static const struct ptbts_record recs[] = {
		BR(0x03, 0x10), LOST(3), BR(0x11, 0x08),
	};
	/* Levels from the first segment's 0: the ret returns past it. */
	static const struct { int entry, level; uint64_t first, ip; } want[] = {
		{ BTS_SEG_START, 0, 1, BASE + 0x03 }, { BTS_SEG_GAP, 0, 2, 0 },
		{ BTS_SEG_START, 0, 3, BASE + 0x11 },
		{ BTS_SEG_RETURN, -1, 4, BASE + 0x08 },
	};
	struct bts_trace *t = make_trace(recs, 3);
	struct bts_call_cursor *c;
	struct bts_segment s;
	size_t n = 0;
	int ret;

	ASSERT_EQ(bts_call_cursor_new(t, 0, NULL, &c), 0);
	EXPECT_TRUE(bts_call_cursor_decoder(c) != NULL);
	while ((ret = bts_call_cursor_next(c, &s, sizeof(s))) > 0) {
		ASSERT_LT(n, sizeof(want) / sizeof(want[0]));
		EXPECT_EQ(s.number, (uint64_t)n + 1);
		EXPECT_EQ(s.entry, want[n].entry);
		EXPECT_EQ(s.level, want[n].level);
		EXPECT_EQ(s.first, want[n].first);
		EXPECT_EQ(s.ip, want[n].ip);
		n++;
	}
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(n, sizeof(want) / sizeof(want[0]));
	EXPECT_EQ(bts_call_cursor_min_level(c), -1);
	EXPECT_EQ(bts_call_cursor_next(c, &s, sizeof(s)), 0);
	bts_call_cursor_free(c);
	bts_trace_free(t);
}

/* Whether the @n bytes at @p are all @byte: bytes no fill may touch. */
static bool all_bytes(const void *p, size_t n, uint8_t byte)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != byte)
			return false;
	return true;
}

TEST(decode, cursor_fills_the_size_it_is_given)
{
	struct {
		struct bts_segment s;
		uint64_t newer;
	} big;
	struct bts_trace *t = make_trace(good, 4);
	struct bts_call_cursor *c;
	struct bts_segment s;
	const size_t head = sizeof(s.number);

	EXPECT_EQ(bts_call_cursor_new(NULL, 0, NULL, &c), -BTS_E_INVAL);
	EXPECT_EQ(bts_call_cursor_new(t, 9, NULL, &c), -BTS_E_INVAL);
	ASSERT_EQ(bts_call_cursor_new(t, 0, NULL, &c), 0);
	/* Refused, nothing written, and no segment lost. */
	memset(&s, 0xa5, sizeof(s));
	EXPECT_EQ(bts_call_cursor_next(c, &s, 0), -BTS_E_INVAL);
	EXPECT_TRUE(all_bytes(&s, sizeof(s), 0xa5));
	EXPECT_EQ(bts_call_cursor_next(NULL, &s, sizeof(s)), -BTS_E_INVAL);
	EXPECT_EQ(bts_call_cursor_next(c, NULL, sizeof(s)), -BTS_E_INVAL);
	/* An older caller's struct: only the bytes it has. */
	ASSERT_EQ(bts_call_cursor_next(c, &s, head), 1);
	EXPECT_EQ(s.number, (uint64_t)1);
	EXPECT_TRUE(all_bytes((uint8_t *)&s + head, sizeof(s) - head, 0xa5));
	/* A newer one's: every field this library knows, the rest untouched. */
	memset(&big, 0xa5, sizeof(big));
	ASSERT_EQ(bts_call_cursor_next(c, &big.s, sizeof(big)), 1);
	EXPECT_EQ(big.s.number, (uint64_t)2);
	EXPECT_EQ(big.s.entry, BTS_SEG_CALL);
	EXPECT_EQ(big.s.level, 1);
	EXPECT_EQ(big.s.first, (uint64_t)2);
	EXPECT_EQ(big.s.last, (uint64_t)3);
	EXPECT_TRUE(big.s.function == NULL);
	EXPECT_TRUE(big.s.object == NULL);
	EXPECT_EQ(big.s.ip, BASE + 0x10);
	EXPECT_TRUE(all_bytes(&big.newer, sizeof(big.newer), 0xa5));
	bts_call_cursor_free(c);
	bts_call_cursor_free(NULL);
	bts_trace_free(t);
}
