// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Code rewritten in place between its runs (crash-rejit, a JIT's way): a
 * crash trace holds the code as it was at the crash, so the 50 runs of the
 * earlier versions ("mov $i, %eax; ret") must not be decoded with it
 * ("xor %rax, %rax; mov (%rax), %eax; ret", whose ret is where theirs
 * was, so no record tells the versions apart).  Each is a gap that says
 * the code was rewritten later; the last version, the one that faulted,
 * decodes from the copy.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_oncrash.h"

#define RUNS 50

TEST(oncrash_rejit, earlier_versions_are_gaps_never_the_last_code)
{
	char pattern[4096];
	const char *bt_args[] = { "--on-crash", "-o", pattern, NULL };
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	struct harness_cmd cmd;
	struct bts_trace *t;
	unsigned long long jit;
	size_t changed = 0, at_jit = 0, xor = 0;
	char *file;
	int ret;

	snprintf(pattern, sizeof(pattern), "%s/%%e.%%p.btr", harness_tmpdir());
	crash_btrace(bt_args, "crash-rejit", NULL, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 128 + SIGSEGV);
	ASSERT_EQ(sscanf(cmd.out, "jit %llx", &jit), 1);
	file = crash_find_file(harness_tmpdir(), "crash-rejit.");
	ASSERT_TRUE(file != NULL);
	ASSERT_EQ(bts_trace_new(file, &t), 0);

	ASSERT_EQ(bts_insn_decoder_new(t, 0, NULL, &d), 0);
	while ((ret = bts_insn_next(d, &e, sizeof(e))) > 0) {
		if (e.iclass == BTS_ICLASS_GAP) {
			changed += e.gap == BTS_GAP_CODE_CHANGED && e.gap_arg == jit;
			continue;
		}
		if (e.ip < jit || e.ip >= jit + 16)
			continue;
		at_jit++;
		/* 48 31 c0: xor %rax, %rax, the faulting version's first. */
		xor += e.ip == jit && e.size == 3 && !memcmp(e.raw, "\x48\x31\xc0", 3);
	}
	EXPECT_EQ(ret, 0);
	/* Every earlier run, however many the ring kept, is a gap. */
	EXPECT_EQ(changed, (size_t)RUNS);
	/* The last: xor and the faulting load, from the crash's copy. */
	EXPECT_EQ(xor, (size_t)1);
	EXPECT_EQ(at_jit, (size_t)2);
	bts_insn_decoder_free(d);
	bts_trace_free(t);
	free(file);
	harness_cmd_free(&cmd);
}
