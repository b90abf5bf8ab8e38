// SPDX-License-Identifier: GPL-2.0-or-later
/* Trace files: what the writer writes, the reader gives back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"

static char *tpath(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Names in a directory, "." and ".." left out. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static struct ptbts_record rec(uint64_t from, uint64_t to, uint64_t flags)
{
	return (struct ptbts_record){ from, to, flags };
}

static void expect_rec(const struct ptbts_record *r, uint64_t from,
		       uint64_t to, uint64_t flags)
{
	EXPECT_EQ(r->from, from);
	EXPECT_EQ(r->to, to);
	EXPECT_EQ(r->flags, flags);
}

static size_t thread_index(const struct bts_trace *t, pid_t tid)
{
	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		if (bts_trace_thread(t, i)->tid == tid)
			return i;
	FAIL("thread %d not in the trace", tid);
}

/*
 * Two processes; threads 100 and 101 of process 100, thread 200 of its
 * child 200; batches of 100 and 101 interleave.
 */
static void write_sample(const char *path)
{
	struct ptbts_record a1[] = { rec(0x1000, 0x2000, 0), rec(0x2010, 0x3000, 0x10) };
	struct ptbts_record b1[] = { rec(0x4000, 0x5000, PTBTS_MKKIND(PTBTS_KIND_SIGNAL)) };
	struct ptbts_record a2[] = { rec(0, 7, PTBTS_MKKIND(PTBTS_KIND_LOST)),
				     rec(0x3004, 0x1000, 0) };
	struct ptbts_record c1[] = { rec(0x7000, 0x7100, 0) };
	struct bts_map m1 = {
		.start = 0x400000, .end = 0x401000, .offset = 0x1000, .prot = 5,
		.build_id_len = 3, .build_id = { 0xab, 0xcd, 0xef }, .path = "/bin/prog",
	};
	struct bts_map m2 = {
		.start = 0x7fff0000, .end = 0x7fff2000, .prot = 5, .path = "[vdso]",
	};
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK,
				     1 << 20), 0);
	ASSERT_EQ(bts_writer_process(w, 100, 1, "/bin/prog"), 0);
	ASSERT_EQ(bts_writer_map(w, 100, &m1), 0);
	ASSERT_EQ(bts_writer_map(w, 100, &m2), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 100), 0);
	ASSERT_EQ(bts_writer_thread(w, 100, 101), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 100, a1, 2), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 101, b1, 1), 0);
	ASSERT_EQ(bts_writer_process(w, 200, 100, ""), 0);
	ASSERT_EQ(bts_writer_thread(w, 200, 200), 0);
	ASSERT_EQ(bts_writer_records(w, 100, 100, a2, 2), 0);
	ASSERT_EQ(bts_writer_records(w, 200, 200, c1, 1), 0);
	ASSERT_EQ(bts_writer_exit(w, 100, 101, 0), 0);
	ASSERT_EQ(bts_writer_exit(w, 200, 0, 9), 0);		/* SIGKILL */
	ASSERT_EQ(bts_writer_exit(w, 100, 0, 3 << 8), 0);	/* exit(3) */
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
}

TEST(trace_file, round_trip_of_every_chunk)
{
	char *path = tpath("t.btr");
	const struct bts_process_info *p;
	const struct bts_thread_info *th;
	const struct bts_map *maps;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;

	write_sample(path);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_EQ(bts_trace_info(t)->version, 1u);
	EXPECT_EQ(bts_trace_info(t)->source, PTBTS_SOURCE_PTRACE_STEP);
	EXPECT_EQ(bts_trace_info(t)->mode, PTBTS_MODE_BLOCK);
	EXPECT_EQ(bts_trace_info(t)->buffer_size, 1u << 20);

	ASSERT_EQ(bts_trace_nprocesses(t), (size_t)2);
	p = bts_trace_process(t, 0);
	EXPECT_EQ(p->pid, 100);
	EXPECT_EQ(p->ppid, 1);
	EXPECT_STREQ(p->exe, "/bin/prog");
	EXPECT_TRUE(p->exited);
	EXPECT_EQ(p->status, 3 << 8);
	p = bts_trace_process(t, 1);
	EXPECT_EQ(p->pid, 200);
	EXPECT_EQ(p->ppid, 100);
	EXPECT_STREQ(p->exe, "");
	EXPECT_TRUE(p->exited);
	EXPECT_EQ(p->status, 9);
	EXPECT_TRUE(bts_trace_process(t, 2) == NULL);

	/* In order of first appearance. */
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)3);
	th = bts_trace_thread(t, 0);
	EXPECT_EQ(th->pid, 100);
	EXPECT_EQ(th->tid, 100);
	EXPECT_EQ(th->nrecords, 4u);
	EXPECT_TRUE(th->exited);		/* with its process */
	EXPECT_EQ(th->status, 3 << 8);
	th = bts_trace_thread(t, 1);
	EXPECT_EQ(th->tid, 101);
	EXPECT_EQ(th->nrecords, 1u);
	EXPECT_TRUE(th->exited);
	EXPECT_EQ(th->status, 0);		/* its own exit */
	th = bts_trace_thread(t, 2);
	EXPECT_EQ(th->pid, 200);
	EXPECT_EQ(th->tid, 200);
	EXPECT_EQ(th->nrecords, 1u);
	EXPECT_EQ(th->status, 9);
	EXPECT_TRUE(bts_trace_thread(t, 3) == NULL);

	/* Thread 100's two batches, oldest first. */
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0x1000, 0x2000, 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0x2010, 0x3000, 0x10);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0, 7, PTBTS_MKKIND(PTBTS_KIND_LOST));
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0x3004, 0x1000, 0);
	EXPECT_EQ(bts_rec_iter_next(it, &r), 0);
	EXPECT_EQ(bts_rec_iter_next(it, &r), 0);
	bts_rec_iter_free(it);
	ASSERT_EQ(bts_rec_iter_new(t, 1, &it), 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0x4000, 0x5000, PTBTS_MKKIND(PTBTS_KIND_SIGNAL));
	EXPECT_EQ(bts_rec_iter_next(it, &r), 0);
	bts_rec_iter_free(it);
	ASSERT_EQ(bts_rec_iter_new(t, 2, &it), 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0x7000, 0x7100, 0);
	EXPECT_EQ(bts_rec_iter_next(it, &r), 0);
	bts_rec_iter_free(it);
	ASSERT_EQ(bts_rec_iter_new(t, 3, &it), 0);
	EXPECT_EQ(bts_rec_iter_next(it, &r), 0);

	ASSERT_EQ(bts_trace_maps(t, 100, &maps), (size_t)2);
	EXPECT_EQ(maps[0].start, 0x400000u);
	EXPECT_EQ(maps[0].end, 0x401000u);
	EXPECT_EQ(maps[0].offset, 0x1000u);
	EXPECT_EQ(maps[0].prot, 5u);
	EXPECT_EQ(maps[0].build_id_len, 3u);
	EXPECT_EQ(maps[0].build_id[0], 0xab);
	EXPECT_EQ(maps[0].build_id[2], 0xef);
	EXPECT_STREQ(maps[0].path, "/bin/prog");
	EXPECT_EQ(maps[1].start, 0x7fff0000u);
	EXPECT_EQ(maps[1].build_id_len, 0u);
	EXPECT_STREQ(maps[1].path, "[vdso]");
	EXPECT_EQ(bts_trace_maps(t, 200, &maps), (size_t)0);
	EXPECT_EQ(bts_trace_maps(t, 300, &maps), (size_t)0);
	bts_trace_free(t);
	free(path);
	bts_rec_iter_free(it);
}

/* The same bytes read from memory, at an odd address. */
TEST(trace_file, open_mem_reads_unaligned_buffers)
{
	char *path = tpath("t.btr");
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;
	struct stat st;
	uint8_t *buf;
	int fd;

	write_sample(path);
	ASSERT_EQ(stat(path, &st), 0);
	buf = malloc(st.st_size + 1);
	fd = open(path, O_RDONLY);
	ASSERT_EQ(read(fd, buf + 1, st.st_size), st.st_size);
	close(fd);
	ASSERT_EQ(bts_trace_new_mem(buf + 1, st.st_size, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)3);
	ASSERT_EQ(bts_rec_iter_new(t, thread_index(t, 101), &it), 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	expect_rec(&r, 0x4000, 0x5000, PTBTS_MKKIND(PTBTS_KIND_SIGNAL));
	bts_trace_free(t);
	free(buf);
	free(path);
	bts_rec_iter_free(it);
}

TEST(trace_file, large_batches_are_split_and_rejoined)
{
	enum { N = 40000 };
	struct ptbts_record *recs = calloc(N, sizeof(*recs));
	char *path = tpath("big.btr");
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_writer *w;
	struct bts_trace *t;
	struct stat st;
	uint64_t i = 0;

	for (i = 0; i < N; i++)
		recs[i] = rec(0x1000 + i, 0x2000 + i, 0);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 5, 1, "x"), 0);
	ASSERT_EQ(bts_writer_thread(w, 5, 5), 0);
	ASSERT_EQ(bts_writer_records(w, 5, 5, recs, N), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	/* header, process, thread, 3 record chunks of <= 16384, end */
	ASSERT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_size, 16 + (8 + 16 + 8) + (8 + 8) + 3 * (8 + 16) +
			      N * 24 + (8 + 16));
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, (uint64_t)N);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	for (i = 0; bts_rec_iter_next(it, &r); i++)
		if (r.from != 0x1000 + i || r.to != 0x2000 + i)
			FAIL("record %llu: 0x%llx", (unsigned long long)i,
			     (unsigned long long)r.from);
	EXPECT_EQ(i, (uint64_t)N);
	bts_trace_free(t);
	free(recs);
	free(path);
	bts_rec_iter_free(it);
}

/* A million records through a writer whose heap never grows. */
TEST(trace_file, streaming_keeps_memory_flat)
{
	enum { BATCH = 1000, BATCHES = 1000 };
	static struct ptbts_record recs[BATCH];
	char *path = tpath("stream.btr");
	size_t before, opened;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_writer *w;
	struct bts_trace *t;
	uint64_t n = 0;

	before = harness_heap_in_use();
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 7, 1, "/bin/stream"), 0);
	ASSERT_EQ(bts_writer_thread(w, 7, 7), 0);
	opened = harness_heap_in_use();
	/* The writer's one fixed buffer, its two names, little else. */
	EXPECT_LT(opened - before, (size_t)(64 * 1024 + 1024));
	for (int b = 0; b < BATCHES; b++) {
		for (int i = 0; i < BATCH; i++, n++)
			recs[i] = rec(0x10000 + n, 0x20000 + n, 0);
		ASSERT_EQ(bts_writer_records(w, 7, 7, recs, BATCH), 0);
		if (harness_heap_in_use() != opened)
			FAIL("heap grew to %zu bytes from %zu after batch %d",
			     harness_heap_in_use(), opened, b);
	}
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	EXPECT_EQ(harness_heap_in_use(), before);

	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, (uint64_t)BATCH * BATCHES);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	for (n = 0; bts_rec_iter_next(it, &r); n++)
		if (r.from != 0x10000 + n || r.to != 0x20000 + n || r.flags)
			FAIL("record %llu is wrong", (unsigned long long)n);
	EXPECT_EQ(n, (uint64_t)BATCH * BATCHES);
	bts_trace_free(t);
	free(path);
	bts_rec_iter_free(it);
}

TEST(trace_file, written_under_a_temporary_name)
{
	char *path = tpath("t.btr");
	char tmp[512];
	struct bts_writer *w;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 1, 0, "/sbin/init"), 0);
	EXPECT_FALSE(exists(path));
	EXPECT_TRUE(exists(tmp));
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	EXPECT_TRUE(exists(path));
	EXPECT_FALSE(exists(tmp));
	EXPECT_EQ(count_entries(harness_tmpdir()), 1);
	free(path);
}

TEST(trace_file, abort_leaves_nothing)
{
	static struct ptbts_record recs[10000];
	char *path = tpath("t.btr");
	struct bts_writer *w;

	for (size_t i = 0; i < 10000; i++)
		recs[i] = rec(0x1000, 0x2000, 0);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 1, 0, "/sbin/init"), 0);
	ASSERT_EQ(bts_writer_thread(w, 1, 1), 0);
	ASSERT_EQ(bts_writer_records(w, 1, 1, recs, 10000), 0);
	EXPECT_EQ(count_entries(harness_tmpdir()), 1);
	bts_writer_free(w);
	EXPECT_EQ(count_entries(harness_tmpdir()), 0);
	free(path);
}

/* What an interrupted recording leaves is recognisably incomplete. */
TEST(trace_file, unfinished_file_reads_as_truncated)
{
	static struct ptbts_record recs[10000];
	char *path = tpath("t.btr");
	char tmp[512];
	struct bts_writer *w;
	struct bts_trace *t;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	for (size_t i = 0; i < 10000; i++)
		recs[i] = rec(0x1000, 0x2000, 0);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 1, 0, "/sbin/init"), 0);
	ASSERT_EQ(bts_writer_thread(w, 1, 1), 0);
	ASSERT_EQ(bts_writer_records(w, 1, 1, recs, 10000), 0);
	EXPECT_EQ(bts_trace_new(tmp, &t), -BTS_E_TRUNCATED);
	EXPECT_TRUE(strstr(bts_errdetail(), "(an interrupted recording?)") != NULL);
	bts_writer_free(w);
	free(path);
}

TEST(trace_file, existing_temporary_name_is_refused)
{
	char *path = tpath("t.btr");
	char tmp[512];
	struct bts_writer *w = NULL;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "mine", 4), 4);
	close(fd);
	EXPECT_EQ(bts_writer_new(path, &w), -BTS_E_IO);
	EXPECT_TRUE(w == NULL);
	EXPECT_TRUE(strstr(bts_errdetail(), ": File exists") != NULL);
	EXPECT_TRUE(strstr(bts_errdetail(), tmp) != NULL);
	EXPECT_FALSE(exists(path));
	free(path);
}

TEST(trace_file, unwritable_directory_is_an_io_error)
{
	struct bts_writer *w;

	EXPECT_EQ(bts_writer_new("/nonexistent-dir/t.btr", &w), -BTS_E_IO);
	EXPECT_TRUE(strstr(bts_errdetail(), "No such file or directory") != NULL);
	EXPECT_EQ(bts_writer_new("", &w), -BTS_E_INVAL);
}

/*
 * A write that fails (here: past RLIMIT_FSIZE) is BTS_E_IO with errno's
 * text, and close leaves no file.  In a child: the limit is per process.
 */
static int write_past_limit(const char *path)
{
	static struct ptbts_record recs[4096];
	struct rlimit rl = { 100000, 100000 };
	struct bts_writer *w;
	int err = 0;

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl))
		return 10;
	for (size_t i = 0; i < 4096; i++)
		recs[i] = rec(0x1000, 0x2000, 0);
	if (bts_writer_new(path, &w) || bts_writer_process(w, 1, 0, "x") ||
	    bts_writer_thread(w, 1, 1))
		return 11;
	for (int i = 0; i < 10 && !err; i++)
		err = bts_writer_records(w, 1, 1, recs, 4096);
	if (err != -BTS_E_IO || !strstr(bts_errdetail(), "File too large"))
		return 12;
	if (bts_writer_records(w, 1, 1, recs, 1) != -BTS_E_IO)
		return 13;
	err = bts_writer_finish(w);
	bts_writer_free(w);
	if (err != -BTS_E_IO)
		return 14;
	return 0;
}

TEST(trace_file, write_error_is_an_io_error)
{
	char *path = tpath("t.btr");
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(write_past_limit(path));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(count_entries(harness_tmpdir()), 0);
	free(path);
}

TEST(trace_file, writer_refuses_what_readers_would_refuse)
{
	struct ptbts_record bad[] = { rec(0x1000, 0x2000, 0), rec(0x1000, 0, 1ULL << 40) };
	struct bts_map big = { .start = 1, .end = 2, .build_id_len = 65 };
	struct bts_map empty = { .start = 2, .end = 2 };
	char *path = tpath("t.btr");
	struct bts_writer *w;
	struct bts_trace *t;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	EXPECT_EQ(bts_writer_session(w, 99, 0, 0), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_session(w, 0, 3, 0), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_RING, 0), 0);
	EXPECT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_RING, 0),
		  -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_process(w, 0, 1, "x"), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_process(w, 3, 1, "x"), 0);
	EXPECT_EQ(bts_writer_thread(w, 3, 0), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_thread(w, 3, 3), 0);
	EXPECT_EQ(bts_writer_map(w, 3, &big), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_map(w, 3, &empty), -BTS_E_INVAL);
	EXPECT_EQ(bts_writer_records(w, 3, 3, bad, 2), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "record 1 of thread 3: reserved flag bits are set");
	EXPECT_EQ(bts_writer_exit(w, 3, -1, 0), -BTS_E_INVAL);
	/* Nothing of the refused calls reached the file. */
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_EQ(bts_trace_thread(t, 0)->nrecords, 0u);
	bts_trace_free(t);
	free(path);
}

TEST(trace_file, later_maps_replace_what_they_overlap)
{
	struct bts_map m[] = {
		{ .start = 0x1000, .end = 0x5000, .offset = 0, .prot = 5, .path = "a" },
		{ .start = 0x8000, .end = 0x9000, .offset = 0, .prot = 5, .path = "b" },
		{ .start = 0x2000, .end = 0x3000, .offset = 0x77000, .prot = 1, .path = "c" },
		{ .start = 0x7000, .end = 0x8800, .offset = 0x10000, .prot = 5, .path = "d" },
		{ .start = 0x9000, .end = 0xa000, .offset = 0, .prot = 5, .path = "e" },
		{ .start = 0x500, .end = 0x600, .offset = 0, .prot = 4, .path = "" },
		{ .start = 0x8f00, .end = 0xa000, .offset = 0, .prot = 5, .path = "f" },
	};
	static const struct { uint64_t start, end, offset; const char *path; } want[] = {
		{ 0x500, 0x600, 0, "" },
		{ 0x1000, 0x2000, 0, "a" },
		{ 0x2000, 0x3000, 0x77000, "c" },
		{ 0x3000, 0x5000, 0x2000, "a" },
		{ 0x7000, 0x8800, 0x10000, "d" },
		{ 0x8800, 0x8f00, 0x800, "b" },
		{ 0x8f00, 0xa000, 0, "f" },
	};
	char *path = tpath("t.btr");
	const struct bts_map *maps;
	struct bts_writer *w;
	struct bts_trace *t;
	size_t n;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 9, 1, "a"), 0);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		ASSERT_EQ(bts_writer_map(w, 9, &m[i]), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	n = bts_trace_maps(t, 9, &maps);
	ASSERT_EQ(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(maps[i].start, want[i].start);
		EXPECT_EQ(maps[i].end, want[i].end);
		EXPECT_EQ(maps[i].offset, want[i].offset);
		EXPECT_STREQ(maps[i].path, want[i].path);
	}
	bts_trace_free(t);
	free(path);
}

TEST(trace_file, files_that_are_not_traces)
{
	char *text = tpath("notes.txt"), *empty = tpath("empty.btr");
	char *fifo = tpath("fifo"), *none = tpath("none.btr");
	struct bts_trace *t;
	int fd;

	fd = open(text, O_WRONLY | O_CREAT, 0600);
	ASSERT_EQ(write(fd, "hello, world\n", 13), 13);
	close(fd);
	close(open(empty, O_WRONLY | O_CREAT, 0600));
	ASSERT_EQ(mkfifo(fifo, 0600), 0);

	EXPECT_EQ(bts_trace_new(text, &t), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "not a trace file");
	EXPECT_EQ(bts_trace_new(empty, &t), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "empty file: not a trace file");
	EXPECT_EQ(bts_trace_new(harness_tmpdir(), &t), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "a directory");
	EXPECT_EQ(bts_trace_new(fifo, &t), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "not a regular file");
	EXPECT_EQ(bts_trace_new(none, &t), -BTS_E_IO);
	EXPECT_STREQ(bts_errdetail(), "cannot open: No such file or directory");
	EXPECT_EQ(bts_trace_new_mem(NULL, 0, &t), -BTS_E_FORMAT);
	free(text);
	free(empty);
	free(fifo);
	free(none);
}

/*
 * Exits as a ptrace session writes them, thread by thread: the main
 * thread's status is the process's, and a thread with no exit of its own
 * ended with its process.
 */
TEST(trace_file, main_thread_exit_ends_the_process)
{
	char *path = tpath("t.btr");
	struct bts_writer *w;
	struct bts_trace *t;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 50, 1, "p"), 0);
	ASSERT_EQ(bts_writer_thread(w, 50, 50), 0);
	ASSERT_EQ(bts_writer_thread(w, 50, 51), 0);
	ASSERT_EQ(bts_writer_thread(w, 50, 52), 0);
	ASSERT_EQ(bts_writer_process(w, 60, 1, "q"), 0);
	ASSERT_EQ(bts_writer_thread(w, 60, 60), 0);
	ASSERT_EQ(bts_writer_exit(w, 50, 51, 0), 0);
	ASSERT_EQ(bts_writer_exit(w, 50, 50, 2 << 8), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	EXPECT_TRUE(bts_trace_process(t, 0)->exited);
	EXPECT_EQ(bts_trace_process(t, 0)->status, 2 << 8);
	EXPECT_EQ(bts_trace_thread(t, 0)->status, 2 << 8);
	EXPECT_TRUE(bts_trace_thread(t, 1)->exited);
	EXPECT_EQ(bts_trace_thread(t, 1)->status, 0);
	EXPECT_TRUE(bts_trace_thread(t, 2)->exited);
	EXPECT_EQ(bts_trace_thread(t, 2)->status, 2 << 8);
	/* No exit at all (a detached process runs on). */
	EXPECT_FALSE(bts_trace_process(t, 1)->exited);
	EXPECT_FALSE(bts_trace_thread(t, 3)->exited);
	bts_trace_free(t);
	free(path);
}

/* What took PATH while the file was written is not replaced either. */
TEST(trace_file, close_does_not_replace_a_fifo_made_meanwhile)
{
	char *path = tpath("t.btr");
	struct bts_writer *w;
	struct stat st;

	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 1, 0, "/sbin/init"), 0);
	ASSERT_EQ(mkfifo(path, 0600), 0);
	EXPECT_EQ(bts_writer_finish(w), -BTS_E_INVAL);
	bts_writer_free(w);
	EXPECT_TRUE(strstr(bts_errdetail(), "a FIFO, not a regular file") != NULL);
	ASSERT_EQ(lstat(path, &st), 0);
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	EXPECT_EQ(count_entries(harness_tmpdir()), 1);
	ASSERT_EQ(bts_writer_new(path, &w), -BTS_E_INVAL);
	EXPECT_EQ(count_entries(harness_tmpdir()), 1);
	free(path);
}

/* Records of thread 1 in @t, each checked to be rec(0x1000 + i, 0x2000 + i). */
static uint64_t count_recs(struct bts_trace *t)
{
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	uint64_t n;

	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	for (n = 0; bts_rec_iter_next(it, &r); n++)
		if (r.from != 0x1000 + n || r.to != 0x2000 + n)
			FAIL("record %llu is wrong", (unsigned long long)n);
	bts_rec_iter_free(it);
	return n;
}

/*
 * What a killed recorder leaves (no end chunk, cut inside a chunk) opens
 * with bts_trace_new_incomplete(): the whole chunks, marked incomplete.
 */
TEST(trace_file, incomplete_file_reads_up_to_its_last_whole_chunk)
{
	static struct ptbts_record recs[3000];
	char *path = tpath("t.btr"), tmp[512];
	struct bts_writer *w;
	struct bts_trace *t;
	struct stat st;
	off_t synced;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	for (size_t i = 0; i < 3000; i++)
		recs[i] = rec(0x1000 + i, 0x2000 + i, 0);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_process(w, 1, 0, "/sbin/init"), 0);
	ASSERT_EQ(bts_writer_thread(w, 1, 1), 0);
	ASSERT_EQ(bts_writer_records(w, 1, 1, recs, 1000), 0);
	/* The writer's buffer and pending compact records reach the file. */
	ASSERT_EQ(bts_writer_sync(w), 0);
	ASSERT_EQ(stat(tmp, &st), 0);
	synced = st.st_size;
	ASSERT_EQ(bts_writer_records(w, 1, 1, recs + 1000, 2000), 0);
	ASSERT_EQ(bts_writer_sync(w), 0);
	ASSERT_EQ(stat(tmp, &st), 0);
	ASSERT_GT(st.st_size, synced);

	EXPECT_EQ(bts_trace_new(tmp, &t), -BTS_E_TRUNCATED);
	ASSERT_EQ(bts_trace_new_incomplete(tmp, &t), 0);
	EXPECT_TRUE(bts_trace_info(t)->incomplete);
	EXPECT_EQ(bts_trace_info(t)->whole_len, (uint64_t)st.st_size);
	EXPECT_EQ(count_recs(t), 3000u);
	bts_trace_free(t);

	/* Cut inside the second batch's chunk: the first batch remains. */
	ASSERT_EQ(truncate(tmp, synced + 40), 0);
	ASSERT_EQ(bts_trace_new_incomplete(tmp, &t), 0);
	EXPECT_TRUE(bts_trace_info(t)->incomplete);
	EXPECT_EQ(bts_trace_info(t)->whole_len, (uint64_t)synced);
	EXPECT_EQ(count_recs(t), 1000u);
	bts_trace_free(t);
	bts_writer_free(w);

	/* A whole file is not incomplete. */
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new_incomplete(path, &t), 0);
	EXPECT_FALSE(bts_trace_info(t)->incomplete);
	bts_trace_free(t);
	free(path);
}
