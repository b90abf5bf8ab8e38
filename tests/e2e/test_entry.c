// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The history starts at the entry point (libbts/trace/writer_optional.c): records
 * start at the first taken branch, but a spawned program ran from its
 * entry point up to it, and --insns shows those instructions too.
 * static-entry runs six instructions before its first call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

TEST(entry, insns_start_at_the_entry_point)
{
	static const char *const want[] = {
		"\"n\":1,\"ip\":\"0x401000\",\"size\":5,",
		"\"n\":2,\"ip\":\"0x401005\",\"size\":5,",
		"\"n\":3,\"ip\":\"0x40100a\",\"size\":2,",
		"\"n\":4,\"ip\":\"0x40100c\",\"size\":2,",
		"\"n\":5,\"ip\":\"0x40100e\",\"size\":1,",
		"\"n\":6,\"ip\":\"0x40100f\",\"size\":3,",
		"\"n\":7,\"ip\":\"0x401012\",\"size\":5,\"bytes\":\"e80a000000\",\"class\":\"call\"",
		"\"n\":8,\"ip\":\"0x401021\",\"size\":1,",
	};
	struct harness_cmd cmd;
	char *btr = raw_record("static-entry", NULL, 0, &cmd);
	char *line, *save;
	size_t n = 0;

	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "dump", "--insns", "--json", btr,
				 NULL), 0);
	for (line = strtok_r(cmd.out, "\n", &save); line && n < 8;
	     line = strtok_r(NULL, "\n", &save), n++)
		if (!strstr(line, want[n]))
			FAIL("instruction %zu: no '%s' in\n%s", n + 1, want[n], line);
	EXPECT_EQ(n, (size_t)8);
	harness_cmd_free(&cmd);
	/* The first one starts the history, and is the entry's first byte. */
	ASSERT_EQ(harness_btrace(&cmd, 60, "dump", "--insns", btr, NULL), 0);
	EXPECT_TRUE(strstr(cmd.out, "\n1\t   0x0000000000401000 <_start+0>:\t") != NULL);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}

TEST(entry, calls_start_in_the_entry_function)
{
	struct harness_cmd cmd;
	char *btr = raw_record("static-entry", NULL, 0, &cmd);

	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "dump", "--calls", "--insn-range",
				 btr, NULL), 0);
	EXPECT_TRUE(strstr(cmd.out, "\n1\t_start\tinst 1,7\n2\ten_leaf\tinst 8,8\n"
			   "3\t_start\tinst 9,11\n") != NULL);
	if (!strstr(cmd.out, "\n1\t_start\tinst 1,7\n"))
		FAIL("--calls:\n%s", cmd.out);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
}
