// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The qemu-user source: the program runs under qemu-x86_64 with our plugin,
 * and its records are those ptrace-step takes of the native run, record for
 * record.  Static programs without libc run at the same addresses under
 * both (QEMU's CPU model gives libc other paths: only the program's own
 * code is compared in seq-flow, by its labels).  QEMU's own thread shows
 * in the trace with no records; the tests compare the threads that ran
 * guest code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"
#include "seq_flow.h"

#define TIMEOUT 120

static const char *const QEMU[] = { "--source", "qemu-user", NULL };

/*
 * btrace record -o DIR/NAME.btr --no-follow OPTS... -- static-qemu [ARG];
 * asserts exit 0 and returns the trace's path.
 */
static char *record(const char *name, const char *const opts[],
		    const char *arg, struct harness_cmd *c)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("static-qemu");
	char *btr = harness_path(harness_tmpdir(), name);
	const char *argv[16];
	size_t n = 0;

	argv[n++] = btrace;
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = btr;
	argv[n++] = "--no-follow";
	for (size_t i = 0; opts && opts[i]; i++)
		argv[n++] = opts[i];
	argv[n++] = "--";
	argv[n++] = prog;
	if (arg)
		argv[n++] = arg;
	argv[n] = NULL;
	EXPECT_EQ(harness_run((char *const *)argv, TIMEOUT, c), 0);
	if (harness_exit_code(c) != 0)
		FAIL("btrace record %s exited with %d:\n%s", name,
		     harness_exit_code(c), c->err);
	free(btrace);
	free(prog);
	return btr;
}

/* The threads of @d with records, in order; their count. */
static size_t guest_threads(const struct raw_dump *d,
			    const struct raw_thread **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < d->n && n < max; i++)
		if (d->threads[i].n || d->threads[i].nmarkers)
			out[n++] = &d->threads[i];
	return n;
}

/* One program recorded by both sources, the threads that ran its code. */
struct both {
	char *qbtr, *pbtr;
	struct raw_dump qd, pd;
	const struct raw_thread *q[8], *p[8];
	size_t nq, np;
	struct raw_summary qsum;	/* qemu-user's summary line */
};

/* NAME-qemu.btr with @qopts and NAME-step.btr with ptrace-step. */
static void record_both(struct both *b, const char *name,
			const char *const qopts[], const char *arg)
{
	static const char *const step[] = { "--source", "ptrace-step", NULL };
	struct harness_cmd c;
	char file[64];

	snprintf(file, sizeof(file), "%s-qemu.btr", name);
	b->qbtr = record(file, qopts, arg, &c);
	raw_summary_parse(c.err, &b->qsum);
	harness_cmd_free(&c);
	snprintf(file, sizeof(file), "%s-step.btr", name);
	b->pbtr = record(file, step, arg, &c);
	harness_cmd_free(&c);
	raw_dump_load(b->qbtr, &b->qd);
	raw_dump_load(b->pbtr, &b->pd);
	b->nq = guest_threads(&b->qd, b->q, 8);
	b->np = guest_threads(&b->pd, b->p, 8);
}

static void free_both(struct both *b)
{
	raw_dump_free(&b->qd);
	raw_dump_free(&b->pd);
	free(b->qbtr);
	free(b->pbtr);
}

/* static-qemu's flow, from the call of flow to the return from it. */
static const struct raw_pair flow_records[] = {
	{ "sq_call_flow", "flow" },
	{ "fl_jmp_table", "fl_case0" },
	{ "fl_case0", "fl_next" },
	{ "fl_loop_jb", "fl_loop" },
	{ "fl_jmp_table", "fl_case1" },
	/* a jump to the next instruction is taken */
	{ "fl_jmp_next", "fl_jmp_next_to" },
	{ "fl_loop_jb", "fl_loop" },
	{ "fl_jmp_table", "fl_case2" },
	/* the loop's jb and the jz are not taken: no record */
	{ "fl_call_reg", "leaf" },
	{ "leaf_ret", "fl_call_mem" },
	{ "fl_call_mem", "tail_caller" },
	{ "tail_jmp", "leaf" },
	{ "leaf_ret", "fl_after_call_mem" },
	/* rep stosb, rep movsb, getpid, kill: nothing; then SIGUSR1 */
	{ "fl_after_kill", "usr1_handler" },
	{ "usr1_ret", "restorer" },
	{ "restorer_syscall", "fl_after_kill" },
	/* the load in the middle of its block faults */
	{ "fl_fault", "segv_handler" },
	{ "segv_ret", "restorer" },
	{ "restorer_syscall", "fl_after_fault" },
	{ "fl_ret", "sq_after_flow" },
};
#define NFLOW (sizeof(flow_records) / sizeof(flow_records[0]))

static int flow_kind(size_t i)
{
	switch (i) {
	case 13: case 16:
		return PTBTS_KIND_SIGNAL;
	case 15: case 18:
		return PTBTS_KIND_SIGRETURN;
	default:
		return PTBTS_KIND_BRANCH;
	}
}

/* The kinds of thread @ti's records, from its record @start on. */
static void expect_flow_kinds(const char *btr, size_t ti, size_t start)
{
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	struct bts_trace *t;
	size_t b = 0;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_LT(ti, bts_trace_nthreads(t));
	ASSERT_EQ(bts_rec_iter_new(t, ti, &it), 0);
	while (b < start + NFLOW && bts_rec_iter_next(it, &rec) > 0) {
		if (!rec.from || b++ < start)
			continue;
		EXPECT_EQ(bts_record_kind(&rec), flow_kind(b - 1 - start));
	}
	EXPECT_EQ(b, start + NFLOW);
	bts_rec_iter_free(it);
	bts_trace_free(t);
}

static size_t index_of(const struct raw_dump *d, const struct raw_thread *t)
{
	return (size_t)(t - d->threads);
}

TEST(qemu_user, static_flow_same_as_ptrace_step)
{
	char *prog = PROG_PATH("static-qemu");
	struct raw_labels l;
	struct both b;
	size_t start;

	record_both(&b, "flow", QEMU, NULL);
	ASSERT_EQ(b.nq, (size_t)1);
	ASSERT_EQ(b.np, (size_t)1);
	/* Every record, from the first instruction to exit_group. */
	raw_expect_same_thread(b.q[0], "qemu-user", b.p[0], "ptrace-step");
	EXPECT_EQ(b.q[0]->nmarkers, (size_t)0);
	raw_labels_from_elf(prog, &l);
	start = raw_find_one(b.q[0], raw_label(&l, "sq_call_flow"), 0);
	raw_expect_seq("flow", &l, b.q[0]->recs + start,
		       b.q[0]->n - start < NFLOW ? b.q[0]->n - start : NFLOW,
		       flow_records, NFLOW);
	expect_flow_kinds(b.qbtr, index_of(&b.qd, b.q[0]), start);
	raw_labels_free(&l);
	free_both(&b);
	free(prog);
}

/* seq-flow (PIE, libc): seq_run's records as test_seq.c writes them. */
TEST(qemu_user, seq_flow_exact_sequence)
{
	struct flow f;

	record_flow_with(&f, QEMU);
	expect_seq_run(&f);
	free_flow(&f);
}

/* static-qemu's worker: its first record, then TH_LOOPS rounds. */
#define TH_LOOPS 300
#define WORKER_RECORDS (1 + 2 * TH_LOOPS + TH_LOOPS - 1)

/*
 * Four threads, BLOCK mode, 4 KiB a thread (170 records): each worker's
 * 899 records all arrive , the same as ptrace-step's, with no marker.
 */
TEST(qemu_user, block_4k_four_threads_nothing_lost)
{
	static const char *const opts[] = { "--source", "qemu-user",
					    "--buffer", "4096", NULL };
	struct both b;
	size_t i;

	record_both(&b, "block", opts, "threads");
	EXPECT_EQ(b.qsum.lost, 0u);
	ASSERT_EQ(b.nq, (size_t)5);
	ASSERT_EQ(b.np, (size_t)5);
	for (i = 1; i < 5; i++) {
		EXPECT_EQ(b.q[i]->n, (size_t)WORKER_RECORDS);
		EXPECT_EQ(b.q[i]->nmarkers, (size_t)0);
		raw_expect_same_thread(b.q[i], "qemu-user", b.p[i], "ptrace-step");
	}
	EXPECT_EQ(b.q[0]->nmarkers, (size_t)0);
	free_both(&b);
}

/*
 * RING mode, 4 KiB a thread: each worker keeps its newest 170 records
 * after one LOST marker for the 730 overwritten.
 */
TEST(qemu_user, ring_4k_keeps_the_newest)
{
	static const char *const opts[] = { "--source", "qemu-user", "--mode",
					    "ring", "--buffer", "4096", NULL };
	const size_t keep = (4096 / sizeof(struct ptbts_record));
	struct both b;
	size_t i, k;

	record_both(&b, "ring", opts, "threads");
	ASSERT_EQ(b.nq, (size_t)5);
	ASSERT_EQ(b.np, (size_t)5);
	for (i = 1; i < 5; i++) {
		const struct raw_thread *q = b.q[i], *p = b.p[i];

		ASSERT_EQ(q->n, keep);
		ASSERT_EQ(q->nmarkers, (size_t)1);
		EXPECT_EQ(q->lost, (uint64_t)(WORKER_RECORDS - keep));
		EXPECT_EQ(q->marker_pos[0], (size_t)0);
		ASSERT_EQ(p->n, (size_t)WORKER_RECORDS);
		for (k = 0; k < keep; k++) {
			const struct raw_rec *x = &q->recs[k], *y = &p->recs[p->n - keep + k];

			if (x->from != y->from || x->to != y->to)
				FAIL("thread %zu record %zu: 0x%llx -> 0x%llx, "
				     "ptrace-step's newest: 0x%llx -> 0x%llx", i, k,
				     (unsigned long long)x->from,
				     (unsigned long long)x->to,
				     (unsigned long long)y->from,
				     (unsigned long long)y->to);
		}
	}
	free_both(&b);
}

/* ------------------------------------------------------------- bad input */

/* btrace record --source qemu-user with @var=@val: exit 125, no file. */
static void expect_refused(const char *var, const char *val, const char *want)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("static-qemu");
	char *btr = harness_path(harness_tmpdir(), "refused.btr");
	char *argv[] = { btrace, "record", "-o", btr, "--source", "qemu-user",
			 "--", prog, NULL };
	char *old = getenv(var) ? strdup(getenv(var)) : NULL;
	struct harness_cmd c;

	setenv(var, val, 1);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	if (old)
		setenv(var, old, 1);
	else
		unsetenv(var);
	EXPECT_EQ(harness_exit_code(&c), 125);
	EXPECT_STREQ(c.err, want);
	EXPECT_EQ(c.out_len, 0u);
	EXPECT_NE(access(btr, F_OK), 0);
	harness_cmd_free(&c);
	free(old);
	free(btr);
	free(prog);
	free(btrace);
}

TEST(qemu_user, missing_qemu_is_one_line_and_125)
{
	expect_refused("BTS_QEMU", "/nonexistent/qemu-x86_64",
		       "btrace: record: source qemu-user is not available: "
		       "/nonexistent/qemu-x86_64 (BTS_QEMU): No such file or directory\n");
}

TEST(qemu_user, a_plugin_qemu_would_refuse_is_one_line_and_125)
{
	char *lib = BTRACE_PATH(), want[1024];	/* an ELF file, no plugin */

	snprintf(want, sizeof(want), "btrace: record: source qemu-user is not "
		 "available: %s: not a QEMU plugin (it exports no "
		 "qemu_plugin_install and qemu_plugin_version)\n", lib);
	expect_refused("BTS_QEMU_PLUGIN", lib, want);
	free(lib);
}

/*
 * A QEMU that ends before it installed the plugin (/bin/false stands for
 * one whose plugin API refuses ours): 125, and no trace of a program that
 * never ran.
 */
TEST(qemu_user, qemu_that_loads_no_plugin_is_125)
{
	char *plugin = harness_path(BTS_BUILD_DIR, "ptbts-qemu-user.so"), want[1024];

	snprintf(want, sizeof(want), "btrace: record: branch source not available "
		 "(/bin/false did not load the plugin %s (its message above))\n",
		 plugin);
	expect_refused("BTS_QEMU", "/bin/false", want);
	free(plugin);
}

/*
 * The plugin given descriptors it cannot map refuses to load, and QEMU
 * ends before the program's first instruction: never run untraced.
 */
TEST(qemu_user, plugin_without_the_tracer_pages_never_runs_the_program)
{
	char *prog = PROG_PATH("static-oracle"), spec[1024];
	char *plugin = harness_path(BTS_BUILD_DIR, "ptbts-qemu-user.so");
	char *argv[] = { "/usr/bin/qemu-x86_64", "-plugin", spec, prog, NULL };
	struct harness_cmd c;

	snprintf(spec, sizeof(spec), "%s,fd=250,evfd=251", plugin);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	EXPECT_NE(harness_exit_code(&c), 0);
	EXPECT_EQ(c.out_len, 0u);	/* static-oracle prints when it runs */
	EXPECT_TRUE(strstr(c.err, "ptbts-qemu: cannot map the tracer's pages\n") != NULL);
	harness_cmd_free(&c);
	free(plugin);
	free(prog);
}

/* -------------------------------------------------------- fork and exec */

static void record_follow(const char *name, const char *source, char **btr,
			  struct harness_cmd *c, struct raw_dump *d)
{
	char *btrace = BTRACE_PATH(), *exec = PROG_PATH("static-follow-exec");
	char *leaf = PROG_PATH("static-follow");
	char *argv[] = { btrace, "record", "-o", NULL, "--source", (char *)source,
			 "--", exec, leaf, NULL };

	*btr = harness_path(harness_tmpdir(), name);
	argv[3] = *btr;
	ASSERT_EQ(harness_run(argv, TIMEOUT, c), 0);
	EXPECT_EQ(harness_exit_code(c), 0);
	raw_dump_load(*btr, d);
	free(leaf);
	free(exec);
	free(btrace);
}

/*
 * static-follow-exec forks a child that execs static-follow.  The child
 * (a copy of QEMU and its plugin) is followed: its records before the
 * exec are ptrace-step's.  QEMU runs the exec'd program natively: an EXEC
 * marker, a DISABLED gap, and a line in the summary, never a silent loss.
 */
TEST(qemu_user, fork_followed_exec_marked)
{
	const struct raw_thread *q[8], *p[8];
	struct raw_dump qd, pd;
	struct harness_cmd c;
	char *qbtr, *pbtr;
	size_t nq, np;

	record_follow("exec-qemu.btr", "qemu-user", &qbtr, &c, &qd);
	EXPECT_TRUE(strstr(c.err, "exec'd static-follow, which qemu-user ran "
			   "natively: not recorded from its exec on\n") != NULL);
	harness_cmd_free(&c);
	record_follow("exec-step.btr", "ptrace-step", &pbtr, &c, &pd);
	harness_cmd_free(&c);
	nq = guest_threads(&qd, q, 8);
	np = guest_threads(&pd, p, 8);
	/* ptrace-step: the child, through its exec, to the leaf's end. */
	ASSERT_EQ(nq, (size_t)1);
	ASSERT_EQ(np, (size_t)1);
	ASSERT_EQ(q[0]->nmarkers, (size_t)2);
	EXPECT_TRUE(!strncmp(q[0]->markers[0], "exec 0x", 7));
	EXPECT_STREQ(q[0]->markers[1], "gap disabled");
	EXPECT_EQ(q[0]->marker_pos[0], q[0]->n);
	/* Before the exec, the same records. */
	ASSERT_EQ(p[0]->nmarkers, (size_t)1);
	ASSERT_EQ(p[0]->marker_pos[0], q[0]->n);
	EXPECT_STREQ(p[0]->markers[0], q[0]->markers[0]);
	for (size_t i = 0; i < q[0]->n; i++) {
		EXPECT_EQ(q[0]->recs[i].from, p[0]->recs[i].from);
		EXPECT_EQ(q[0]->recs[i].to, p[0]->recs[i].to);
	}
	raw_dump_free(&qd);
	raw_dump_free(&pd);
	free(qbtr);
	free(pbtr);
}

/* ------------------------------------------------------------- STOP mode */

/* static-qemu threads recorded through libbts with @o into @out: its stats. */
static void record_threads_api(struct bts_session_opts *o, const char *out,
			       struct bts_session_stats *st)
{
	char *prog = PROG_PATH("static-qemu");
	char *argv[] = { prog, "threads", NULL };
	struct bts_session *s;
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(out, &w), 0);
	o->writer = w;
	ASSERT_EQ(bts_session_new_spawn(argv, o, &s), 0);
	EXPECT_EQ(bts_session_run(s), 0);
	bts_session_stats(s, st, sizeof(*st));
	bts_session_free(s);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	free(prog);
}

/*
 * STOP mode with a size bound smaller than what the workers make: the
 * record past the bound may be one the plugin dropped (the rings are
 * full), yet the recording is cut there and the program killed, not left
 * waiting for a record that never comes.
 */
TEST(qemu_user, stop_mode_is_cut_at_max_size)
{
	char *out = harness_path(harness_tmpdir(), "stop-cut.btr");
	BTS_OPTS(bts_session_opts, o, .source = PTBTS_SOURCE_QEMU_USER,
		 .mode = PTBTS_MODE_STOP, .buffer_size = 4096, .no_follow = true,
		 .max_size = 2000 * sizeof(struct ptbts_record));
	struct bts_session_stats st;

	record_threads_api(&o, out, &st);
	EXPECT_EQ(st.cut, (int)BTS_CUT_MAX_SIZE);
	EXPECT_LE(st.records, (uint64_t)2000);
	unlink(out);
	free(out);
}

/*
 * STOP mode (libbts's, btrace has no option for it), 4 KiB a thread: each
 * worker keeps its oldest 170 records, ptrace-step's first ones, then one
 * LOST marker for the 730 the plugin counted and did not write.
 */
TEST(qemu_user, stop_4k_keeps_the_oldest)
{
	char *out = harness_path(harness_tmpdir(), "stop.btr");
	BTS_OPTS(bts_session_opts, o, .source = PTBTS_SOURCE_QEMU_USER,
		 .mode = PTBTS_MODE_STOP, .buffer_size = 4096, .no_follow = true);
	const size_t keep = 4096 / sizeof(struct ptbts_record);
	const struct raw_thread *p[8];
	struct bts_session_stats st;
	struct bts_trace *t;
	struct raw_dump pd;
	struct harness_cmd c;
	size_t i, workers = 0;
	char *pbtr;

	record_threads_api(&o, out, &st);
	EXPECT_EQ(st.lost, (uint64_t)(4 * (WORKER_RECORDS - keep)));
	pbtr = record("stop-step.btr", (const char *const[]){ "--source",
		      "ptrace-step", NULL }, "threads", &c);
	harness_cmd_free(&c);
	raw_dump_load(pbtr, &pd);
	ASSERT_EQ(guest_threads(&pd, p, 8), (size_t)5);
	ASSERT_EQ(bts_trace_new(out, &t), 0);
	for (i = 0; i < bts_trace_nthreads(t); i++) {
		struct ptbts_record r;
		struct bts_rec_iter *it = NULL;
		size_t n = 0;

		if (bts_trace_thread(t, i)->nrecords != keep + 1)
			continue;
		workers++;
		ASSERT_EQ(bts_rec_iter_new(t, i, &it), 0);
		while (bts_rec_iter_next(it, &r) > 0 && n < keep) {
			EXPECT_EQ(r.from, p[workers]->recs[n].from);
			EXPECT_EQ(r.to, p[workers]->recs[n].to);
			n++;
		}
		EXPECT_EQ(n, keep);
		EXPECT_EQ(bts_record_kind(&r), PTBTS_KIND_LOST);
		EXPECT_EQ(r.to, (uint64_t)(WORKER_RECORDS - keep));
		bts_rec_iter_free(it);
	}
	EXPECT_EQ(workers, (size_t)4);
	bts_trace_free(t);
	raw_dump_free(&pd);
	free(pbtr);
	free(out);
}

/* -p: QEMU records only the programs it starts; gdbserver: not driven. */
TEST(qemu_user, attach_and_gdbserver_are_refused)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("static-qemu");
	char *btr = harness_path(harness_tmpdir(), "attach.btr"), pid[16], want[256];
	char *attach[] = { btrace, "record", "-o", btr, "--source", "qemu-user",
			   "-p", pid, NULL };
	char *gdb[] = { btrace, "gdbserver", "--source", "qemu-user", "--", prog,
			NULL };
	struct harness_cmd c;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ASSERT_EQ(harness_run(attach, TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 125);
	snprintf(want, sizeof(want), "btrace: record: process %s: branch source not "
		 "available (qemu-user records the programs it starts only: no "
		 "attaching (-p))\n", pid);
	EXPECT_STREQ(c.err, want);
	EXPECT_NE(access(btr, F_OK), 0);
	harness_cmd_free(&c);
	ASSERT_EQ(harness_run(gdb, TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 2);
	EXPECT_STREQ(c.err, "btrace: gdbserver: --source qemu-user: gdb can drive "
		     "the ptrace-step and kmod-step sources only\n");
	harness_cmd_free(&c);
	free(btr);
	free(prog);
	free(btrace);
}

/* ------------------------------------------------------ plugin's memory */

/*
 * QEMU run by valgrind (BTS_QEMU is a script): what the plugin allocates
 * for each translated block is freed at QEMU's exit, so that no leak or
 * memory error valgrind reports names one of the plugin's functions or
 * files.
 */
TEST(qemu_user, plugin_frees_its_blocks_at_exit)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("static-qemu");
	char *btr = harness_path(harness_tmpdir(), "valgrind.btr");
	char *log = harness_path(harness_tmpdir(), "valgrind.log");
	char *qemu = harness_path(harness_tmpdir(), "qemu-valgrind");
	char *argv[] = { btrace, "record", "-o", btr, "--source", "qemu-user",
			 "--", prog, "threads", NULL };
	char *cat[] = { "/bin/cat", log, NULL };
	static const char *const ours[] = { ": pq_", "(plugin.c:",
		"(translate.c:", "(produce.c:", "(branch.c:" };
	char *old = getenv("BTS_QEMU") ? strdup(getenv("BTS_QEMU")) : NULL;
	struct harness_cmd c;
	FILE *f;
	size_t i;

	f = fopen(qemu, "w");
	ASSERT_TRUE(f != NULL);
	/*
	 * Not "possibly lost": glibc's TLS blocks of the guest threads still
	 * running at exit are (the plugin's thread-local state among them).
	 */
	fprintf(f, "#!/bin/sh\nexec valgrind --leak-check=full "
		"--show-leak-kinds=definite,indirect --smc-check=all "
		"--log-file='%s' /usr/bin/qemu-x86_64 \"$@\"\n", log);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(chmod(qemu, 0755), 0);
	setenv("BTS_QEMU", qemu, 1);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	if (old)
		setenv("BTS_QEMU", old, 1);
	else
		unsetenv("BTS_QEMU");
	EXPECT_EQ(harness_exit_code(&c), 0);
	harness_cmd_free(&c);
	ASSERT_EQ(harness_run(cat, TIMEOUT, &c), 0);
	EXPECT_TRUE(strstr(c.out, "ERROR SUMMARY:") != NULL);
	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strstr(c.out, ours[i]))
			FAIL("valgrind names the plugin (%s):\n%s", ours[i], c.out);
	harness_cmd_free(&c);
	free(old);
	free(qemu);
	free(log);
	free(btr);
	free(prog);
	free(btrace);
}
