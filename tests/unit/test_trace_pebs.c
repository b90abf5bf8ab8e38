// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PEBS chunks: kmod-pebs's samples written by bts_writer_pebs(), read back
 * decoded; what the writer refuses, the damage the reader refuses, and the
 * same file read by a reader that does not know the chunk (its type made
 * an unknown optional one): the records are all there.  `btrace dump
 * --pebs` and `btrace stats` on such a file.
 */
#include <stdio.h>
#include <stdlib.h>

#include <bts.h>

#include "btrace_run.h"
#include "harness.h"
#include "trace/trace_format.h"

#define PID 100

static const struct ptbts_record branches[] = {
	{ 0x401000, 0x401100, 0 },
	{ 0x401105, 0x401000, 0 },
};

/* Format 3 (Skylake): 25 words; @k marks record k. */
static void fmt3(uint64_t r[25], uint64_t k)
{
	for (int i = 0; i < 25; i++)
		r[i] = 1000 * k + i;
	r[0] = 0x246;			/* rflags */
	r[1] = 0x401105;		/* the ip after */
	r[18] = 1;			/* applicable: counter 0 */
	r[22] = 0x401100 + k;		/* the eventing ip */
	r[24] = 5000 + k;		/* tsc */
}

/* Adaptive, the basic group only: format_size, ip, applicable, tsc. */
static void fmt4(uint64_t r[4], uint64_t k)
{
	r[0] = 32ULL << 48;
	r[1] = 0x401000 + k;
	r[2] = 1;
	r[3] = 7000 + k;
}

static char *write_trace(const char *name, uint64_t nfmt4)
{
	char *path = harness_path(harness_tmpdir(), name);
	uint64_t r3[2][25], (*r4)[4] = calloc(nfmt4 + 1, sizeof(*r4));
	struct bts_pebs_batch b = {
		.format = 3, .record_size = 200, .event = 0xc4, .period = 7,
		.records = r3, .count = 2,
	};
	struct bts_writer *w;

	fmt3(r3[0], 0);
	fmt3(r3[1], 1);
	for (uint64_t k = 0; k < nfmt4; k++)
		fmt4(r4[k], k);
	if (bts_writer_new(path, &w) ||
	    bts_writer_session(w, PTBTS_SOURCE_KMOD_PEBS, PTBTS_MODE_BLOCK, 4096) ||
	    bts_writer_process(w, PID, 1, "/bin/prog") ||
	    bts_writer_thread(w, PID, PID) ||
	    bts_writer_records(w, PID, PID, branches, 2) ||
	    bts_writer_pebs(w, PID, PID, &b))
		FAIL("writing %s: %s", path, bts_errdetail());
	b = (struct bts_pebs_batch){
		.format = 4, .record_size = 32, .event = 0x20c4, .period = 1,
		.lost = 3, .records = r4, .count = nfmt4,
	};
	if (bts_writer_thread(w, PID, PID + 1) ||
	    bts_writer_pebs(w, PID, PID + 1, &b) ||
	    bts_writer_records(w, PID, PID + 1, branches, 1) ||
	    bts_writer_finish(w))
		FAIL("writing %s: %s", path, bts_errdetail());
	bts_writer_free(w);
	free(r4);
	return path;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);

	if (!f || !b)
		FAIL("%s: %m", path);
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* The offset of the first chunk of @type (optional bit included). */
static size_t find_chunk(const uint8_t *b, size_t n, uint32_t type)
{
	size_t off = sizeof(struct bts_file_header);

	while (off + sizeof(struct bts_chunk_header) <= n) {
		struct bts_chunk_header h;

		memcpy(&h, b + off, sizeof(h));
		if (h.type == type)
			return off;
		off += sizeof(h) + h.len + bts_file_pad(h.len);
	}
	FAIL("no chunk of type 0x%x", type);
	return 0;
}

TEST(trace_pebs, samples_read_back_decoded)
{
	char *path = write_trace("pebs.btr", 2);
	const struct bts_pebs_sample *s;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_npebs(t), (size_t)4);
	EXPECT_EQ(bts_trace_pebs_lost(t), 3u);
	s = bts_trace_pebs(t, 1);
	EXPECT_EQ(s->pid, PID);
	EXPECT_EQ(s->tid, PID);
	EXPECT_EQ(s->format, 3u);
	EXPECT_EQ(s->event, 0xc4u);
	EXPECT_EQ(s->period, 7u);
	EXPECT_EQ(s->rec.ip, 0x401101u);
	EXPECT_TRUE(s->rec.ip_exact);
	EXPECT_TRUE(s->rec.has_regs);
	EXPECT_EQ(s->rec.regs[1], 1003u);	/* rbx */
	EXPECT_EQ(s->rec.flags, 0x246u);
	EXPECT_EQ(s->rec.tsc, 5001u);
	s = bts_trace_pebs(t, 3);
	EXPECT_EQ(s->tid, PID + 1);
	EXPECT_EQ(s->format, 4u);
	EXPECT_EQ(s->event, 0x20c4u);
	EXPECT_EQ(s->rec.ip, 0x401001u);
	EXPECT_FALSE(s->rec.has_regs);
	EXPECT_EQ(s->rec.tsc, 7001u);
	EXPECT_TRUE(bts_trace_pebs(t, 4) == NULL);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, 2u);
	EXPECT_EQ(bts_trace_thread(t, 1)->nrecords, 1u);
	bts_trace_free(t);
	free(path);
}

/* More than a chunk holds: split, the loss told once. */
TEST(trace_pebs, large_batches_split)
{
	char *path = write_trace("pebs-large.btr", 9000);
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_npebs(t), (size_t)9002);
	EXPECT_EQ(bts_trace_pebs_lost(t), 3u);
	EXPECT_EQ(bts_trace_pebs(t, 9001)->rec.ip, 0x401000u + 8999);
	bts_trace_free(t);
	free(path);
}

TEST(trace_pebs, writer_refuses_what_no_reader_takes)
{
	char *path = harness_path(harness_tmpdir(), "refused.btr");
	uint64_t r[25];
	struct bts_pebs_batch b = {
		.format = 3, .record_size = 200, .event = 0xc4, .period = 7,
		.records = r, .count = 1,
	};
	struct bts_writer *w;

	fmt3(r, 0);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	b.event = 0x1c4;
	EXPECT_EQ(bts_writer_pebs(w, PID, PID, &b), 0);
	b.event = 0x2c400;
	EXPECT_EQ(bts_writer_pebs(w, PID, PID, &b), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "PEBS event 0x2c400, period 7: an event has an "
		     "event select (bits 0-7) and a unit mask (bits 8-15) only");
	b.event = 0x2000;
	EXPECT_EQ(bts_writer_pebs(w, PID, PID, &b), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "PEBS event 0x2000, period 7: an event select "
		     "(bits 0-7) of 0 is no event");
	b.event = 0xc4;
	b.period = PTBTS_PEBS_PERIOD_MAX + 1;
	EXPECT_EQ(bts_writer_pebs(w, PID, PID, &b), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "PEBS event 0xc4, period 2147483648: a period "
		     "is 1 to 2147483647 events");
	b.period = 7;
	b.record_size = 192;
	EXPECT_EQ(bts_writer_pebs(w, PID, PID, &b), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "PEBS record 0 of format 3 is not 192 bytes: "
		     "PEBS record of format 3 needs 200 bytes, has 192");
	b.record_size = 200;
	b.count = 0;
	EXPECT_EQ(bts_writer_pebs(w, PID, PID, &b), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "a malformed PEBS batch");
	bts_writer_free(w);
	free(path);
}

static int open_patched(const uint8_t *b, size_t n, size_t at, uint32_t v)
{
	uint8_t *c = malloc(n);
	struct bts_trace *t;
	int err;

	memcpy(c, b, n);
	memcpy(c + at, &v, sizeof(v));
	err = bts_trace_new_mem(c, n, &t);
	if (!err)
		bts_trace_free(t);
	free(c);
	return err;
}

TEST(trace_pebs, damage_refused_at_its_offset)
{
	char *path = write_trace("damaged.btr", 2);
	size_t n, off;
	uint8_t *b = slurp(path, &n);
	char want[160];

	off = find_chunk(b, n, BTS_CHUNK_PEBS | BTS_CHUNK_OPTIONAL);
	/* count, at 8 + 16 */
	EXPECT_EQ(open_patched(b, n, off + 24, 3), -BTS_E_FORMAT);
	snprintf(want, sizeof(want), "offset %zu: pebs chunk: the count does not "
		 "match the chunk", off);
	EXPECT_STREQ(bts_errdetail(), want);
	/* reserved, at 8 + 20 */
	EXPECT_EQ(open_patched(b, n, off + 28, 1), -BTS_E_FORMAT);
	snprintf(want, sizeof(want), "offset %zu: pebs chunk: bad count, record "
		 "size or reserved field", off);
	EXPECT_STREQ(bts_errdetail(), want);
	/* event, at 8 + 24 */
	EXPECT_EQ(open_patched(b, n, off + 32, 0x100), -BTS_E_FORMAT);
	snprintf(want, sizeof(want), "offset %zu: pebs chunk: event 0x100, period 7: "
		 "an event select (bits 0-7) of 0 is no event", off);
	EXPECT_STREQ(bts_errdetail(), want);
	/* the tid, at 8 + 4: a thread the file never named */
	EXPECT_EQ(open_patched(b, n, off + 12, 555), -BTS_E_FORMAT);
	snprintf(want, sizeof(want), "offset %zu: pebs records of a thread that "
		 "has not appeared", off);
	EXPECT_STREQ(bts_errdetail(), want);
	/* format 2 records are 192 bytes, not 200 */
	EXPECT_EQ(open_patched(b, n, off + 16, 2), -BTS_E_FORMAT);
	snprintf(want, sizeof(want), "offset %zu: pebs record 0 of format 2 is "
		 "not 200 bytes", off);
	EXPECT_STREQ(bts_errdetail(), want);
	free(b);
	free(path);
}

/* An older libbts skips the chunk, as every unknown optional one. */
TEST(trace_pebs, reader_without_it_reads_the_records)
{
	char *path = write_trace("older.btr", 2);
	size_t n;
	uint8_t *b = slurp(path, &n);
	struct bts_trace *t;

	for (size_t o = sizeof(struct bts_file_header); o < n;) {
		uint32_t *type = (uint32_t *)(b + o), len = type[1];

		if (*type == (BTS_CHUNK_PEBS | BTS_CHUNK_OPTIONAL))
			*type = 63 | BTS_CHUNK_OPTIONAL;
		o += sizeof(struct bts_chunk_header) + len + bts_file_pad(len);
	}
	ASSERT_EQ(bts_trace_new_mem(b, n, &t), 0);
	EXPECT_EQ(bts_trace_npebs(t), (size_t)0);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, 2u);
	EXPECT_EQ(bts_trace_thread(t, 1)->nrecords, 1u);
	bts_trace_free(t);
	free(b);
	free(path);
}

TEST(trace_pebs, dump_and_stats_show_them)
{
	char *path = write_trace("cli.btr", 2);
	struct harness_cmd c;

	ASSERT_EQ(harness_btrace(&c, 60, "dump", "--pebs", path, NULL), 0);
	EXPECT_STREQ(c.out,
		"# pebs: 4 records, 3 lost; event 0xc4 every 7 events, format 3\n"
		"100 0 0x0000000000401100 rax 0x2 rbx 0x3 rcx 0x4 rdx 0x5 rsi 0x6 "
		"rdi 0x7 rbp 0x8 rsp 0x9 r8 0xa r9 0xb r10 0xc r11 0xd r12 0xe "
		"r13 0xf r14 0x10 r15 0x11 rflags 0x246 tsc 5000\n"
		"100 1 0x0000000000401101 rax 0x3ea rbx 0x3eb rcx 0x3ec rdx 0x3ed "
		"rsi 0x3ee rdi 0x3ef rbp 0x3f0 rsp 0x3f1 r8 0x3f2 r9 0x3f3 r10 0x3f4 "
		"r11 0x3f5 r12 0x3f6 r13 0x3f7 r14 0x3f8 r15 0x3f9 rflags 0x246 "
		"tsc 5001\n"
		"101 0 0x0000000000401000 tsc 7000\n"
		"101 1 0x0000000000401001 tsc 7001\n");
	harness_cmd_free(&c);
	ASSERT_EQ(harness_btrace(&c, 60, "dump", "--pebs", "--thread", "101",
				 path, NULL), 0);
	EXPECT_TRUE(harness_matches("^# pebs: 4 records.*\n101 0 .*\n101 1 [^\n]*\n$",
				    c.out));
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, 60, "dump", "--pebs", "--last", "2", path,
				 NULL), 2);
	EXPECT_STREQ(c.err, "btrace: dump: --pebs takes no --json, no range and "
		     "no filter\n");
	harness_cmd_free(&c);
	ASSERT_EQ(harness_btrace(&c, 60, "stats", path, NULL), 0);
	EXPECT_TRUE(harness_matches_lines("^    pebs          2$", c.out));
	EXPECT_TRUE(harness_matches("\npebs lost         3\n$", c.out));
	harness_cmd_free(&c);
	free(path);
}
