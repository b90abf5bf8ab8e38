// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The images of a process (one per exec) and the view of the whole
 * process the decoder reads: each image holds its own maps and code
 * copies; the whole view lays every image's over the ones before it.
 */
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "harness.h"

struct want_map {
	uint64_t start, end, offset;
	const char *path;
};

static void expect_maps(const struct bts_map *maps, size_t n,
			const struct want_map *want, size_t nwant)
{
	ASSERT_EQ(n, nwant);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(maps[i].start, want[i].start);
		EXPECT_EQ(maps[i].end, want[i].end);
		EXPECT_EQ(maps[i].offset, want[i].offset);
		EXPECT_STREQ(maps[i].path, want[i].path);
	}
}

static void write_map(struct bts_writer *w, pid_t pid, uint64_t start,
		      uint64_t end, uint64_t offset, const char *path)
{
	struct bts_map m = {
		.start = start, .end = end, .offset = offset, .prot = 5,
		.path = (char *)path,
	};

	ASSERT_EQ(bts_writer_map(w, pid, &m), 0);
}

/*
 * Process 9: image 0 maps a and copies 0x100 bytes of 0xa1 at 0x1000;
 * its exec maps b over a's middle and copies 0x10 bytes of 0xb2 at 0x1080;
 * its second exec maps d across a and b, and c past a's end.  Process 10
 * never execs.
 */
static char *write_trace(void)
{
	char *path = harness_path(harness_tmpdir(), "images.btr");
	uint8_t a[0x100], b[0x10];
	struct bts_writer *w;

	memset(a, 0xa1, sizeof(a));
	memset(b, 0xb2, sizeof(b));
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 9, 1, "/bin/first"), 0);
	ASSERT_EQ(bts_writer_thread(w, 9, 9), 0);
	write_map(w, 9, 0x1000, 0x5000, 0, "a");
	ASSERT_EQ(bts_writer_code(w, 9, 0x1000, a, sizeof(a)), 0);
	ASSERT_EQ(bts_writer_exec(w, 9, 9, "/bin/second", 0x2010), 0);
	write_map(w, 9, 0x2000, 0x3000, 0x40000, "b");
	ASSERT_EQ(bts_writer_code(w, 9, 0x1080, b, sizeof(b)), 0);
	ASSERT_EQ(bts_writer_exec(w, 9, 9, "/bin/third", 0x4000), 0);
	write_map(w, 9, 0x1800, 0x2800, 0, "d");
	write_map(w, 9, 0x4000, 0x6000, 0x1000, "c");
	ASSERT_EQ(bts_writer_process(w, 10, 1, "/bin/other"), 0);
	write_map(w, 10, 0x1000, 0x2000, 0, "e");
	write_map(w, 10, 0x1400, 0x1800, 0, "f");
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	return path;
}

TEST(trace_images, each_image_keeps_its_own_maps_and_code)
{
	static const struct want_map img0[] = { { 0x1000, 0x5000, 0, "a" } };
	static const struct want_map img1[] = { { 0x2000, 0x3000, 0x40000, "b" } };
	static const struct want_map img2[] = {
		{ 0x1800, 0x2800, 0, "d" }, { 0x4000, 0x6000, 0x1000, "c" },
	};
	char *path = write_trace();
	const struct bts_image_info *im;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_nimages(t, 9), 3u);
	im = bts_trace_image(t, 9, 0);
	EXPECT_STREQ(im->exe, "/bin/first");
	EXPECT_EQ(im->tid, 0);
	expect_maps(im->maps, im->nmaps, img0, 1);
	ASSERT_EQ(im->ncode, 1u);
	EXPECT_EQ(im->code[0].addr, 0x1000u);
	EXPECT_EQ(im->code[0].len, 0x100u);
	im = bts_trace_image(t, 9, 1);
	EXPECT_STREQ(im->exe, "/bin/second");
	EXPECT_EQ(im->tid, 9);
	EXPECT_EQ(im->entry, 0x2010u);
	expect_maps(im->maps, im->nmaps, img1, 1);
	ASSERT_EQ(im->ncode, 1u);
	EXPECT_EQ(im->code[0].addr, 0x1080u);
	im = bts_trace_image(t, 9, 2);
	EXPECT_STREQ(im->exe, "/bin/third");
	expect_maps(im->maps, im->nmaps, img2, 2);
	EXPECT_EQ(im->ncode, 0u);
	EXPECT_TRUE(bts_trace_image(t, 9, 3) == NULL);
	bts_trace_free(t);
	free(path);
}

TEST(trace_images, the_whole_process_lays_later_images_over_earlier)
{
	static const struct want_map all9[] = {
		{ 0x1000, 0x1800, 0, "a" },
		{ 0x1800, 0x2800, 0, "d" },
		{ 0x2800, 0x3000, 0x40800, "b" },
		{ 0x3000, 0x4000, 0x2000, "a" },
		{ 0x4000, 0x6000, 0x1000, "c" },
	};
	static const struct want_map all10[] = {
		{ 0x1000, 0x1400, 0, "e" },
		{ 0x1400, 0x1800, 0, "f" },
		{ 0x1800, 0x2000, 0x800, "e" },
	};
	char *path = write_trace();
	const struct bts_image_info *im;
	const struct bts_code *code;
	const struct bts_map *maps;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	expect_maps(maps, bts_trace_maps(t, 9, &maps), all9, 5);
	ASSERT_EQ(bts_trace_code(t, 9, &code), 3u);
	EXPECT_EQ(code[0].addr, 0x1000u);
	EXPECT_EQ(code[0].len, 0x80u);
	EXPECT_EQ(code[0].bytes[0], 0xa1);
	EXPECT_EQ(code[1].addr, 0x1080u);
	EXPECT_EQ(code[1].len, 0x10u);
	EXPECT_EQ(code[1].bytes[0], 0xb2);
	EXPECT_EQ(code[2].addr, 0x1090u);
	EXPECT_EQ(code[2].len, 0x70u);
	EXPECT_EQ(code[2].bytes[0x6f], 0xa1);
	/* Without an exec, the process and its one image agree. */
	expect_maps(maps, bts_trace_maps(t, 10, &maps), all10, 3);
	ASSERT_EQ(bts_trace_nimages(t, 10), 1u);
	im = bts_trace_image(t, 10, 0);
	expect_maps(im->maps, im->nmaps, all10, 3);
	EXPECT_EQ(bts_trace_code(t, 10, &code), 0u);
	bts_trace_free(t);
	free(path);
}
