// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record --format: compact by default, raw on request,
 * the same records either way, and dump --last / --from reading straight
 * from the index.  A static program without libc has the same addresses
 * on every run, so two recordings of it give the same records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"

#define TIMEOUT 120

/* Runs btrace with the NULL-ended arguments; returns its exit code. */
#define run_btrace(cmd, ...) harness_btrace(cmd, TIMEOUT, __VA_ARGS__)

/* dump --raw without its "# thread TID" lines (the tid differs per run). */
static char *records_of(const char *btr)
{
	struct harness_cmd cmd;
	char *out, *o, *line, *save = NULL;

	ASSERT_EQ(run_btrace(&cmd, "dump", "--raw", btr, NULL), 0);
	out = o = calloc(1, cmd.out_len + 1);
	for (line = strtok_r(cmd.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# thread ", 9))
			continue;
		o += sprintf(o, "%s\n", line);
	}
	harness_cmd_free(&cmd);
	return out;
}

static int format_of(const char *btr)
{
	struct bts_trace *t;
	int f;

	if (bts_trace_new(btr, &t))
		FAIL("%s: %s", btr, bts_errdetail());
	f = bts_trace_format(t);
	bts_trace_free(t);
	return f;
}

static off_t size_of(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		FAIL("%s: %m", path);
	return st.st_size;
}

TEST(trace_compact_cli, compact_by_default_raw_on_request)
{
	char *prog = PROG_PATH("static-oracle");
	char *c = harness_path(harness_tmpdir(), "c.btr");
	char *r = harness_path(harness_tmpdir(), "r.btr");
	struct harness_cmd cmd;
	char *rc, *rr;

	ASSERT_EQ(run_btrace(&cmd, "record", "-o", c, "--", prog, NULL), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(run_btrace(&cmd, "record", "--format", "raw", "-o", r, "--", prog, NULL), 0);
	harness_cmd_free(&cmd);
	EXPECT_EQ(format_of(c), BTS_FORMAT_COMPACT);
	EXPECT_EQ(format_of(r), BTS_FORMAT_RAW);
	rc = records_of(c);
	rr = records_of(r);
	EXPECT_GT(strlen(rc), (size_t)1000);
	EXPECT_STREQ(rc, rr);
	EXPECT_LT(size_of(c) * 10, size_of(r));
	free(rc);
	free(rr);
	free(prog);
	free(c);
	free(r);
}

TEST(trace_compact_cli, bad_format_is_refused)
{
	char *out = harness_path(harness_tmpdir(), "x.btr");
	struct harness_cmd cmd;

	EXPECT_EQ(run_btrace(&cmd, "record", "--format", "zip", "-o", out, "--",
			     "/bin/true", NULL), 125);
	EXPECT_STREQ(cmd.err, "btrace: record: --format 'zip': expected compact, raw or tnt\n");
	harness_cmd_free(&cmd);
	free(out);
}

/* The last lines of a full dump, in both formats, for --last and --from. */
TEST(trace_compact_cli, last_and_from_match_the_full_dump)
{
	static const char *const formats[] = { "compact", "raw" };
	char *prog = PROG_PATH("static-oracle");
	char *btr = harness_path(harness_tmpdir(), "l.btr");

	for (int f = 0; f < 2; f++) {
		struct harness_cmd full, last, from;
		const char *tail;
		char *p;
		int lines = 0;

		unlink(btr);
		ASSERT_EQ(run_btrace(&full, "record", "--format", formats[f], "-o", btr,
				     "--", prog, NULL), 0);
		harness_cmd_free(&full);
		ASSERT_EQ(run_btrace(&full, "dump", btr, NULL), 0);
		ASSERT_EQ(run_btrace(&last, "dump", "--last", "3", btr, NULL), 0);
		/* The full dump's last three records and its status line. */
		for (p = full.out + full.out_len - 1; p > full.out; p--)
			if (p[-1] == '\n' && ++lines == 4)
				break;
		tail = p;
		EXPECT_EQ(lines, 4);
		EXPECT_TRUE(strstr(last.out, tail) != NULL);
		ASSERT_EQ(run_btrace(&from, "dump", "--from", "100", "--to", "101",
				     btr, NULL), 0);
		/* Records 100 and 101, as the full dump has them. */
		p = strstr(from.out, "\n     100  ");
		ASSERT_TRUE(p != NULL);
		p = strstr(p + 1, "\n     101  ");
		ASSERT_TRUE(p != NULL);
		p = strchr(p + 1, '\n');
		ASSERT_TRUE(p != NULL);
		p[1] = 0;
		EXPECT_TRUE(strstr(full.out, strstr(from.out, "\n     100  ")) != NULL);
		harness_cmd_free(&full);
		harness_cmd_free(&last);
		harness_cmd_free(&from);
	}
	free(prog);
	free(btr);
}
