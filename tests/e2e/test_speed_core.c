// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The int3s of branch stops are out of the program before a fatal signal
 * is delivered, so its core dump shows the original code: speed-core sees
 * int3s in its own code page while it runs traced, then dies of SIGABRT;
 * the page in the core must equal the same bytes of its file.
 *
 * Cores are enabled for btrace (and so the program) with `ulimit -c` in a
 * shell that also enters a fresh temporary directory; the host's
 * core_pattern must name a file there (this host: "core"): a pattern that
 * pipes to a program is reported as a failure, not skipped.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_dump.h"
#include "harness.h"
#include "raw_dump.h"

#define PAGE 4096

/* btrace record in @dir, cores enabled there. */
static void record_in(const char *dir, const char *btr, struct harness_cmd *cmd)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("speed-core");
	char *argv[] = {
		btrace, "record", "-o", (char *)btr, "--no-follow", "--", prog, NULL,
	};

	core_run_in(dir, argv, cmd);
	free(btrace);
	free(prog);
}

TEST(speed_core, a_core_dump_shows_no_int3_of_ours)
{
	unsigned char orig[PAGE], dumped[PAGE];
	char *dir, *exe, *core, *btr;
	struct raw_labels labels;
	struct harness_cmd cmd;
	const char *c;

	core_require_cwd_pattern();
	dir = harness_path(harness_tmpdir(), "cores");
	btr = harness_path(dir, "speed-core.btr");
	ASSERT_EQ(mkdir(dir, 0700), 0);
	record_in(dir, btr, &cmd);
	if (harness_exit_code(&cmd) != 128 + SIGABRT)
		FAIL("btrace record speed-core exited with %d; stderr:\n%s",
		     harness_exit_code(&cmd), cmd.err);
	raw_labels_parse(cmd.out, &labels);
	c = strstr(cmd.out, "changed ");
	ASSERT_TRUE(c != NULL);
	/* The tracer's int3s were in the page while the program ran. */
	EXPECT_GT(atoi(c + 8), 0);
	exe = PROG_PATH("speed-core");
	core_file_bytes(exe, raw_label(&labels, "page") - raw_label(&labels, "base"),
			orig, sizeof(orig));
	core = core_find(dir);
	if (!core)
		FAIL("no core file in %s", dir);
	ASSERT_TRUE(core_read(core, raw_label(&labels, "page"), dumped, sizeof(dumped)));
	EXPECT_EQ(memcmp(dumped, orig, sizeof(orig)), 0);
	raw_labels_free(&labels);
	harness_cmd_free(&cmd);
	unlink(core);
	free(core);
	free(btr);
	free(exe);
	free(dir);
}
