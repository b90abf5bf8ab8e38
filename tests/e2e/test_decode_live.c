// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoding while the traced program lives: a program attached (BLOCK
 * mode: no record of it may be lost) runs code it generated in anonymous memory, the session stops
 * (the program runs on, detached), and the decoder reads that code from
 * the program's memory through the session.  Offline, the same code is a
 * gap: no file holds it.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"

struct live_prog {
	pid_t pid;
	int in, out;		/* its stdin (ours to write), its stdout */
	uint64_t jit;
};

static void start_prog(struct live_prog *p)
{
	char *prog = PROG_PATH("decode-live"), line[128];
	int in[2], out[2];
	ssize_t n;

	ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
	ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
	p->pid = fork();
	ASSERT_TRUE(p->pid >= 0);
	if (!p->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = in[1];
	p->out = out[0];
	n = read(p->out, line, sizeof(line) - 1);
	ASSERT_GT(n, 0);
	line[n] = 0;
	ASSERT_EQ(sscanf(line, "label jit %" SCNx64, &p->jit), 1);
	free(prog);
}

struct tracer {
	pid_t pid;
	struct bts_writer *w;
	struct bts_session *s;
	int attached;		/* written once attached (or failed) */
	int ret;
};

/* ptrace is per thread: the session attaches in the thread that runs it. */
static void *tracer_thread(void *arg)
{
	struct tracer *tr = arg;

	BTS_OPTS(bts_session_opts, o, .mode = PTBTS_MODE_BLOCK, .writer = tr->w);
	tr->ret = bts_session_new_attach(tr->pid, &o, &tr->s);
	if (write(tr->attached, "a", 1) != 1 || tr->ret < 0)
		return NULL;
	tr->ret = bts_session_run(tr->s);
	return NULL;
}

static void wake(int sig)
{
	(void)sig;
}

/* 't' or 'T': the program stopped itself (under the tracer or not). */
static void wait_stopped(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (;;) {
		f = fopen(path, "r");
		ASSERT_TRUE(f != NULL);
		buf[0] = 0;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		p = strrchr(buf, ')');
		if (p && (p[2] == 't' || p[2] == 'T'))
			return;
		usleep(1000);
	}
}

/*
 * Attaches, lets the program call its code once and stop itself, then
 * stops the session: the program stays, stopped and untraced.
 */
static struct bts_session *record(struct live_prog *p, const char *path)
{
	struct sigaction sa = { .sa_handler = wake }, old;
	struct tracer tr = { .pid = p->pid };
	char line[64] = "", c;
	int sync[2];
	pthread_t th;

	ASSERT_EQ(bts_writer_new(path, &tr.w), 0);
	ASSERT_EQ(pipe(sync), 0);
	tr.attached = sync[1];
	alarm(300);
	ASSERT_EQ(pthread_create(&th, NULL, tracer_thread, &tr), 0);
	ASSERT_EQ(read(sync[0], &c, 1), 1);
	close(sync[0]);
	close(sync[1]);
	if (tr.ret < 0) {
		pthread_join(th, NULL);
		FAIL("attach: %d", tr.ret);
	}
	ASSERT_EQ(write(p->in, "g", 1), 1);
	ASSERT_GT(read(p->out, line, sizeof(line) - 1), 0);
	EXPECT_STREQ(line, "done 6\n");
	wait_stopped(p->pid);
	/* as btrace does it: a signal (no SA_RESTART) ends the tracer's wait */
	sigaction(SIGUSR2, &sa, &old);
	bts_session_stop(tr.s);
	pthread_kill(th, SIGUSR2);
	pthread_join(th, NULL);
	sigaction(SIGUSR2, &old, NULL);
	alarm(0);
	EXPECT_EQ(tr.ret, 0);
	ASSERT_EQ(bts_writer_finish(tr.w), 0);
	bts_writer_free(tr.w);
	return tr.s;
}

struct seen {
	uint64_t off;
	int iclass;		/* or the gap reason, for a gap */
	uint16_t flags;
};

/* The entries at the generated code, and the gap that stands for it. */
static size_t decode_jit(struct bts_trace *t, struct bts_session *live,
			 uint64_t jit, struct seen *out, size_t max)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	size_t n = 0;

	BTS_OPTS(bts_decoder_opts, o, .live = live);
	ASSERT_EQ(bts_insn_decoder_new(t, 0, &o, &d), 0);
	while (bts_insn_next(d, &e, sizeof(e)) > 0) {
		bool gap = e.iclass == BTS_ICLASS_GAP;
		uint64_t at = gap ? e.gap_arg : e.ip;

		if (at < jit || at >= jit + 4096)
			continue;
		ASSERT_LT(n, max);
		out[n++] = (struct seen){ at - jit, gap ? (int)e.gap : e.iclass,
					  gap ? 0 : e.flags };
	}
	bts_insn_decoder_free(d);
	return n;
}

TEST(decode_live, generated_code_only_from_the_live_process)
{
	static const struct seen want_live[] = {
		{ 0, BTS_ICLASS_OTHER, 0 }, { 5, BTS_ICLASS_OTHER, 0 },
		{ 8, BTS_ICLASS_COND, BTS_IF_TAKEN },
		{ 11, BTS_ICLASS_OTHER, 0 },
		{ 13, BTS_ICLASS_RETURN, BTS_IF_TAKEN },
	};
	/* the call's target, the je (its record's from), its target, the ret */
	static const uint64_t want_offline[] = { 0, 8, 11, 13 };
	char *path = harness_path(harness_tmpdir(), "live.btr");
	struct live_prog p;
	struct bts_session *s;
	struct bts_trace *t;
	struct seen got[16];
	size_t n, i;
	int status;

	start_prog(&p);
	s = record(&p, path);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), 1u);

	if (waitpid(p.pid, &status, WNOHANG) == p.pid)
		FAIL("the program died when the session detached (status 0x%x)",
		     status);
	n = decode_jit(t, s, p.jit, got, 16);
	ASSERT_EQ(n, sizeof(want_live) / sizeof(want_live[0]));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(got[i].off, want_live[i].off);
		EXPECT_EQ(got[i].iclass, want_live[i].iclass);
		EXPECT_EQ(got[i].flags, want_live[i].flags);
	}
	/* offline: a gap at each place a record names in it, nothing else */
	n = decode_jit(t, NULL, p.jit, got, 16);
	ASSERT_EQ(n, sizeof(want_offline) / sizeof(want_offline[0]));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(got[i].off, want_offline[i]);
		EXPECT_EQ(got[i].iclass, BTS_GAP_NOCODE);
	}

	bts_trace_free(t);
	bts_session_free(s);
	/* it lay still, untraced, until now */
	EXPECT_EQ(waitpid(p.pid, &status, WNOHANG), 0);
	kill(p.pid, SIGKILL);
	ASSERT_EQ(waitpid(p.pid, &status, 0), p.pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(p.in);
	close(p.out);
	free(path);
}
