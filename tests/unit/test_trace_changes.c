// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace file that changes while it is open (libbts/trace/reader_guard.c):
 * what the trace keeps of the file (paths, code copies) outlives the file
 * shrinking to nothing, and records read after the file shrank or was
 * changed are an error that says so, never other records or a SIGBUS.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"

#define PID 100
#define NRECS 2000
#define EXE "/usr/bin/some-program"
#define LIB "/usr/lib/some-library.so"

static struct ptbts_record rec(size_t i)
{
	return (struct ptbts_record){ 0x401000 + 16 * i, 0x402000 + 8 * i,
				      PTBTS_MKKIND(PTBTS_KIND_BRANCH) };
}

/* A raw trace: an exe, a map, a code copy, an exec and NRECS records. */
static char *write_trace(const char *name)
{
	char *path = harness_path(harness_tmpdir(), name);
	static struct ptbts_record recs[NRECS];
	struct bts_map m = {
		.start = 0x400000, .end = 0x500000, .prot = 5, .path = LIB,
	};
	struct bts_writer *w;

	for (size_t i = 0; i < NRECS; i++)
		recs[i] = rec(i);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_format(w, BTS_FORMAT_RAW), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(w, PID, 1, EXE), 0);
	ASSERT_EQ(bts_writer_map(w, PID, &m), 0);
	ASSERT_EQ(bts_writer_code(w, PID, 0x7fff0000, "0123456789", 10), 0);
	ASSERT_EQ(bts_writer_thread(w, PID, PID), 0);
	ASSERT_EQ(bts_writer_exec(w, PID, PID, EXE "-2", 0x401000), 0);
	ASSERT_EQ(bts_writer_records(w, PID, PID, recs, NRECS), 0);
	ASSERT_EQ(bts_writer_exit(w, PID, 0, 0), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	return path;
}

/* In a child (a SIGBUS must not end the suite): 0 when all was well. */
static int read_after_shrink(struct bts_trace *t)
{
	const struct bts_map *maps;
	const struct bts_code *code;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	int ret, n = 0;

	if (strcmp(bts_trace_process(t, 0)->exe, EXE))
		return 1;
	if (bts_trace_maps(t, PID, &maps) != 1 || strcmp(maps[0].path, LIB))
		return 2;
	if (bts_trace_code(t, PID, &code) != 1 || memcmp(code[0].bytes, "0123456789", 10))
		return 3;
	if (bts_trace_nimages(t, PID) != 2 || strcmp(bts_trace_image(t, PID, 1)->exe, EXE "-2"))
		return 4;
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	while ((ret = bts_rec_iter_next(it, &r)) > 0)
		n++;
	bts_rec_iter_free(it);
	if (ret != -BTS_E_IO || !strstr(bts_errdetail(), "shrank since it was opened"))
		return 5;
	return 0;
}

TEST(trace_changes, what_the_trace_keeps_outlives_the_file_shrinking)
{
	char *path = write_trace("shrink.btr");
	struct bts_trace *t;
	int status;
	pid_t pid;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	/* As "cp new.btr old.btr" starts: the file is truncated in place. */
	ASSERT_EQ(truncate(path, 0), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(read_after_shrink(t));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	if (WIFSIGNALED(status))
		harness_fail(__FILE__, __LINE__, "the reader died of signal %d",
			     WTERMSIG(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	bts_trace_free(t);
	unlink(path);
	free(path);
}

/* The offset in @path of the record @r. */
static off_t find_record(const char *path, const struct ptbts_record *r)
{
	static uint8_t buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf));

	close(fd);
	ASSERT_GT(n, (ssize_t)sizeof(*r));
	for (ssize_t i = 0; i + (ssize_t)sizeof(*r) <= n; i++)
		if (!memcmp(buf + i, r, sizeof(*r)))
			return i;
	FAIL("record not found in %s", path);
}

TEST(trace_changes, raw_records_changed_after_opening_are_an_error)
{
	char *path = write_trace("change.btr");
	struct ptbts_record r = rec(NRECS / 2), forged = rec(7);
	off_t at = find_record(path, &r);
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	struct bts_trace *t;
	struct bts_rec_iter *it = NULL;
	int fd, ret;
	size_t n;

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pwrite(fd, &forged, sizeof(forged), at), (ssize_t)sizeof(forged));
	close(fd);

	/* Never the forged record in place of record NRECS / 2. */
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	for (n = 0; (ret = bts_rec_iter_next(it, &r)) > 0; n++)
		if (n == NRECS / 2)
			EXPECT_NE(r.from, forged.from);
	EXPECT_EQ(ret, -BTS_E_FORMAT);
	EXPECT_TRUE(strstr(bts_errdetail(), "changed since the trace was opened") != NULL);

	/* The decoder passes it on: an error, not a history with a hole. */
	ret = bts_insn_decoder_new(t, 0, NULL, &d);
	if (!ret) {
		while ((ret = bts_insn_next(d, &e, sizeof(e))) > 0)
			;
		bts_insn_decoder_free(d);
	}
	EXPECT_EQ(ret, -BTS_E_FORMAT);
	bts_trace_free(t);
	unlink(path);
	free(path);
	bts_rec_iter_free(it);
}
