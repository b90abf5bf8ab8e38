// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Following is exact: static-follow (tests/progs/static-follow.S, static,
 * no libc, no PIE) forks; every branch of parent and child is known, so
 * the child's whole record sequence and the parent's (none) are compared
 * exactly, with no marker between them.  Its leaf mode (an argument: no
 * fork) is the image an exec case will run; its records are exact too.
 */
#include <stdlib.h>

#include "../e2e/raw_dump.h"
#include "test_oncrash.h"

#define PROG "static-follow"

TEST(follow_exact, a_fork_child_records_exactly_its_branches)
{
	static const struct raw_pair child[] = {
		{ "fol_jz", "fol_child" },
		{ "fol_call", "fol_leaf" },
		{ "fol_leaf_ret", "fol_after" },
	};
	char *path = PROG_PATH(PROG), *btr = harness_path(harness_tmpdir(), "f.btr");
	const char *const opts[] = { "-o", btr, NULL };
	struct raw_labels labels;
	struct harness_cmd cmd;
	struct raw_dump dump;

	/* raw_record() would not follow: btrace record -o BTR PROG. */
	crash_btrace(opts, PROG, NULL, &cmd);
	ASSERT_EQ(harness_exit_code(&cmd), 0);
	raw_labels_from_elf(path, &labels);
	raw_dump_load(btr, &dump);
	/* The parent's thread first, with no branch; then the child's. */
	ASSERT_EQ(dump.n, (size_t)2);
	EXPECT_EQ(dump.threads[0].n, (size_t)0);
	raw_expect_seq("fork child", &labels, dump.threads[1].recs, dump.threads[1].n,
		       child, sizeof(child) / sizeof(child[0]));
	EXPECT_EQ(dump.threads[1].nmarkers, (size_t)0);
	EXPECT_EQ(dump.threads[0].lost + dump.threads[1].lost, (uint64_t)0);
	raw_dump_free(&dump);
	raw_labels_free(&labels);
	harness_cmd_free(&cmd);
	free(btr);
	free(path);
}

TEST(follow_exact, the_leaf_mode_records_exactly_its_branches)
{
	static const struct raw_pair want[] = {
		{ "fol_jne", "fol_leafmode" },
		{ "fol_lcall", "fol_leaf" },
		{ "fol_leaf_ret", "fol_lafter" },
	};
	char *path = PROG_PATH(PROG), *btr = harness_path(harness_tmpdir(), "l.btr");
	const char *const opts[] = { "-o", btr, NULL };
	const char *const args[] = { "leaf", NULL };
	struct raw_labels labels;
	struct harness_cmd cmd;
	struct raw_dump dump;

	crash_btrace(opts, PROG, args, &cmd);
	ASSERT_EQ(harness_exit_code(&cmd), 0);
	raw_labels_from_elf(path, &labels);
	raw_dump_load(btr, &dump);
	ASSERT_EQ(dump.n, (size_t)1);
	raw_expect_seq("leaf mode", &labels, dump.threads[0].recs, dump.threads[0].n,
		       want, sizeof(want) / sizeof(want[0]));
	EXPECT_EQ(dump.threads[0].nmarkers, (size_t)0);
	raw_dump_free(&dump);
	raw_labels_free(&labels);
	harness_cmd_free(&cmd);
	free(btr);
	free(path);
}
