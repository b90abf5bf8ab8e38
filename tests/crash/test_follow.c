// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record follows children: a child made by fork, vfork or clone is
 * a process of its own in the trace, with its own threads and records, and
 * an exec starts a new image of the process.  follow-kids runs the same
 * straight-line calls in every run, so the records around them are exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_oncrash.h"

/* child_work() calling leaf() twice, and returning. */
static const char *const child_calls[] = {
	"child_work", "leaf", "leaf", "child_work",
	"child_work", "leaf", "leaf", "child_work",
};
static const char *const parent_calls[] = {
	"parent_work", "leaf", "leaf", "parent_work",
};

struct follow_run {
	struct bts_trace *t;
	const struct bts_process_info *parent, *child;
	struct bts_symbolizer *psym, *csym;
	struct bts_trace *ctrace, *itrace;	/* of the image symbolizers */
	long pth, cth;		/* their main threads' indexes */
};

static void record(const char *mode, const char *const extra[], int want_exit,
		   const char *want_out, struct follow_run *r)
{
	char *file = harness_path(harness_tmpdir(), "t.btr");
	const char *args[8] = { "-o", file };
	const char *const pargs[] = { mode, NULL };
	struct harness_cmd c;
	size_t n = 2;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; extra && extra[i]; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	crash_btrace(args, "follow-kids", pargs, &c);
	EXPECT_EQ(harness_exit_code(&c), want_exit);
	EXPECT_STREQ(c.out, want_out);
	harness_cmd_free(&c);
	ASSERT_EQ(bts_trace_new(file, &r->t), 0);
	free(file);
	r->parent = bts_trace_process(r->t, 0);
	ASSERT_TRUE(r->parent != NULL);
	ASSERT_EQ(bts_symbolizer_new(r->t, r->parent->pid, &r->psym), 0);
	r->pth = bts_trace_thread_index(r->t, r->parent->pid);
	ASSERT_GE(r->pth, 0);
	r->child = bts_trace_process(r->t, 1);
	if (!r->child)
		return;
	/* The child's last image: where child_work() ran. */
	ASSERT_EQ(crash_image_sym(r->t, r->child->pid,
				  bts_trace_nimages(r->t, r->child->pid) - 1,
				  &r->ctrace, &r->csym), 0);
	r->cth = bts_trace_thread_index(r->t, r->child->pid);
	ASSERT_GE(r->cth, 0);
}

static void follow_free(struct follow_run *r)
{
	bts_symbolizer_free(r->psym);
	bts_symbolizer_free(r->csym);
	bts_trace_free(r->ctrace);
	bts_trace_free(r->itrace);
	bts_trace_free(r->t);
}

/* Two processes, each with its own calls only, and their ends. */
static void expect_two(struct follow_run *r)
{
	ASSERT_EQ(bts_trace_nprocesses(r->t), 2u);
	ASSERT_TRUE(r->child != NULL);
	EXPECT_EQ(r->child->ppid, r->parent->pid);
	EXPECT_TRUE(r->parent->exited && WIFEXITED(r->parent->status) &&
		    WEXITSTATUS(r->parent->status) == 0);
	EXPECT_TRUE(r->child->exited && WIFEXITED(r->child->status) &&
		    WEXITSTATUS(r->child->status) == 5);
	EXPECT_EQ(bts_trace_thread(r->t, r->cth)->pid, r->child->pid);
	EXPECT_TRUE(crash_has_calls(r->t, r->cth, r->csym, child_calls, 4));
	EXPECT_FALSE(crash_has_calls(r->t, r->cth, r->csym, parent_calls, 2));
	EXPECT_TRUE(crash_has_calls(r->t, r->pth, r->psym, parent_calls, 2));
	EXPECT_FALSE(crash_has_calls(r->t, r->pth, r->psym, child_calls, 4));
	EXPECT_EQ(bts_trace_nthreads(r->t), 2u);
}

TEST(follow, fork_child_has_its_records)
{
	struct follow_run r;

	record("fork", NULL, 0, "child 5\n", &r);
	expect_two(&r);
	EXPECT_STREQ(r.child->exe, r.parent->exe);
	EXPECT_EQ(bts_trace_nimages(r.t, r.child->pid), 1u);
	follow_free(&r);
}

TEST(follow, clone_process_has_its_records)
{
	struct follow_run r;

	record("clone", NULL, 0, "child 5\n", &r);
	expect_two(&r);
	follow_free(&r);
}

/* The records of thread @th: is the first exec marker's entry @entry? */
static bool exec_marker(const struct bts_trace *t, long th, uint64_t entry)
{
	struct ptbts_record rec;
	struct bts_rec_iter *it = NULL;
	bool found = false, same = false;

	ASSERT_EQ(bts_rec_iter_new(t, th, &it), 0);
	while (!found && bts_rec_iter_next(it, &rec) == 1)
		if (bts_record_kind(&rec) == PTBTS_KIND_EXEC) {
			found = true;
			same = rec.to == entry;
		}
	bts_rec_iter_free(it);
	return same;
}

TEST(follow, vfork_child_execs_a_new_image)
{
	const struct bts_image_info *im;
	struct follow_run r;

	record("vfork", NULL, 0, "child 5\n", &r);
	expect_two(&r);
	ASSERT_EQ(bts_trace_nimages(r.t, r.child->pid), 2u);
	im = bts_trace_image(r.t, r.child->pid, 1);
	EXPECT_EQ(im->tid, r.child->pid);
	EXPECT_TRUE(strstr(im->exe, "/follow-kids") != NULL);
	EXPECT_GT(im->nmaps, 0u);
	EXPECT_NE(im->entry, 0u);
	EXPECT_TRUE(exec_marker(r.t, r.cth, im->entry));
	EXPECT_EQ(bts_trace_nimages(r.t, r.parent->pid), 1u);
	follow_free(&r);
}

TEST(follow, exec_starts_a_new_image)
{
	const struct bts_image_info *im0, *im1;
	struct follow_run r;

	record("exec", NULL, 5, "", &r);
	ASSERT_EQ(bts_trace_nprocesses(r.t), 1u);
	ASSERT_EQ(bts_trace_nimages(r.t, r.parent->pid), 2u);
	im0 = bts_trace_image(r.t, r.parent->pid, 0);
	im1 = bts_trace_image(r.t, r.parent->pid, 1);
	EXPECT_EQ(im0->tid, 0);
	EXPECT_EQ(im1->tid, r.parent->pid);
	EXPECT_GT(im0->nmaps, 0u);
	EXPECT_GT(im1->nmaps, 0u);
	/* The new image's program is not where the old one was. */
	EXPECT_NE(im0->maps[0].start, im1->maps[0].start);
	EXPECT_TRUE(exec_marker(r.t, r.pth, im1->entry));
	bts_symbolizer_free(r.psym);
	r.psym = NULL;
	ASSERT_EQ(crash_image_sym(r.t, r.parent->pid, 1, &r.itrace, &r.psym), 0);
	EXPECT_TRUE(crash_has_calls(r.t, r.pth, r.psym, child_calls, 4));
	EXPECT_TRUE(bts_trace_image(r.t, r.parent->pid, 2) == NULL);
	follow_free(&r);
}

TEST(follow, no_follow_lets_children_go)
{
	const char *const nf[] = { "--no-follow", NULL };
	struct follow_run r;

	record("fork", nf, 0, "child 5\n", &r);
	EXPECT_EQ(bts_trace_nprocesses(r.t), 1u);
	EXPECT_EQ(bts_trace_nthreads(r.t), 1u);
	EXPECT_TRUE(crash_has_calls(r.t, r.pth, r.psym, parent_calls, 2));
	EXPECT_FALSE(crash_has_calls(r.t, r.pth, r.psym, child_calls, 4));
	follow_free(&r);
}

TEST(follow, summary_lists_processes)
{
	char *file = harness_path(harness_tmpdir(), "s.btr");
	const char *const args[] = { "-o", file, NULL };
	const char *const pargs[] = { "fork", NULL };
	struct harness_cmd c;
	int parent = 0, ppid = 0, child = 0, cparent = 0;
	char tail[256];

	crash_btrace(args, "follow-kids", pargs, &c);
	EXPECT_EQ(harness_exit_code(&c), 0);
	ASSERT_EQ(sscanf(c.err, "btrace:   process %d (follow-kids, parent %d): exited 0\n"
			 "btrace:   process %d (follow-kids, parent %d): exited 5\n"
			 "btrace: recorded 2 threads, %255[^\n]",
			 &parent, &ppid, &child, &cparent, tail), 5);
	EXPECT_EQ(cparent, parent);
	EXPECT_TRUE(strstr(tail, " to ") != NULL);
	free(file);
	harness_cmd_free(&c);
}

/*
 * speed-forms checks that a fork child's code has none of the tracer's
 * int3s and runs, that a vfork child runs code the tracer broke on, and
 * posix_spawn: all of them followed, each program's checks pass.
 */
TEST(follow, children_of_branch_stops_run_clean)
{
	char *file = harness_path(harness_tmpdir(), "f.btr");
	const char *const args[] = { "-o", file, NULL };
	struct harness_cmd c;
	struct bts_trace *t;
	size_t trues = 0;

	crash_btrace(args, "speed-forms", NULL, &c);
	EXPECT_EQ(harness_exit_code(&c), 0);
	ASSERT_EQ(bts_trace_new(file, &t), 0);
	ASSERT_EQ(bts_trace_nprocesses(t), 4u);
	for (size_t i = 1; i < 4; i++) {
		const struct bts_process_info *pi = bts_trace_process(t, i);

		EXPECT_EQ(pi->ppid, bts_trace_process(t, 0)->pid);
		EXPECT_TRUE(pi->exited && WIFEXITED(pi->status) &&
			    WEXITSTATUS(pi->status) == 0);
		if (bts_trace_nimages(t, pi->pid) == 2 &&
		    !strcmp(strrchr(bts_trace_image(t, pi->pid, 1)->exe, '/'), "/true"))
			trues++;
	}
	/* The vfork child and posix_spawn's exec /bin/true. */
	EXPECT_EQ(trues, 2u);
	bts_trace_free(t);
	harness_cmd_free(&c);
	free(file);
}
