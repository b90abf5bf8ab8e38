// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The EXEC and CRASH chunks of a trace file: what the writer puts in is
 * what the reader gives back, and malformed or cut files give one clear
 * error, never a crash.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "test_oncrash.h"

static const struct bts_map map_a = {
	.start = 0x400000, .end = 0x401000, .prot = PROT_READ | PROT_EXEC,
	.path = (char *)"/bin/a",
};
static const struct bts_map map_b = {
	.start = 0x500000, .end = 0x502000, .offset = 0x1000,
	.prot = PROT_READ | PROT_EXEC, .path = (char *)"/bin/b",
};
static const uint8_t jit[4] = { 0x90, 0x90, 0xeb, 0xfc };

static struct bts_frame frames[3] = {
	{ .pc = 0x500010, .sp = 0x7ff000, .cfa = 0x7ff010 },
	{ .pc = 0x500100, .sp = 0x7ff010, .cfa = 0x7ff030 },
	{ .pc = 0x500200, .sp = 0x7ff400, .cfa = 0, .flags = BTS_FRAME_SIGNAL },
};

static char *write_crash_file(void)
{
	char *path = harness_path(harness_tmpdir(), "c.btr");
	struct ptbts_record rec = { 0x400010, 0x400020, 0 };
	struct bts_crash_thread th = { 0 };
	struct bts_crash_info ci = { 0 };
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_RING, 2400), 0);
	ASSERT_EQ(bts_writer_process(w, 100, 1, "/bin/a"), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 100), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 101), 0);
	ASSERT_EQ(bts_writer_map(w, 100, &map_a), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 100, &rec, 1), 0);
	ASSERT_EQ(bts_writer_exec(w, 100, 100, "/bin/b", 0x500000), 0);
	ASSERT_EQ(bts_writer_map(w, 100, &map_b), 0);
	ASSERT_EQ(bts_writer_code(w, 100, 0x600000, jit, sizeof(jit)), 0);
	ci.pid = 100;
	ci.tid = 101;
	ci.signo = SIGSEGV;
	ci.code = SEGV_MAPERR;
	ci.addr = 0xdead;
	for (size_t i = 0; i < sizeof(ci.siginfo); i++)
		ci.siginfo[i] = (uint8_t)i;
	ASSERT_EQ(bts_writer_crash(w, &ci), 0);
	th.tid = 101;
	th.crashed = true;
	th.has_regs = true;
	th.regs.rip = 0x500010;
	th.regs.rsp = 0x7ff000;
	th.regs.gs = 0x2b;
	th.nframes = 3;
	th.frames = frames;
	th.unwind_error = "libunwind: the end";
	ASSERT_EQ(bts_writer_crash_thread(w, 100, &th), 0);
	memset(&th, 0, sizeof(th));
	th.tid = 100;
	ASSERT_EQ(bts_writer_crash_thread(w, 100, &th), 0);
	ASSERT_EQ(bts_writer_exit(w, 100, 0, SIGSEGV), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	return path;
}

TEST(oncrash_format, written_is_read_back)
{
	const struct bts_image_info *im;
	const struct bts_crash_thread *th;
	const struct bts_crash_info *ci;
	const struct bts_map *maps;
	char *path = write_crash_file();
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	/* Images: the first with the process's exe, then the exec's. */
	ASSERT_EQ(bts_trace_nimages(t, 100), 2u);
	im = bts_trace_image(t, 100, 0);
	EXPECT_STREQ(im->exe, "/bin/a");
	EXPECT_EQ(im->tid, 0);
	ASSERT_EQ(im->nmaps, 1u);
	EXPECT_EQ(im->maps[0].start, 0x400000u);
	EXPECT_EQ(im->ncode, 0u);
	im = bts_trace_image(t, 100, 1);
	EXPECT_STREQ(im->exe, "/bin/b");
	EXPECT_EQ(im->tid, 100);
	EXPECT_EQ(im->entry, 0x500000u);
	ASSERT_EQ(im->nmaps, 1u);
	EXPECT_EQ(im->maps[0].offset, 0x1000u);
	ASSERT_EQ(im->ncode, 1u);
	EXPECT_EQ(memcmp(im->code[0].bytes, jit, sizeof(jit)), 0);
	EXPECT_TRUE(bts_trace_image(t, 100, 2) == NULL);
	EXPECT_EQ(bts_trace_nimages(t, 999), 0u);
	/* The union of the maps, as before. */
	EXPECT_EQ(bts_trace_maps(t, 100, &maps), 2u);
	/* The crash. */
	EXPECT_EQ(bts_trace_crashed(t), 100);
	ci = bts_trace_crash(t, 100);
	ASSERT_TRUE(ci != NULL);
	EXPECT_EQ(ci->tid, 101);
	EXPECT_EQ(ci->signo, SIGSEGV);
	EXPECT_EQ(ci->code, SEGV_MAPERR);
	EXPECT_EQ(ci->addr, 0xdeadu);
	EXPECT_EQ(ci->siginfo[127], 127);
	ASSERT_EQ(ci->nthreads, 2u);
	th = bts_trace_crash_thread(t, 100, 0);
	EXPECT_EQ(th->tid, 101);
	EXPECT_TRUE(th->crashed && th->has_regs);
	EXPECT_EQ(th->regs.rip, 0x500010u);
	EXPECT_EQ(th->regs.gs, 0x2bu);
	ASSERT_EQ(th->nframes, 3u);
	EXPECT_EQ(memcmp(th->frames, frames, sizeof(frames)), 0);
	EXPECT_STREQ(th->unwind_error, "libunwind: the end");
	th = bts_trace_crash_thread(t, 100, 1);
	EXPECT_EQ(th->tid, 100);
	EXPECT_FALSE(th->crashed || th->has_regs);
	EXPECT_EQ(th->regs.rip, 0u);
	EXPECT_EQ(th->nframes, 0u);
	EXPECT_TRUE(th->unwind_error == NULL);
	EXPECT_TRUE(bts_trace_crash_thread(t, 100, 2) == NULL);
	EXPECT_TRUE(bts_trace_crash(t, 101) == NULL);
	EXPECT_TRUE(bts_trace_process(t, 0)->exited);
	bts_trace_free(t);
	free(path);
}

/* A file whose only extra chunks are @parts; the open's error detail. */
static int open_with(void (*parts)(struct bts_writer *w), const char **why)
{
	char *path = harness_path(harness_tmpdir(), "bad.btr");
	struct bts_trace *t = NULL;
	struct bts_writer *w;
	int err;

	unlink(path);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 100, 1, "/bin/a"), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 100), 0);
	parts(w);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	err = bts_trace_new(path, &t);
	*why = bts_errdetail();
	bts_trace_free(t);
	free(path);
	return err;
}

static void thread_first(struct bts_writer *w)
{
	struct bts_crash_thread th = { .tid = 100 };

	ASSERT_EQ(bts_writer_crash_thread(w, 100, &th), 0);
}

static void wrong_crasher(struct bts_writer *w)
{
	struct bts_crash_info ci = { .pid = 100, .tid = 100, .signo = SIGBUS };
	struct bts_crash_thread th = { .tid = 101, .crashed = true };

	ASSERT_EQ(bts_writer_crash(w, &ci), 0);
	ASSERT_EQ(bts_writer_crash_thread(w, 100, &th), 0);
}

static void two_crashes(struct bts_writer *w)
{
	struct bts_crash_info ci = { .pid = 100, .tid = 100, .signo = SIGBUS };

	ASSERT_EQ(bts_writer_crash(w, &ci), 0);
	ASSERT_EQ(bts_writer_crash(w, &ci), 0);
}

static void stranger(struct bts_writer *w)
{
	struct bts_crash_info ci = { .pid = 7, .tid = 7, .signo = SIGBUS };

	ASSERT_EQ(bts_writer_crash(w, &ci), 0);
}

static void exec_stranger(struct bts_writer *w)
{
	ASSERT_EQ(bts_writer_exec(w, 8, 8, "/x", 0), 0);
}

TEST(oncrash_format, malformed_chunks_are_refused)
{
	const char *why;

	EXPECT_EQ(open_with(thread_first, &why), -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(why, "a thread part before the signal part") != NULL);
	EXPECT_EQ(open_with(wrong_crasher, &why), -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(why, "the crashed thread is not the signal's") != NULL);
	EXPECT_EQ(open_with(two_crashes, &why), -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(why, "a second crash of one process") != NULL);
	EXPECT_EQ(open_with(stranger, &why), -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(why, "crash of a process that has not appeared") != NULL);
	EXPECT_EQ(open_with(exec_stranger, &why), -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(why, "exec of a process that has not appeared") != NULL);
}

TEST(oncrash_format, writer_refuses_bad_crash_state)
{
	char *path = harness_path(harness_tmpdir(), "w.btr");
	struct bts_crash_info ci = { .pid = 100, .tid = 100, .signo = 0 };
	struct bts_crash_thread th = { .tid = 0 };
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	EXPECT_EQ(bts_writer_crash(w, &ci), -BTS_E_INVAL);
	ci.signo = 65;
	EXPECT_EQ(bts_writer_crash(w, &ci), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_crash_thread(w, 100, &th), -BTS_E_INVAL);
	th.tid = 5;
	th.nframes = 2;		/* and no frames */
	EXPECT_EQ(bts_writer_crash_thread(w, 100, &th), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_exec(w, 0, 1, "/x", 0), -BTS_E_INVAL);
	bts_writer_free(w);
	free(path);
}

/* Every cut of a crash file, and every byte flipped: an error or a trace, never a crash. */
TEST(oncrash_format, cut_or_corrupted_file_gives_an_error)
{
	char *path = write_crash_file();
	struct bts_trace *t;
	struct stat st;
	uint8_t *buf;
	int fd, err, cuts = 0;

	fd = open(path, O_RDONLY);
	ASSERT_TRUE(fd >= 0 && !fstat(fd, &st));
	buf = malloc(st.st_size);
	ASSERT_EQ(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	for (off_t n = 0; n < st.st_size; n++) {
		err = bts_trace_new_mem(buf, n, &t);
		EXPECT_TRUE(err == -BTS_E_TRUNCATED || err == -BTS_E_FORMAT);
		cuts += err == -BTS_E_TRUNCATED;
	}
	EXPECT_GT(cuts, 0);
	for (off_t i = 16; i < st.st_size; i++) {
		buf[i] ^= 0x41;
		err = bts_trace_new_mem(buf, st.st_size, &t);
		if (!err)
			bts_trace_free(t);
		else
			EXPECT_TRUE(strlen(bts_errdetail()) > 0);
		buf[i] ^= 0x41;
	}
	free(buf);
	free(path);
}
