// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace replay driven by scripts: exact positions on seq-calls (every
 * instruction of calls_run is known: tests/progs/seq-calls-asm.S), the
 * stepping commands and their gdb abbreviations, backtraces built from the
 * history, bad commands.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../e2e/raw_dump.h"
#include "test_replay.h"

/*
 * calls_run's instructions from its first, X (seq-calls-asm.S):
 *	X+0 push  X+1 call f | f: X+2 call g | g: X+3 nop, X+4 ret |
 *	f: X+5 ret | X+6 mov $3 ... | main resumes at X+33.
 */
TEST(replay_seq, exact_positions)
{
	struct harness_cmd rec, rp;
	char script[512];
	uint64_t pos[32], x;
	char *btr = rp_record("seq-calls", 0, &rec);
	size_t n;

	x = rp_segment_first(btr, "calls_run", "call");
	snprintf(script, sizeof(script),
		 "goto %" PRIu64 "\n"
		 "stepi\n"		/* X+1: call calls_f */
		 "next\n"		/* over it: X+6 */
		 "reverse-next\n"	/* back over it: X+1 */
		 "stepi 2\n"		/* into f, into g: X+3 */
		 "reverse-finish\n"	/* g's call in f: X+2 */
		 "finish\n"		/* f's return done: X+6 */
		 "finish\n"		/* calls_run's return done: X+33 */
		 "reverse-stepi\n"	/* calls_run's ret: X+32 */
		 "info position\n"	/* X+32 again */
		 "goto begin\n"		/* 1 */
		 "goto end\n",		/* the last */
		 x);
	rp_replay(btr, script, 0, &rp);
	n = rp_positions(rp.out, pos, 32);
	ASSERT_EQ(n, (size_t)13);
	/* pos[0]: where it starts, the last instruction */
	EXPECT_EQ(pos[0], pos[12]);
	EXPECT_EQ(pos[1], x);
	EXPECT_EQ(pos[2], x + 1);
	EXPECT_EQ(pos[3], x + 6);
	EXPECT_EQ(pos[4], x + 1);
	EXPECT_EQ(pos[5], x + 3);
	EXPECT_EQ(pos[6], x + 2);
	EXPECT_EQ(pos[7], x + 6);
	EXPECT_EQ(pos[8], x + 33);
	EXPECT_EQ(pos[9], x + 32);
	EXPECT_EQ(pos[10], x + 32);
	EXPECT_EQ(pos[11], (uint64_t)1);
	EXPECT_TRUE(strstr(rp.out, "At instruction ") != NULL);
	EXPECT_TRUE(strstr(rp.out, ", the end of the history.") != NULL);
	EXPECT_EQ(rp.err_len, (size_t)0);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/* gdb's short names and unique prefixes do what the long names do. */
TEST(replay_seq, abbreviations)
{
	struct harness_cmd rec, rp;
	char script[512];
	uint64_t pos[32], x;
	char *btr = rp_record("seq-calls", 0, &rec);

	x = rp_segment_first(btr, "calls_run", "call");
	snprintf(script, sizeof(script),
		 "record goto %" PRIu64 "\n"
		 "si\n"			/* X+1 */
		 "n\n"			/* X+6 */
		 "rn\n"			/* X+1 */
		 "si 2\n"		/* X+3 */
		 "rsi 3\n"		/* X */
		 "reverse-s\n"		/* a unique prefix of reverse-stepi: X-1 */
		 "goto %" PRIu64 "\n"	/* X+6 */
		 "rn 2\n"		/* over the call of f, then to the push: X */
		 "q\n"
		 "si\n",		/* never read */
		 x, x + 6);
	rp_replay(btr, script, 0, &rp);
	ASSERT_EQ(rp_positions(rp.out, pos, 32), (size_t)10);
	EXPECT_EQ(pos[1], x);
	EXPECT_EQ(pos[2], x + 1);
	EXPECT_EQ(pos[3], x + 6);
	EXPECT_EQ(pos[4], x + 1);
	EXPECT_EQ(pos[5], x + 3);
	EXPECT_EQ(pos[6], x);
	EXPECT_EQ(pos[7], x - 1);
	EXPECT_EQ(pos[8], x + 6);
	EXPECT_EQ(pos[9], x);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/* Leaving either end stops there and says so, as gdb does (a small trace). */
TEST(replay_seq, ends_of_history)
{
	struct harness_cmd rec, rp;
	uint64_t pos[8];
	char *btr = rp_record("static-oracle", 0, &rec);

	rp_replay(btr, "si\nrsi 99999999999\nrsi\nsi 99999999999\n", 0, &rp);
	ASSERT_EQ(rp_positions(rp.out, pos, 8), (size_t)5);
	EXPECT_EQ(pos[1], pos[0]);
	EXPECT_EQ(pos[2], (uint64_t)1);
	EXPECT_EQ(pos[3], (uint64_t)1);
	EXPECT_EQ(pos[4], pos[0]);
	/* one message per motion that hit an end */
	{
		const char *p = rp.out;
		int msgs = 0;

		while ((p = strstr(p, "No more reverse-execution history.")))
			msgs++, p++;
		EXPECT_EQ(msgs, 4);
	}
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/*
 * In calls_g, the stack the history shows: calls_g, calls_f (returning
 * to after its call), calls_run, main, with exact pcs.
 */
TEST(replay_seq, backtrace_from_history)
{
	struct harness_cmd rec, rp;
	struct raw_labels labels;
	char script[128], line[256], fn[64], want[64];
	char *btr = rp_record("seq-calls", 0, &rec);
	uint64_t x = rp_segment_first(btr, "calls_run", "call");
	static const char *const funcs[] = { "calls_g", "calls_f", "calls_run", "main" };

	raw_labels_parse(rec.out, &labels);
	snprintf(script, sizeof(script), "goto %" PRIu64 "\nbt\n", x + 3);
	rp_replay(btr, script, 0, &rp);
	for (size_t i = 0; i < 4; i++) {
		rp_line(rp.out, "#", i, line, sizeof(line));
		EXPECT_STREQ(rp_frame_func(line, fn, sizeof(fn)), funcs[i]);
	}
	snprintf(want, sizeof(want), "#0  0x%016" PRIx64 " in calls_g ()",
		 raw_label(&labels, "calls_g"));
	EXPECT_TRUE(!strncmp(rp_line(rp.out, "#0", 0, line, sizeof(line)), want,
			     strlen(want)));
	/* return addresses: after the 5-byte calls */
	snprintf(want, sizeof(want), "#1  0x%016" PRIx64 " in calls_f ()",
		 raw_label(&labels, "calls_f") + 5);
	EXPECT_TRUE(!strncmp(rp_line(rp.out, "#1", 0, line, sizeof(line)), want,
			     strlen(want)));
	snprintf(want, sizeof(want), "#2  0x%016" PRIx64 " in calls_run ()",
		 raw_label(&labels, "calls_run") + 6);
	EXPECT_TRUE(!strncmp(rp_line(rp.out, "#2", 0, line, sizeof(line)), want,
			     strlen(want)));
	raw_labels_free(&labels);
	harness_cmd_free(&rp);
	harness_cmd_free(&rec);
	free(btr);
}

/* A failing command stops the script: exit 1, one line on stderr. */
TEST(replay_seq, bad_commands)
{
	static const char *const scripts[] = {
		"si\nfrobnicate\nsi\n",
		"goto 0\n",
		"goto nowhere\n",
		"stepi -3\n",
		"next two\n",
		"thread 99\n",
		"info nothing\n",
		"re\n",			/* ambiguous: reverse-*, record */
	};
	struct harness_cmd rec, rp;
	char *btr = rp_record("static-oracle", 0, &rec);
	uint64_t pos[8];

	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		rp_replay(btr, scripts[i], 1, &rp);
		EXPECT_EQ((int)(strchr(rp.err, '\n') - rp.err) + 1, (int)rp.err_len);
		EXPECT_TRUE(!strncmp(rp.err, "btrace: ", 8));
		if (i == 0)	/* the si before ran, the one after did not */
			EXPECT_EQ(rp_positions(rp.out, pos, 8), (size_t)2);
		harness_cmd_free(&rp);
	}
	harness_cmd_free(&rec);
	free(btr);
}

/* The command line: no file, two files, a missing script. */
TEST(replay_seq, bad_command_line)
{
	const char *const none[] = { "replay", NULL };
	const char *const two[] = { "replay", "a.btr", "b.btr", NULL };
	const char *const noscript[] = { "replay", "-x", "/nonexistent/script",
					 "/nonexistent/a.btr", NULL };
	struct harness_cmd cmd;

	rp_btrace(none, 2, &cmd);
	harness_cmd_free(&cmd);
	rp_btrace(two, 2, &cmd);
	harness_cmd_free(&cmd);
	rp_btrace(noscript, 1, &cmd);
	EXPECT_TRUE(strstr(cmd.err, "/nonexistent/script") != NULL);
	harness_cmd_free(&cmd);
}
