// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A child that shares its parent's memory (clone with CLONE_VM, neither
 * CLONE_THREAD nor CLONE_VFORK): static-follow-vm (static, no libc, no
 * PIE) runs the same loop in parent and child, at the same time, in the
 * one memory.  The int3s there are one set for both processes: both
 * record exactly their branches, with no gap, whether the clone is
 * reported as a fork (exit signal SIGCHLD) or as a clone (no exit signal),
 * and when the parent execs while the child still runs in the old memory.
 * Each mode runs a few times: the parent and the child race.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../crash/test_oncrash.h"
#include "raw_dump.h"

#define RUNS 4

/* vm_work called at CALL, returning to AFTER: its loop runs three times. */
#define WORK(call, after) \
	{ call, "vm_work" }, { "vm_jnz", "vm_loop" }, { "vm_jnz", "vm_loop" }, \
	{ "vm_ret", after }

static const struct raw_pair parent_waits[] = {
	WORK("vm_call0", "vm_after0"),
	WORK("vm_pcall1", "vm_pafter1"),
	WORK("vm_pcall2", "vm_pafter2"),
};

static const struct raw_pair child_runs[] = {
	{ "vm_jz", "vm_child" },
	{ "vm_jwait", "vm_cwork" },
	WORK("vm_ccall", "vm_cafter"),
};

static const struct raw_pair parent_execs[] = {
	WORK("vm_call0", "vm_after0"),
	WORK("vm_pcall1", "vm_pafter1"),
	{ "vm_jexec", "vm_pexec" },
};

static const struct raw_pair leaf_mode[] = {
	{ "fol_jne", "fol_leafmode" },
	{ "fol_lcall", "fol_leaf" },
	{ "fol_leaf_ret", "fol_lafter" },
};

static const struct raw_pair child_waits[] = {
	{ "vm_jz", "vm_child" },
	WORK("vm_ccall", "vm_cafter"),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* btrace record -- static-follow-vm ARGS: both processes exit 0. */
static void record(const char *const args[], int run, struct raw_dump *dump)
{
	char name[32], *btr;
	struct harness_cmd cmd;

	snprintf(name, sizeof(name), "vm%d.btr", run);
	btr = harness_path(harness_tmpdir(), name);
	{
		const char *const opts[] = { "-o", btr, NULL };

		crash_btrace(opts, "static-follow-vm", args, &cmd);
	}
	if (harness_exit_code(&cmd) != 0 || !strstr(cmd.err, "): exited 0\n") ||
	    strstr(cmd.err, "killed") || strcmp(cmd.out, "child ok\n"))
		FAIL("run %d: exit %d; stdout:\n%s\nstderr:\n%s", run,
		     harness_exit_code(&cmd), cmd.out, cmd.err);
	raw_dump_load(btr, dump);
	harness_cmd_free(&cmd);
	free(btr);
}

/* Modes 0 and 2: the parent waits for the child. */
static void parent_waits_for_child(const char *const args[])
{
	char *path = PROG_PATH("static-follow-vm");
	struct raw_labels l;
	struct raw_dump d;

	raw_labels_from_elf(path, &l);
	for (int run = 0; run < RUNS; run++) {
		record(args, run, &d);
		ASSERT_EQ(d.n, (size_t)2);
		raw_expect_seq("parent", &l, d.threads[0].recs, d.threads[0].n,
			       parent_waits, N(parent_waits));
		raw_expect_seq("child", &l, d.threads[1].recs, d.threads[1].n,
			       child_runs, N(child_runs));
		EXPECT_EQ(d.threads[0].nmarkers, (size_t)0);
		EXPECT_EQ(d.threads[1].nmarkers, (size_t)0);
		raw_dump_free(&d);
	}
	raw_labels_free(&l);
	free(path);
}

TEST(follow_vm, a_clone_vm_child_reported_as_a_fork_shares_the_int3s)
{
	parent_waits_for_child(NULL);
}

TEST(follow_vm, a_clone_vm_child_reported_as_a_clone_shares_the_int3s)
{
	const char *const args[] = { "clone", "event", NULL };

	parent_waits_for_child(args);
}

TEST(follow_vm, the_child_keeps_the_int3s_when_the_parent_execs)
{
	char *path = PROG_PATH("static-follow-vm"), *leaf = PROG_PATH("static-follow");
	const char *const args[] = { leaf, NULL };
	struct raw_labels l, ll;
	char marker[64];
	struct raw_dump d;
	const struct raw_thread *p;

	raw_labels_from_elf(path, &l);
	raw_labels_from_elf(leaf, &ll);
	snprintf(marker, sizeof(marker), "exec 0x%" PRIx64, raw_label(&ll, "_start"));
	for (int run = 0; run < RUNS; run++) {
		record(args, run, &d);
		ASSERT_EQ(d.n, (size_t)2);
		p = &d.threads[0];
		ASSERT_EQ(p->n, N(parent_execs) + N(leaf_mode));
		ASSERT_EQ(p->nmarkers, (size_t)1);
		EXPECT_STREQ(p->markers[0], marker);
		EXPECT_EQ(p->marker_pos[0], N(parent_execs));
		raw_expect_seq("parent", &l, p->recs, N(parent_execs),
			       parent_execs, N(parent_execs));
		raw_expect_seq("parent's new image", &ll, p->recs + N(parent_execs),
			       N(leaf_mode), leaf_mode, N(leaf_mode));
		raw_expect_seq("child", &l, d.threads[1].recs, d.threads[1].n,
			       child_waits, N(child_waits));
		EXPECT_EQ(d.threads[1].nmarkers, (size_t)0);
		raw_dump_free(&d);
	}
	raw_labels_free(&ll);
	raw_labels_free(&l);
	free(leaf);
	free(path);
}

/*
 * Not followed, the child runs through the int3s in the shared memory
 * unrecorded; when the parent execs, they come out of the memory the
 * child keeps, and it runs on to its end untraced.
 */
TEST(follow_vm, not_followed_the_child_outlives_the_parents_exec)
{
	char *leaf = PROG_PATH("static-follow");
	char *btr = harness_path(harness_tmpdir(), "n.btr");
	const char *const opts[] = { "--no-follow", "-o", btr, NULL };
	const char *const args[] = { leaf, NULL };
	struct harness_cmd cmd;

	for (int run = 0; run < RUNS; run++) {
		crash_btrace(opts, "static-follow-vm", args, &cmd);
		EXPECT_EQ(harness_exit_code(&cmd), 0);
		EXPECT_STREQ(cmd.out, "child ok\n");
		harness_cmd_free(&cmd);
	}
	free(btr);
	free(leaf);
}
