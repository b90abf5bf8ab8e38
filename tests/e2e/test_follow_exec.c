// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Following an exec is exact: static-follow-exec (static, no libc, no PIE)
 * forks a child that execs static-follow in its leaf mode.  The child's
 * records are its one branch before the exec, the exec marker at the new
 * image's entry, and then exactly static-follow's leaf-mode branches; the
 * file holds the EXEC chunk (a second image of the child) with the new
 * program's maps.  The run is repeated: a fork child's execve once failed
 * with EFAULT in about a quarter of the runs (an int3 planted in the data
 * the child had just written: a block decoded past the end of the text).
 *
 * static-follow-data checks that cause on its own, in one process and
 * every run: no int3 goes into data behind the text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../crash/test_oncrash.h"
#include "raw_dump.h"

#define RUNS 10

static const struct raw_pair before_exec[] = {
	{ "exf_jz", "exf_child" },
};

static const struct raw_pair leaf_mode[] = {
	{ "fol_jne", "fol_leafmode" },
	{ "fol_lcall", "fol_leaf" },
	{ "fol_leaf_ret", "fol_lafter" },
};

struct exec_run {
	char *parent_path, *leaf_path;
	struct raw_labels parent, leaf;
};

/* Whether the maps of @img hold one of @path. */
static bool image_maps(const struct bts_image_info *img, const char *path)
{
	for (size_t i = 0; i < img->nmaps; i++)
		if (img->maps[i].path && !strcmp(img->maps[i].path, path))
			return true;
	return false;
}

/* The trace file: the child has two images, the second static-follow's. */
static void check_images(const struct exec_run *r, const char *btr)
{
	const struct bts_process_info *child;
	const struct bts_image_info *img;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nprocesses(t), 2u);
	child = bts_trace_process(t, 1);
	ASSERT_TRUE(child != NULL);
	EXPECT_EQ(bts_trace_nimages(t, bts_trace_process(t, 0)->pid), 1u);
	ASSERT_EQ(bts_trace_nimages(t, child->pid), 2u);
	img = bts_trace_image(t, child->pid, 0);
	ASSERT_TRUE(img != NULL);
	EXPECT_TRUE(image_maps(img, r->parent_path));
	img = bts_trace_image(t, child->pid, 1);
	ASSERT_TRUE(img != NULL);
	EXPECT_STREQ(img->exe, r->leaf_path);
	EXPECT_EQ((int)img->tid, (int)child->pid);
	EXPECT_EQ(img->entry, raw_label(&r->leaf, "_start"));
	EXPECT_TRUE(image_maps(img, r->leaf_path));
	EXPECT_FALSE(image_maps(img, r->parent_path));
	bts_trace_free(t);
}

/* One recording: exit 0 (the exec worked), the records exactly. */
static void one_run(const struct exec_run *r, int run)
{
	char name[32], *btr, marker[64];
	struct harness_cmd cmd;
	struct raw_dump dump;
	const struct raw_thread *c;

	snprintf(name, sizeof(name), "e%d.btr", run);
	btr = harness_path(harness_tmpdir(), name);
	{
		const char *const opts[] = { "-o", btr, NULL };
		const char *const args[] = { r->leaf_path, NULL };

		crash_btrace(opts, "static-follow-exec", args, &cmd);
	}
	if (harness_exit_code(&cmd) != 0)
		FAIL("run %d: exit %d (the child's exec failed?); stderr:\n%s",
		     run, harness_exit_code(&cmd), cmd.err);
	raw_dump_load(btr, &dump);
	ASSERT_EQ(dump.n, (size_t)2);
	/* The parent takes no branch (both of its jumps fall through). */
	EXPECT_EQ(dump.threads[0].n, (size_t)0);
	EXPECT_EQ(dump.threads[0].nmarkers, (size_t)0);
	c = &dump.threads[1];
	ASSERT_EQ(c->n, (size_t)4);
	ASSERT_EQ(c->nmarkers, (size_t)1);
	snprintf(marker, sizeof(marker), "exec 0x%" PRIx64,
		 raw_label(&r->leaf, "_start"));
	EXPECT_STREQ(c->markers[0], marker);
	EXPECT_EQ(c->marker_pos[0], (size_t)1);
	raw_expect_seq("before the exec", &r->parent, c->recs, 1, before_exec, 1);
	raw_expect_seq("the exec'd image", &r->leaf, c->recs + 1, c->n - 1,
		       leaf_mode, sizeof(leaf_mode) / sizeof(leaf_mode[0]));
	check_images(r, btr);
	raw_dump_free(&dump);
	harness_cmd_free(&cmd);
	free(btr);
}

TEST(follow_exec, an_exec_child_records_exactly_the_new_image)
{
	struct exec_run r;

	r.parent_path = PROG_PATH("static-follow-exec");
	r.leaf_path = PROG_PATH("static-follow");
	raw_labels_from_elf(r.parent_path, &r.parent);
	raw_labels_from_elf(r.leaf_path, &r.leaf);
	for (int i = 0; i < RUNS; i++)
		one_run(&r, i);
	raw_labels_free(&r.parent);
	raw_labels_free(&r.leaf);
	free(r.parent_path);
	free(r.leaf_path);
}

TEST(follow_exec, untraced_the_exec_child_exits_0)
{
	char *leaf = PROG_PATH("static-follow"), *prog = PROG_PATH("static-follow-exec");
	char *argv[] = { prog, leaf, NULL };
	struct harness_cmd cmd;

	ASSERT_EQ(harness_run(argv, CRASH_LIMIT_S, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	harness_cmd_free(&cmd);
	free(leaf);
	free(prog);
}

TEST(follow_exec, no_int3_is_planted_in_data_behind_the_text)
{
	char *btr = harness_path(harness_tmpdir(), "d.btr");
	const char *const opts[] = { "-o", btr, NULL };
	struct harness_cmd cmd;

	crash_btrace(opts, "static-follow-data", NULL, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 0);	/* 77: an int3 in its data */
	harness_cmd_free(&cmd);
	free(btr);
}
