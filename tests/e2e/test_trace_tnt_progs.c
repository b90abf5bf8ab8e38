// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tnt encoding on real recordings: every view of a trace rewritten
 * in it (bts_trace_tnt_file) prints exactly what the compact trace
 * printed, for programs with jump tables and indirect calls, tail calls,
 * signals, threads, fork and exec; a traced file that changed or went is
 * refused; btrace record --format tnt writes it and btrace info names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"

#define TIMEOUT 120

static char *dir_path(const char *dir, const char *name)
{
	char *d = harness_path(harness_tmpdir(), dir), *p;

	mkdir(d, 0755);
	p = harness_path(d, name);
	free(d);
	return p;
}

static void copy_file(const char *from, const char *to)
{
	struct harness_cmd cmd;
	char *argv[] = { "/bin/cp", (char *)from, (char *)to, NULL };

	ASSERT_EQ(harness_run(argv, TIMEOUT, &cmd), 0);
	ASSERT_EQ(harness_exit_code(&cmd), 0);
	harness_cmd_free(&cmd);
}

/* `btrace V1 [V2] FILE`'s output; fails the test unless it exits 0. */
static char *view(const char *file, const char *v1, const char *v2)
{
	struct harness_cmd cmd;
	char *out;

	if (v2)
		harness_btrace(&cmd, TIMEOUT, v1, v2, file, NULL);
	else
		harness_btrace(&cmd, TIMEOUT, v1, file, NULL);
	if (harness_exit_code(&cmd))
		FAIL("btrace %s %s %s: exit %d\n%s", v1, v2 ? v2 : "", file,
		     harness_exit_code(&cmd), cmd.err);
	out = strdup(cmd.out);
	harness_cmd_free(&cmd);
	return out;
}

static off_t records_bytes(const char *path, uint64_t *records)
{
	struct bts_trace *t;
	struct stat st;

	if (bts_trace_new(path, &t))
		FAIL("%s: %s", path, bts_errdetail());
	*records = 0;
	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		*records += bts_trace_thread(t, i)->nrecords;
	bts_trace_free(t);
	ASSERT_EQ(stat(path, &st), 0);
	return st.st_size;
}

/*
 * @prog recorded (compact), its trace copied and rewritten in tnt: the
 * raw records, the instructions, the calls and the statistics are the
 * same, byte for byte, and the file is smaller.
 */
static void same_views(const char *prog, const char *arg)
{
	static const char *const views[][2] = {
		{ "dump", "--raw" }, { "dump", NULL }, { "dump", "--insns" },
		{ "dump", "--calls" }, { "stats", NULL },
	};
	char *exe = PROG_PATH(prog), *c = dir_path("c", "p.btr");
	char *t = dir_path("t", "p.btr");
	struct harness_cmd cmd;
	uint64_t nc, nt;
	off_t sc, st;

	unlink(c);
	/* The program's own exit status: some exit 4 or 5 on purpose. */
	harness_btrace(&cmd, TIMEOUT, "record", "-o", c, "--", exe, arg, NULL);
	if (access(c, R_OK))
		FAIL("record %s: %s", prog, cmd.err);
	harness_cmd_free(&cmd);
	copy_file(c, t);
	if (bts_trace_tnt_file(t))
		FAIL("%s: %s", prog, bts_errdetail());
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char *a = view(c, views[i][0], views[i][1]);
		char *b = view(t, views[i][0], views[i][1]);

		if (strcmp(a, b))
			FAIL("%s: btrace %s %s differs between compact and tnt",
			     prog, views[i][0], views[i][1] ? views[i][1] : "");
		EXPECT_GT(strlen(a), (size_t)10);
		free(a);
		free(b);
	}
	sc = records_bytes(c, &nc);
	st = records_bytes(t, &nt);
	EXPECT_EQ(nc, nt);
	EXPECT_LT(st, sc);
	free(exe);
	free(c);
	free(t);
}

/* Jump tables and indirect calls and jumps of every form. */
TEST(trace_tnt_progs, indirect_branches)
{
	same_views("insn-forms", NULL);
	same_views("oracle-libc", NULL);
}

/* Tail calls, and two signal handlers entered and returned from. */
TEST(trace_tnt_progs, tail_calls_and_signals)
{
	same_views("seq-calls", NULL);
	same_views("seq-flow", NULL);
	same_views("gdb-signal", NULL);
}

TEST(trace_tnt_progs, threads)
{
	same_views("threads-count", NULL);
}

/* A followed child, and an exec: new maps in the middle of the records. */
TEST(trace_tnt_progs, fork_and_exec)
{
	same_views("follow-kids", "fork");
	same_views("follow-kids", "exec");
	same_views("gdb-exec", NULL);
}

/* seq-calls copied to @exe, recorded, its trace rewritten in tnt. */
static char *tnt_of_copy(const char *exe)
{
	char *prog = PROG_PATH("seq-calls"), *btr = dir_path("f", "p.btr");
	struct harness_cmd cmd;
	struct bts_trace *t;

	copy_file(prog, exe);
	unlink(btr);
	ASSERT_EQ(harness_btrace(&cmd, TIMEOUT, "record", "-o", btr, "--", exe,
				 NULL), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(bts_trace_tnt_file(btr), 0);
	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	bts_trace_free(t);
	free(prog);
	return btr;
}

/* The file offset of the first record of @btr that lies in @exe's code. */
static off_t patch_site(const char *btr, const char *exe)
{
	struct bts_rec_iter *it = NULL;
	const struct bts_map *maps;
	struct ptbts_record r;
	struct bts_trace *t;
	off_t at = -1;
	size_t n;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	n = bts_trace_maps(t, bts_trace_thread(t, 0)->pid, &maps);
	ASSERT_EQ(bts_rec_iter_new(t, 0, &it), 0);
	/* The twentieth such record: far from a chunk's start. */
	for (int seen = 0; at < 0 && bts_rec_iter_next(it, &r) == 1;)
		for (size_t i = 0; i < n; i++)
			if (r.from >= maps[i].start && r.from < maps[i].end &&
			    !strcmp(maps[i].path, exe) && (maps[i].prot & 4) &&
			    ++seen == 20)
				at = maps[i].offset + (r.from - maps[i].start);
	bts_rec_iter_free(it);
	bts_trace_free(t);
	ASSERT_GE(at, (off_t)0);
	return at;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* Refused by the library with @why at the end of the detail, and by btrace. */
static void expect_refused(const char *btr, const char *why)
{
	struct harness_cmd cmd;
	struct bts_trace *t;
	char tail[400];

	EXPECT_EQ(bts_trace_new(btr, &t), -BTS_E_DECODE);
	if (!ends_with(bts_errdetail(), why))
		FAIL("\"%s\" does not end in \"%s\"", bts_errdetail(), why);
	EXPECT_EQ(harness_btrace(&cmd, TIMEOUT, "dump", btr, NULL), 1);
	EXPECT_STREQ(cmd.out, "");
	snprintf(tail, sizeof(tail), "%s)\n", why);
	if (!harness_matches("^btrace: .*: cannot decode instruction \\(offset [0-9]+: "
			     "the tnt records of thread [0-9]+ need the code they "
			     "were encoded against: ", cmd.err) || !ends_with(cmd.err, tail))
		FAIL("btrace dump: %s", cmd.err);
	harness_cmd_free(&cmd);
}

/*
 * The traced program changed since: one byte of its code (the build-id
 * is the same), or another program in its place, or none at all.  The
 * compact trace reads all the same; the tnt one is refused.
 */
TEST(trace_tnt_progs, a_changed_file_is_refused)
{
	char *exe = dir_path("f", "victim"), *btr = tnt_of_copy(exe);
	char *other = PROG_PATH("seq-flow");
	off_t at = patch_site(btr, exe);
	uint8_t b;
	FILE *f;

	f = fopen(exe, "r+b");
	ASSERT_TRUE(f && !fseeko(f, at, SEEK_SET) && fread(&b, 1, 1, f) == 1);
	b ^= 0x01;
	ASSERT_TRUE(!fseeko(f, at, SEEK_SET) && fwrite(&b, 1, 1, f) == 1);
	fclose(f);
	expect_refused(btr, ": a file the trace maps has changed since it was recorded (the code's hash differs)");
	unlink(exe);
	copy_file(other, exe);
	expect_refused(btr, "victim: not the file that was traced (build-id differs): its code is not decoded");
	unlink(exe);
	expect_refused(btr, "victim: cannot open (No such file or directory): its code is not decoded");
	free(exe);
	free(btr);
	free(other);
}

/* dump --raw without its lines of ids ("# ..."), which differ per run. */
static char *records_of(const char *btr)
{
	char *out = view(btr, "dump", "--raw"), *o = out, *line, *save = NULL;
	char *all = strdup(out);

	for (line = strtok_r(all, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			o += sprintf(o, "%s\n", line);
	*o = 0;
	free(all);
	return out;
}

/* A static program: the same records every run, in either format. */
TEST(trace_tnt_progs, record_format_tnt)
{
	const char *want = "records: tnt\nprocess ";
	const char *want_json = "{\"format\":\"tnt\",\"processes\":[";
	char *prog = PROG_PATH("static-oracle"), *c = dir_path("r", "c.btr");
	char *t = dir_path("r", "t.btr");
	struct harness_cmd cmd;
	char *a, *b;

	unlink(c);
	unlink(t);
	ASSERT_EQ(harness_btrace(&cmd, TIMEOUT, "record", "-o", c, "--", prog, NULL), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, TIMEOUT, "record", "--format", "tnt", "-o", t,
				 "--", prog, NULL), 0);
	harness_cmd_free(&cmd);
	a = records_of(c);
	b = records_of(t);
	EXPECT_GT(strlen(a), (size_t)1000);
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
	ASSERT_EQ(harness_btrace(&cmd, TIMEOUT, "info", t, NULL), 0);
	EXPECT_EQ(strncmp(cmd.out, want, strlen(want)), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, TIMEOUT, "info", "--json", t, NULL), 0);
	EXPECT_EQ(strncmp(cmd.out, want_json, strlen(want_json)), 0);
	harness_cmd_free(&cmd);
	free(prog);
	free(c);
	free(t);
}
