// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recording sessions through the public API: programs of tests/progs/
 * (session-*.c) are recorded into a trace file, which is read back.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bts.h"
#include "harness.h"

/* A hung session fails loudly instead of hanging the run. */
#define GUARD_S 300

struct counts {
	uint64_t calls;		/* branches to the target */
	uint64_t signals;	/* signal records to the handler */
	uint64_t sigreturns;
	uint64_t execs;
	uint64_t lost_markers;
	uint64_t lost;
	uint64_t gaps;
	uint64_t total;
};

static char *tmp_path(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

/* "0xTARGET [0xHANDLER]" written by the program. */
static void read_addrs(const char *path, uint64_t *target, uint64_t *handler)
{
	unsigned long long a = 0, b = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		FAIL("%s: %m", path);
	if (fscanf(f, "%llx %llx", &a, &b) < 1)
		FAIL("%s: no address", path);
	fclose(f);
	*target = a;
	if (handler)
		*handler = b;
}

static int record(char *const argv[], int mode, uint64_t size, const char *out,
		  struct bts_session_stats *st)
{
	/* One process each: children (session-stop's) are let go. */
	BTS_OPTS(bts_session_opts, o, .mode = mode, .buffer_size = size,
		 .no_follow = true);
	struct bts_session *s;
	struct bts_writer *w = NULL;
	int err;

	if (out && bts_writer_new(out, &w))
		FAIL("writer: %s", bts_errdetail());
	o.writer = w;
	alarm(GUARD_S);
	err = bts_session_new_spawn(argv, &o, &s);
	if (err) {
		if (w)
			bts_writer_free(w);
		alarm(0);
		return err;
	}
	err = bts_session_run(s);
	alarm(0);
	bts_session_stats(s, st, sizeof(*st));
	bts_session_free(s);
	if (w && bts_writer_finish(w)) {
		bts_writer_free(w);
		FAIL("writer finish: %s", bts_errdetail());
	}
	bts_writer_free(w);
	return err;
}

static void count(const struct bts_trace *t, size_t thread, uint64_t target,
		  uint64_t handler, struct counts *c)
{
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;

	memset(c, 0, sizeof(*c));
	ASSERT_EQ(bts_rec_iter_new(t, thread, &it), 0);
	while (bts_rec_iter_next(it, &r) == 1) {
		int kind = bts_record_kind(&r);

		c->total++;
		if (kind == PTBTS_KIND_BRANCH && r.to == target)
			c->calls++;
		if (kind == PTBTS_KIND_SIGNAL && r.to == handler)
			c->signals++;
		if (kind == PTBTS_KIND_SIGRETURN)
			c->sigreturns++;
		if (kind == PTBTS_KIND_EXEC)
			c->execs++;
		if (kind == PTBTS_KIND_GAP)
			c->gaps++;
		if (kind == PTBTS_KIND_LOST) {
			c->lost_markers++;
			c->lost += r.to;
		}
	}
	bts_rec_iter_free(it);
}

static struct bts_trace *open_trace(const char *path)
{
	struct bts_trace *t;

	if (bts_trace_new(path, &t))
		FAIL("%s: %s", path, bts_errdetail());
	return t;
}

/* ----------------------------------------------------------- spawn errors */

TEST(session, spawn_missing_program)
{
	char *argv[] = { "no-such-program-bts-test", NULL };
	char *argv2[] = { "/nonexistent/dir/prog", NULL };
	struct bts_session *s = NULL;

	EXPECT_EQ(bts_session_new_spawn(argv, NULL, &s), -BTS_E_NOENT);
	EXPECT_TRUE(strstr(bts_errdetail(), "no-such-program-bts-test") != NULL);
	EXPECT_EQ(bts_session_new_spawn(argv2, NULL, &s), -BTS_E_NOENT);
	EXPECT_TRUE(s == NULL);
}

TEST(session, spawn_not_executable)
{
	char *plain = tmp_path("plain"), *junk = tmp_path("junk");
	char *argv[] = { plain, NULL }, *argv_dir[] = { "/tmp", NULL };
	char *argv_junk[] = { junk, NULL };
	struct bts_session *s = NULL;
	FILE *f;

	f = fopen(plain, "w");
	ASSERT_TRUE(f != NULL);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	chmod(plain, 0644);
	EXPECT_EQ(bts_session_new_spawn(argv, NULL, &s), -BTS_E_NOEXEC);
	EXPECT_TRUE(strstr(bts_errdetail(), plain) != NULL);
	EXPECT_EQ(bts_session_new_spawn(argv_dir, NULL, &s), -BTS_E_NOEXEC);
	/* executable bits, but no format the kernel knows: exec says ENOEXEC */
	f = fopen(junk, "w");
	ASSERT_TRUE(f != NULL);
	fputs("\x01\x02junk", f);
	fclose(f);
	chmod(junk, 0755);
	EXPECT_EQ(bts_session_new_spawn(argv_junk, NULL, &s), -BTS_E_NOEXEC);
	EXPECT_TRUE(strstr(bts_errdetail(), junk) != NULL);
	EXPECT_TRUE(s == NULL);
	/* no child is left behind */
	EXPECT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	free(plain);
	free(junk);
}

TEST(session, bad_options)
{
	char *argv[] = { "/bin/true", NULL };
	BTS_OPTS(bts_session_opts, o, .mode = 9);
	struct bts_session *s = NULL;

	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_INVAL);
	o.mode = PTBTS_MODE_RING;
	o.buffer_size = 10;
	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_INVAL);
	o.buffer_size = 0;
	o.source = PTBTS_SOURCE_KMOD_BTS;
	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_NOSOURCE);
	EXPECT_TRUE(s == NULL);
}

/* ---------------------------------------------------------------- records */

TEST(session, block_mode_counts_every_call)
{
	char *addrs = tmp_path("addrs"), *out = tmp_path("calls.btr");
	char *prog = PROG_PATH("session-calls");
	char *argv[] = { prog, addrs, "50", NULL };
	const struct bts_thread_info *ti;
	struct bts_session_stats st;
	uint64_t target, handler;
	struct bts_trace *t;
	struct counts c;

	/* a ring of 8 records: drained to the file hundreds of times */
	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 8 * 24, out, &st), 0);
	read_addrs(addrs, &target, &handler);
	EXPECT_TRUE(st.exited);
	EXPECT_TRUE(WIFEXITED(st.status) && WEXITSTATUS(st.status) == 0);
	EXPECT_EQ(st.threads, 1u);
	EXPECT_EQ(st.lost, 0u);
	EXPECT_EQ(st.source, PTBTS_SOURCE_PTRACE_STEP);

	t = open_trace(out);
	ASSERT_EQ(bts_trace_nthreads(t), 1u);
	ti = bts_trace_thread(t, 0);
	EXPECT_EQ(ti->tid, st.pid);
	EXPECT_TRUE(ti->exited);
	count(t, 0, target, handler, &c);
	EXPECT_EQ(c.calls, 50u);
	EXPECT_EQ(c.signals, 1u);
	EXPECT_EQ(c.sigreturns, 1u);
	EXPECT_EQ(c.lost_markers, 0u);
	EXPECT_EQ(c.gaps, 0u);
	EXPECT_EQ(c.execs, 0u);
	EXPECT_EQ(c.total, st.records);
	EXPECT_EQ(ti->nrecords, st.records);
	bts_trace_free(t);
	free(addrs);
	free(out);
	free(prog);
}

/* The maps cover both ends of every branch (libraries mapped lazily). */
TEST(session, maps_cover_every_branch)
{
	char *addrs = tmp_path("addrs"), *out = tmp_path("maps.btr");
	char *prog = PROG_PATH("session-calls");
	char *argv[] = { prog, addrs, "3", NULL };
	const struct bts_map *maps;
	struct bts_session_stats st;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;
	size_t n, i, vdso = 0, self = 0;
	uint64_t outside = 0;

	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 0, out, &st), 0);
	t = open_trace(out);
	n = bts_trace_maps(t, st.pid, &maps);
	ASSERT_GT(n, 2u);
	for (i = 0; i < n; i++) {
		vdso += !strcmp(maps[i].path, "[vdso]");
		if (!strcmp(maps[i].path, prog)) {
			self++;
			EXPECT_GT(maps[i].build_id_len, 0u);
		}
	}
	EXPECT_EQ(self, 1u);
	EXPECT_EQ(vdso, 1u);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	while (bts_rec_iter_next(it, &r) == 1) {
		bool in_from = false, in_to = false;

		if (!r.from)
			continue;
		for (i = 0; i < n; i++) {
			in_from |= r.from >= maps[i].start && r.from < maps[i].end;
			in_to |= r.to >= maps[i].start && r.to < maps[i].end;
		}
		outside += !in_from + !in_to;
	}
	EXPECT_EQ(outside, 0u);
	bts_trace_free(t);
	free(addrs);
	free(out);
	free(prog);
	bts_rec_iter_free(it);
}

TEST(session, ring_mode_keeps_newest)
{
	char *addrs = tmp_path("addrs"), *out = tmp_path("ring.btr");
	char *prog = PROG_PATH("session-calls");
	char *argv[] = { prog, addrs, "200", NULL };
	struct bts_session_stats st;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	struct bts_trace *t;
	struct counts c;

	ASSERT_EQ(record(argv, PTBTS_MODE_RING, 16 * 24 + 5, out, &st), 0);
	t = open_trace(out);
	ASSERT_EQ(bts_trace_nthreads(t), 1u);
	count(t, 0, 0, 0, &c);
	/* the LOST marker, then exactly the 16 newest records */
	EXPECT_EQ(c.total, 17u);
	EXPECT_EQ(c.lost_markers, 1u);
	EXPECT_EQ(c.lost, st.lost);
	EXPECT_GT(st.lost, 200u);
	EXPECT_EQ(st.records, 17u);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	ASSERT_EQ(bts_rec_iter_next(it, &r), 1);
	EXPECT_EQ(bts_record_kind(&r), PTBTS_KIND_LOST);
	EXPECT_EQ(r.from, 0u);
	bts_trace_free(t);
	free(addrs);
	free(out);
	free(prog);
	bts_rec_iter_free(it);
}

TEST(session, exit_code_and_signal)
{
	char *addrs = tmp_path("addrs"), *prog = PROG_PATH("session-calls");
	char *argv3[] = { prog, addrs, "1", "3", NULL };
	char *argvk[] = { prog, addrs, "1", "kill", NULL };
	struct bts_session_stats st;

	ASSERT_EQ(record(argv3, PTBTS_MODE_RING, 0, NULL, &st), 0);
	EXPECT_TRUE(st.exited);
	EXPECT_TRUE(WIFEXITED(st.status));
	EXPECT_EQ(WEXITSTATUS(st.status), 3);
	EXPECT_GT(st.records, 0u);
	ASSERT_EQ(record(argvk, PTBTS_MODE_RING, 0, NULL, &st), 0);
	EXPECT_TRUE(st.exited);
	EXPECT_TRUE(WIFSIGNALED(st.status));
	EXPECT_EQ(WTERMSIG(st.status), SIGTERM);
	free(addrs);
	free(prog);
}

TEST(session, threads_each_have_their_records)
{
	char *addrs = tmp_path("addrs"), *out = tmp_path("threads.btr");
	char *prog = PROG_PATH("session-threads");
	char *argv[] = { prog, addrs, "20", NULL };
	struct bts_session_stats st;
	struct bts_trace *t;
	struct counts c;
	uint64_t target;
	size_t i, workers = 0;

	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 64 * 24, out, &st), 0);
	read_addrs(addrs, &target, NULL);
	EXPECT_EQ(st.threads, 5u);
	EXPECT_EQ(st.lost, 0u);
	t = open_trace(out);
	ASSERT_EQ(bts_trace_nthreads(t), 5u);
	for (i = 0; i < 5; i++) {
		const struct bts_thread_info *ti = bts_trace_thread(t, i);

		count(t, i, target, 0, &c);
		EXPECT_TRUE(ti->exited);
		EXPECT_EQ(c.lost_markers, 0u);
		EXPECT_EQ(c.gaps, 0u);
		if (ti->tid == st.pid) {
			EXPECT_EQ(c.calls, 0u);
		} else {
			EXPECT_EQ(c.calls, 20u);
			workers++;
		}
	}
	EXPECT_EQ(workers, 4u);
	bts_trace_free(t);
	free(addrs);
	free(out);
	free(prog);
}

/* SIGSTOP / SIGCONT from outside, then an exec: no hang, one exec marker. */
TEST(session, group_stop_then_exec)
{
	char *out = tmp_path("stop.btr"), *prog = PROG_PATH("session-stop");
	char *argv[] = { prog, NULL };
	struct bts_session_stats st;
	struct bts_trace *t;
	struct counts c;

	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 0, out, &st), 0);
	EXPECT_TRUE(st.exited);
	EXPECT_TRUE(WIFEXITED(st.status));
	EXPECT_EQ(WEXITSTATUS(st.status), 7);
	EXPECT_EQ(st.threads, 1u);
	t = open_trace(out);
	ASSERT_EQ(bts_trace_nthreads(t), 1u);
	count(t, 0, 0, 0, &c);
	EXPECT_EQ(c.execs, 1u);
	EXPECT_EQ(c.gaps, 0u);
	bts_trace_free(t);
	free(out);
	free(prog);
}

/* ------------------------------------------------------ stop and attach */

struct stopper {
	struct bts_session *s;
	const char *ready;
	bool again;		/* wait for the program to write it again */
};

static void wait_file(const char *path)
{
	struct stat sb;
	int i;

	for (i = 0; i < 30000 && stat(path, &sb); i++)
		usleep(10000);
}

static void *stop_when_ready(void *arg)
{
	struct stopper *sp = arg;

	if (sp->again)
		unlink(sp->ready);
	wait_file(sp->ready);
	bts_session_stop(sp->s);
	return NULL;
}

/* As btrace does it: a signal handler (no SA_RESTART) in the tracer's thread. */
static struct bts_session *signalled;

static void on_usr2(int sig)
{
	(void)sig;
	bts_session_stop(signalled);
}

struct kicker {
	pthread_t target;
	const char *ready;
};

static void *signal_when_ready(void *arg)
{
	struct kicker *k = arg;

	wait_file(k->ready);
	pthread_kill(k->target, SIGUSR2);
	return NULL;
}

TEST(session, stop_kills_a_spawned_program)
{
	char *ready = tmp_path("ready"), *prog = PROG_PATH("session-loop");
	char *argv[] = { prog, ready, NULL };
	struct sigaction sa = { .sa_handler = on_usr2 }, old;
	struct bts_session_stats st;
	struct bts_session *s;
	struct kicker k;
	pthread_t th;

	alarm(GUARD_S);
	ASSERT_EQ(bts_session_new_spawn(argv, NULL, &s), 0);
	signalled = s;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR2, &sa, &old), 0);
	k.target = pthread_self();
	k.ready = ready;
	ASSERT_EQ(pthread_create(&th, NULL, signal_when_ready, &k), 0);
	EXPECT_EQ(bts_session_run(s), 0);
	pthread_join(th, NULL);
	sigaction(SIGUSR2, &old, NULL);
	alarm(0);
	bts_session_stats(s, &st, sizeof(st));
	EXPECT_TRUE(st.exited);
	EXPECT_TRUE(WIFSIGNALED(st.status));
	EXPECT_EQ(WTERMSIG(st.status), SIGKILL);
	EXPECT_GT(st.records, 100u);
	bts_session_free(s);
	free(ready);
	free(prog);
}

TEST(session, attach_then_detach_leaves_it_running)
{
	char *ready = tmp_path("ready"), *out = tmp_path("attach.btr");
	char *prog = PROG_PATH("session-loop");
	struct bts_session_stats st;
	struct bts_writer *w;
	struct bts_session *s;
	struct bts_trace *t;
	struct stopper sp;
	struct counts c;
	uint64_t target;
	pthread_t th;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		execl(prog, prog, ready, (char *)NULL);
		_exit(127);
	}
	wait_file(ready);
	read_addrs(ready, &target, NULL);
	ASSERT_EQ(bts_writer_new(out, &w), 0);
	BTS_OPTS(bts_session_opts, o, .mode = PTBTS_MODE_BLOCK, .writer = w);
	alarm(GUARD_S);
	ASSERT_EQ(bts_session_new_attach(pid, &o, &s), 0);
	/* stopped once the traced program wrote the file again */
	sp.s = s;
	sp.ready = ready;
	sp.again = true;
	ASSERT_EQ(pthread_create(&th, NULL, stop_when_ready, &sp), 0);
	EXPECT_EQ(bts_session_run(s), 0);
	pthread_join(th, NULL);
	alarm(0);
	bts_session_stats(s, &st, sizeof(st));
	EXPECT_FALSE(st.exited);
	EXPECT_EQ(st.pid, pid);
	bts_session_free(s);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);

	/* still alive and untraced: only our SIGKILL ends it */
	EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0);
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	t = open_trace(out);
	ASSERT_EQ(bts_trace_nthreads(t), 1u);
	count(t, 0, target, 0, &c);
	EXPECT_GT(c.calls, 0u);
	EXPECT_EQ(c.gaps, 0u);
	bts_trace_free(t);
	free(ready);
	free(out);
	free(prog);
}

TEST(session, attach_errors)
{
	struct bts_session *s = NULL;

	EXPECT_EQ(bts_session_new_attach(0x3ffffff0, NULL, &s), -BTS_E_SRCH);
	EXPECT_EQ(bts_session_new_attach(getpid(), NULL, &s), -BTS_E_PERM);
	EXPECT_TRUE(s == NULL);
}

/* ------------------------------------------------- sources, maps, code */

TEST(session, source_names)
{
	int i, src = 99;

	EXPECT_EQ(bts_source_parse("auto", &src), 0);
	EXPECT_EQ(src, BTS_SOURCE_AUTO);
	EXPECT_EQ(bts_source_parse("ptrace-step", &src), 0);
	EXPECT_EQ(src, PTBTS_SOURCE_PTRACE_STEP);
	/* An error is told apart from "auto" (-1): src stays as it was. */
	EXPECT_EQ(bts_source_parse("bogus", &src), -BTS_E_INVAL);
	EXPECT_EQ(src, PTBTS_SOURCE_PTRACE_STEP);
	EXPECT_EQ(bts_source_parse(NULL, &src), -BTS_E_INVAL);
	EXPECT_STREQ(bts_source_name(BTS_SOURCE_AUTO), "auto");
	for (i = PTBTS_SOURCE_KMOD_BTS; i <= PTBTS_SOURCE_QEMU_USER; i++) {
		EXPECT_EQ(bts_source_parse(bts_source_name(i), &src), 0);
		EXPECT_EQ(src, i);
	}
}

TEST(session, probe_sources)
{
	struct bts_source_info info[8];
	int n = bts_probe_sources(info, 8, sizeof(*info)), i;

	ASSERT_EQ(n, 6);
	EXPECT_EQ(info[0].source, PTBTS_SOURCE_KMOD_BTS);
	EXPECT_EQ(info[4].source, PTBTS_SOURCE_PTRACE_STEP);
	EXPECT_TRUE(info[4].available);
	/* qemu-user: qemu-x86_64 (scripts/deps test) and the built plugin. */
	EXPECT_EQ(info[5].source, PTBTS_SOURCE_QEMU_USER);
	EXPECT_TRUE(info[5].available);
	for (i = 0; i < 3; i++) {
		EXPECT_FALSE(info[i].available);
		EXPECT_STREQ(info[i].why, "the ptrace_bts module is not loaded: the kmod "
			     "sources need it; load it with 'modprobe ptrace_bts' (see "
			     "README: DKMS)");
	}
	/* This machine has no CPU PMU: test_perf_bts.c tests the reasons. */
	EXPECT_FALSE(info[3].available);
	EXPECT_TRUE(info[3].why[0] != '\0');
	/* a short array is filled as far as it goes */
	EXPECT_EQ(bts_probe_sources(info, 1, sizeof(*info)), 6);
}

TEST(session, maps_of_self)
{
	struct bts_map *maps;
	int n, i, vdso = 0, exe = 0;
	char self[4096];
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(len, 0);
	self[len] = 0;
	n = bts_maps_new(getpid(), &maps);
	ASSERT_GT(n, 1);
	for (i = 0; i < n; i++) {
		EXPECT_TRUE(maps[i].prot & 4);	/* PROT_EXEC */
		if (!strcmp(maps[i].path, "[vdso]")) {
			vdso++;
			EXPECT_EQ(maps[i].build_id_len, 20u);
		}
		if (!strcmp(maps[i].path, self)) {
			exe++;
			EXPECT_EQ(maps[i].build_id_len, 20u);
		}
	}
	EXPECT_EQ(vdso, 1);
	EXPECT_EQ(exe, 1);
	bts_maps_free(maps, (size_t)n);
	EXPECT_EQ(bts_maps_new(0x3ffffff0, &maps), -BTS_E_SRCH);
}

TEST(session, read_code_of_self)
{
	unsigned char buf[32];
	const void *fn = (const void *)bts_read_code;

	ASSERT_EQ(bts_read_code(NULL, getpid(), (uint64_t)(uintptr_t)fn, buf,
				sizeof(buf)), (ssize_t)sizeof(buf));
	EXPECT_EQ(memcmp(buf, fn, sizeof(buf)), 0);
	EXPECT_LT(bts_read_code(NULL, getpid(), 8, buf, sizeof(buf)), 0);
}

/* A 32-bit program is recorded (ptrace-step), and said to be. */
TEST(session, records_32bit_programs)
{
	char *prog, *out;
	struct bts_session_stats st;
	struct bts_trace *t;

	REQUIRE_I386();
	prog = PROG_PATH("i386-oracle");	/* static: quick to step */
	out = tmp_path("i386.btr");
	char *argv[] = { prog, NULL };

	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 0, out, &st), 0);
	EXPECT_TRUE(WIFEXITED(st.status) && WEXITSTATUS(st.status) == 0);
	t = open_trace(out);
	EXPECT_EQ(bts_trace_process_bits(t, bts_trace_process(t, 0)->pid), 32);
	EXPECT_GT(bts_trace_thread(t, 0)->nrecords, (uint64_t)3000);
	bts_trace_free(t);
	EXPECT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	free(out);
	free(prog);
}

/* An undecodable instruction: a gap marker, then its SIGILL, no guess. */
TEST(session, undecodable_code_gives_a_gap)
{
	char *addrs = tmp_path("addrs"), *out = tmp_path("gap.btr");
	char *prog = PROG_PATH("session-badop");
	char *argv[] = { prog, addrs, NULL };
	struct bts_session_stats st;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r, prev = { 0, 0, 0 };
	uint64_t bad, handler, gaps = 0, signals = 0;
	struct bts_trace *t;

	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 0, out, &st), 0);
	EXPECT_TRUE(WIFEXITED(st.status) && WEXITSTATUS(st.status) == 0);
	read_addrs(addrs, &bad, &handler);
	t = open_trace(out);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	while (bts_rec_iter_next(it, &r) == 1) {
		int kind = bts_record_kind(&r);

		if (kind == PTBTS_KIND_GAP) {
			gaps++;
			EXPECT_EQ(r.to, (uint64_t)PTBTS_GAP_UNDECODABLE);
		}
		if (kind == PTBTS_KIND_SIGNAL) {
			signals++;
			/* the bad instruction did not run; the gap came first */
			EXPECT_EQ(r.from, bad);
			EXPECT_EQ(r.to, handler);
			EXPECT_EQ(bts_record_kind(&prev), PTBTS_KIND_GAP);
		}
		prev = r;
	}
	EXPECT_EQ(gaps, 1u);
	EXPECT_EQ(signals, 1u);
	bts_trace_free(t);
	free(addrs);
	free(out);
	free(prog);
	bts_rec_iter_free(it);
}

/* A syscall the kernel restarts is not mistaken for the next instruction. */
TEST(session, restarted_syscall_records_nothing_extra)
{
	char *addrs = tmp_path("addrs"), *out = tmp_path("restart.btr");
	char *prog = PROG_PATH("session-restart");
	char *argv[] = { prog, addrs, NULL };
	struct bts_session_stats st;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	uint64_t after, from_after = 0;
	struct bts_trace *t;

	ASSERT_EQ(record(argv, PTBTS_MODE_BLOCK, 0, out, &st), 0);
	EXPECT_TRUE(WIFEXITED(st.status) && WEXITSTATUS(st.status) == 0);
	read_addrs(addrs, &after, NULL);
	t = open_trace(out);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	while (bts_rec_iter_next(it, &r) == 1) {
		if (r.from != after)
			continue;
		from_after++;
		EXPECT_EQ(r.to, after + 2);
	}
	EXPECT_EQ(from_after, 1u);
	bts_trace_free(t);
	free(addrs);
	free(out);
	free(prog);
	bts_rec_iter_free(it);
}
