// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace info FILE (btrace/info-trace.c): the processes of a trace, the
 * programs each ran one exec after the other, their maps and threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

TEST(info_trace, one_process_its_image_maps_and_thread)
{
	char *prog = PROG_PATH("static-entry"), re[4096];
	struct harness_cmd cmd;
	char *btr = raw_record("static-entry", NULL, 0, &cmd);

	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "info", btr, NULL), 0);
	snprintf(re, sizeof(re),
		 "^records: compact\n"
		 "process ([0-9]+) \\(parent [0-9]+\\): exited with status 0\n"
		 "  image 0: %s\n"
		 "    0x0000000000401000-0x0000000000402000 r-x 00001000 %s build-id [0-9a-f]{40}\n"
		 "    0x[0-9a-f]{16}-0x[0-9a-f]{16} r-x 00000000 \\[vdso\\] build-id [0-9a-f]+\n"
		 "(    0xffffffffff600000-0xffffffffff601000 --x 00000000 \\[vsyscall\\]\n)?"
		 "  threads: [0-9]+\n$", prog, prog);
	if (!harness_matches_lines(re, cmd.out))
		FAIL("btrace info:\n%s", cmd.out);
	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "info", "--json", btr, NULL), 0);
	snprintf(re, sizeof(re),
		 "^\\{\"format\":\"compact\",\"processes\":\\[\\{\"pid\":[0-9]+,\"ppid\":[0-9]+,\"exited\":true,"
		 "\"status\":0,\"images\":\\[\\{\"exe\":\"%s\",\"tid\":0,\"entry\":\"0x0\","
		 "\"maps\":\\[\\{\"start\":\"0x401000\",\"end\":\"0x402000\",\"prot\":\"r-x\","
		 "\"offset\":4096,\"path\":\"%s\",\"build_id\":\"[0-9a-f]{40}\"\\},",
		 prog, prog);
	if (!harness_matches_lines(re, cmd.out))
		FAIL("btrace info --json:\n%s", cmd.out);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
	free(prog);
}

TEST(info_trace, the_exec_chain_of_a_process)
{
	char *btr = harness_path(harness_tmpdir(), "chain.btr");
	struct harness_cmd cmd;

	ASSERT_EQ(harness_btrace(&cmd, 60, "record", "-o", btr, "--",
				 "/usr/bin/env", "/bin/sh", "-c", "exec /bin/true",
				 NULL), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "info", btr, NULL), 0);
	if (!harness_matches_lines("^  image 0: /usr/bin/env\n(    .*\n)+"
		     "  image 1: /usr/bin/dash \\(exec by thread [0-9]+, entry 0x[0-9a-f]+\\)\n(    .*\n)+"
		     "  image 2: /usr/bin/true \\(exec by thread [0-9]+, entry 0x[0-9a-f]+\\)\n(    .*\n)+"
		     "  threads: [0-9]+\n$", cmd.out))
		FAIL("btrace info:\n%s", cmd.out);
	EXPECT_TRUE(strstr(cmd.out, " /usr/lib/x86_64-linux-gnu/libc.so.6 build-id ") != NULL);
	harness_cmd_free(&cmd);
	EXPECT_EQ(harness_btrace(&cmd, 60, "info", "/nonexistent.btr", NULL), 1);
	harness_cmd_free(&cmd);
	EXPECT_EQ(harness_btrace(&cmd, 60, "info", btr, "more", NULL), 2);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}
