// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Traces are input like any other: crafted traces whose maps name what is
 * not a regular file.  A FIFO would block every view forever in open(),
 * and a device may act on being opened; each view says the file is not a
 * regular file and goes on without it.  Names from a trace, and the source
 * files its debug information names, are shown escaped.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"
#include "harness.h"

#define PID 100
#define BASE 0x400000ull

static struct ptbts_record rec(uint64_t from, uint64_t to)
{
	return (struct ptbts_record){ from, to, PTBTS_MKKIND(PTBTS_KIND_BRANCH) };
}

/* A trace of one thread branching about in a map of @path. */
static char *craft(const char *name, const char *exe, const char *path)
{
	char *btr = harness_path(harness_tmpdir(), name);
	struct bts_map m = {
		.start = BASE, .end = BASE + 0x2000, .prot = 5, .path = (char *)path,
	};
	struct ptbts_record recs[] = {
		rec(BASE + 0x10, BASE + 0x100), rec(BASE + 0x104, BASE + 0x20),
		rec(BASE + 0x28, BASE + 0x100),
	};
	struct bts_writer *w;

	ASSERT_EQ(bts_writer_new(btr, &w), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(w, PID, 1, exe), 0);
	ASSERT_EQ(bts_writer_map(w, PID, &m), 0);
	ASSERT_EQ(bts_writer_thread(w, PID, PID), 0);
	ASSERT_EQ(bts_writer_records(w, PID, PID, recs, 3), 0);
	ASSERT_EQ(bts_writer_exit(w, PID, 0, 0), 0);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	return btr;
}

/* Every view of @btr ends in time, and says @path is not a regular file. */
static void views_pass_over(const char *btr, const char *path)
{
	const char *views[][3] = {
		{ "stats", btr, NULL }, { "dump", btr, NULL },
		{ "dump", "--insns", btr }, { "dump", "--calls", btr },
		{ "report", btr, NULL }, { "replay", btr, NULL },
	};
	char want[256];
	struct harness_cmd cmd;

	snprintf(want, sizeof(want), "%s: not a regular file", path);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		EXPECT_EQ(harness_btrace(&cmd, 20, views[i][0], views[i][1],
					 views[i][2], NULL), 0);
		if (!strstr(cmd.err, want))
			harness_fail(__FILE__, __LINE__, "btrace %s %s: no \"%s\" in:\n%s",
				     views[i][0], views[i][1], want, cmd.err);
		EXPECT_TRUE(strstr(cmd.err, "Sanitizer") == NULL);
		harness_cmd_free(&cmd);
	}
}

TEST(hostile_paths, a_fifo_in_the_maps_blocks_no_view)
{
	char *fifo = harness_path(harness_tmpdir(), "fifo");
	char *btr;

	unlink(fifo);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	btr = craft("fifo.btr", "/bin/true", fifo);
	views_pass_over(btr, fifo);
	unlink(btr);
	unlink(fifo);
	free(btr);
	free(fifo);
}

TEST(hostile_paths, a_device_in_the_maps_is_not_opened)
{
	char *btr = craft("device.btr", "/bin/true", "/dev/null");

	views_pass_over(btr, "/dev/null");
	unlink(btr);
	free(btr);
}

/*
 * The files of the kernel's pseudo file systems pass for regular, but
 * reading some takes what they hold from their readers (/proc/kmsg, the
 * kernel's log; tracefs's trace_pipe): /proc/self/status stands for them.
 */
TEST(hostile_paths, a_kernel_file_in_the_maps_is_not_read)
{
	char *btr = craft("proc.btr", "/bin/true", "/proc/self/status");

	views_pass_over(btr, "/proc/self/status");
	unlink(btr);
	free(btr);
}

/* No byte of @s is a control character but the newlines ending lines. */
static bool plain_lines(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			return false;
	return true;
}

/*
 * Names with an escape sequence and a newline that would forge a line of
 * output: each view shows them escaped, as git shows such paths.
 */
TEST(hostile_paths, names_are_escaped_in_text_output)
{
	const char *exe = "/bin/\033[31mred\nthread 1 (process 1)";
	const char *path = "/nonexistent/\033]0;title\007lib\n.so";
	const char *views[][3] = {
		{ "stats", NULL, NULL }, { "dump", NULL, NULL },
		{ "dump", "--insns", NULL }, { "dump", "--calls", NULL },
		{ "report", NULL, NULL }, { "replay", NULL, NULL },
		{ "info", NULL, NULL },
	};
	char *btr = craft("names.btr", exe, path);
	struct harness_cmd cmd;

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		const char *a1 = views[i][1] ? views[i][1] : btr;
		const char *a2 = views[i][1] ? btr : NULL;

		harness_btrace(&cmd, 20, views[i][0], a1, a2, NULL);
		if (!plain_lines(cmd.out) || !plain_lines(cmd.err))
			harness_fail(__FILE__, __LINE__, "btrace %s %s: raw names in:\n%s\n%s",
				     views[i][0], a1, cmd.out, cmd.err);
		EXPECT_TRUE(strstr(cmd.out, "\nthread 1 (process 1)") == NULL);
		EXPECT_TRUE(strstr(cmd.err, "\nthread 1 (process 1)") == NULL);
		/* Each shows one of the names, escaped. */
		if (!strstr(cmd.out, "\\033[31mred\\nthread 1 (process 1)") &&
		    !strstr(cmd.out, "\\033]0;title\\alib\\n.so") &&
		    !strstr(cmd.err, "\\033]0;title\\alib\\n.so"))
			harness_fail(__FILE__, __LINE__, "btrace %s %s: no escaped name in:\n%s\n%s",
				     views[i][0], a1, cmd.out, cmd.err);
		harness_cmd_free(&cmd);
	}
	unlink(btr);
	free(btr);
}

/*
 * A file of code whose name has an escape sequence and a newline that
 * would forge a folded stack ("thread 1 (process 1) 999" with its count):
 * nops, with the jumps craft()'s records take at 0x10, 0x104 and 0x28.
 */
static char *code_file(void)
{
	static const struct {
		unsigned int at, to;
	} jumps[] = { { 0x10, 0x100 }, { 0x104, 0x20 }, { 0x28, 0x100 } };
	char *path = harness_path(harness_tmpdir(), "e\033[31m\nthread 1 (process 1) 999");
	unsigned char code[0x2000];
	FILE *f;

	memset(code, 0x90, sizeof(code));
	for (size_t i = 0; i < sizeof(jumps) / sizeof(jumps[0]); i++) {
		int32_t rel = (int32_t)(jumps[i].to - (jumps[i].at + 5));

		code[jumps[i].at] = 0xe9;	/* jmp rel32 */
		memcpy(&code[jumps[i].at + 1], &rel, 4);
	}
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fwrite(code, 1, sizeof(code), f), sizeof(code));
	ASSERT_EQ(fclose(f), 0);
	return path;
}

/* Replay's info sharedlibrary and export's folded stacks are text too. */
TEST(hostile_paths, names_are_escaped_in_libraries_and_folded_stacks)
{
	char *code = code_file();
	char *btr = craft("names-code.btr", "/bin/true", code);
	char *script = harness_path(harness_tmpdir(), "names-script");
	const char *escaped = "\\033[31m\\nthread 1 (process 1) 999";
	struct harness_cmd cmd;
	FILE *f = fopen(script, "w");

	ASSERT_TRUE(f != NULL);
	fputs("info sharedlibrary\n", f);
	fclose(f);
	EXPECT_EQ(harness_btrace(&cmd, 20, "replay", "-x", script, btr, NULL), 0);
	EXPECT_TRUE(plain_lines(cmd.out));
	EXPECT_TRUE(strstr(cmd.out, "  Yes         \"") != NULL);
	EXPECT_TRUE(strstr(cmd.out, escaped) != NULL);
	harness_cmd_free(&cmd);

	/* One stack, the object's, with the count of its 19 instructions. */
	EXPECT_EQ(harness_btrace(&cmd, 20, "export", "--format", "folded", btr, NULL), 0);
	EXPECT_TRUE(plain_lines(cmd.out));
	EXPECT_TRUE(strchr(cmd.out, '\n') == cmd.out + strlen(cmd.out) - 1);
	EXPECT_TRUE(strstr(cmd.out, escaped) != NULL);
	EXPECT_TRUE(strstr(cmd.out, " 19\n") != NULL);
	harness_cmd_free(&cmd);
	unlink(btr);
	unlink(code);
	unlink(script);
	free(btr);
	free(code);
	free(script);
}

/* Every line of @path: an escape sequence that clears the screen. */
static void write_clearing_lines(const char *path)
{
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f != NULL);
	for (int i = 0; i < 200; i++)
		fputs("\033[2J\tline\n", f);
	ASSERT_EQ(fclose(f), 0);
}

/*
 * Source files are named by debug information, relative ones from the
 * current directory: Debian's libc names ../sysdeps/unix/sysv/linux/_exit.c,
 * where every program ends.  From DIR/sub that is DIR/sysdeps/..., which
 * anyone who may write to DIR (/tmp) can make: a FIFO there blocks no
 * view, and a file there shows its escape sequences escaped.
 */
TEST(hostile_paths, source_files_are_opened_only_if_regular_and_shown_escaped)
{
	char *btr = harness_path(harness_tmpdir(), "true.btr");
	char *sub = harness_path(harness_tmpdir(), "sub");
	char *dir = harness_path(harness_tmpdir(), "sysdeps/unix/sysv/linux");
	char *src = harness_path(dir, "_exit.c");
	char *mkdirs[] = { "/bin/mkdir", "-p", dir, sub, NULL };
	const char *where = "\n../sysdeps/unix/sysv/linux/_exit.c:";
	struct harness_cmd cmd;
	char cwd[4096];

	ASSERT_EQ(harness_btrace(&cmd, 60, "record", "-o", btr, "--", "/bin/true", NULL), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_run(mkdirs, 10, &cmd), 0);
	harness_cmd_free(&cmd);
	unlink(src);
	ASSERT_EQ(mkfifo(src, 0600), 0);
	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	ASSERT_EQ(chdir(sub), 0);
	EXPECT_EQ(harness_btrace(&cmd, 20, "dump", "--insns", "--source", "--last", "3",
				 btr, NULL), 0);
	EXPECT_TRUE(strstr(cmd.out, where) != NULL);
	harness_cmd_free(&cmd);

	ASSERT_EQ(unlink(src), 0);
	write_clearing_lines(src);
	EXPECT_EQ(harness_btrace(&cmd, 20, "dump", "--insns", "--source", "--last", "3",
				 btr, NULL), 0);
	EXPECT_TRUE(strstr(cmd.out, where) != NULL);
	EXPECT_TRUE(plain_lines(cmd.out));
	EXPECT_TRUE(strstr(cmd.out, "\t\\033[2J\tline\n") != NULL);
	harness_cmd_free(&cmd);
	ASSERT_EQ(chdir(cwd), 0);
	unlink(src);
	unlink(btr);
	free(btr);
	free(sub);
	free(dir);
	free(src);
}

/*
 * The names of source files come from debug information, which the program
 * chose: a program built from a file whose name holds an escape sequence
 * and a newline has that name shown escaped in every view that names it.
 */
TEST(hostile_paths, source_file_names_are_shown_escaped)
{
	char *src = harness_path(harness_tmpdir(), "src\033[2Jx\n.c");
	char *prog = harness_path(harness_tmpdir(), "prog");
	char *btr = harness_path(harness_tmpdir(), "prog.btr");
	char *script = harness_path(harness_tmpdir(), "script");
	char *gcc[] = { "/usr/bin/gcc", "-g", "-O0", "-o", prog, src, NULL };
	const char *const views[][5] = {
		{ "dump", "--insns", "--source", btr, NULL },
		{ "dump", "--calls", "--line-range", btr, NULL },
		{ "replay", "-x", script, btr, NULL },
	};
	struct harness_cmd cmd;
	FILE *f = fopen(src, "w");

	ASSERT_TRUE(f != NULL);
	fputs("static int twice(int x)\n{\n\treturn 2 * x;\n}\n\n"
	      "int main(void)\n{\n\tint s = 0;\n\n"
	      "\tfor (int i = 0; i < 3; i++)\n\t\ts += twice(i);\n"
	      "\treturn s != 6;\n}\n", f);
	ASSERT_EQ(fclose(f), 0);
	f = fopen(script, "w");
	ASSERT_TRUE(f != NULL);
	fputs("break twice\nreverse-continue\nbt\n", f);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(harness_run(gcc, 60, &cmd), 0);
	ASSERT_EQ(harness_exit_code(&cmd), 0);
	harness_cmd_free(&cmd);
	ASSERT_EQ(harness_btrace(&cmd, 60, "record", "-o", btr, "--", prog, NULL), 0);
	harness_cmd_free(&cmd);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		EXPECT_EQ(harness_btrace(&cmd, 60, views[i][0], views[i][1],
					 views[i][2], views[i][3], NULL), 0);
		if (!strstr(cmd.out, "src\\033[2Jx\\n.c\"") || !plain_lines(cmd.out))
			harness_fail(__FILE__, __LINE__, "btrace %s %s: the name not escaped in:\n%s",
				     views[i][0], views[i][1], cmd.out);
		harness_cmd_free(&cmd);
	}
	unlink(src);
	unlink(prog);
	unlink(btr);
	unlink(script);
	free(src);
	free(prog);
	free(btr);
	free(script);
}
