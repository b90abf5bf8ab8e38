// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The folders of libbts are layers: no folder includes a header of a
 * folder that, through others, includes one of its own, and no file
 * calls, through others, back into its own folder.  scripts/layers
 * derives the graph of includes from the #include lines, and
 * scripts/layers-calls the graph of calls from the symbols of the
 * objects; here each runs over libbts/ (and this build's objects of it),
 * and over a small tree with loops, to show that it finds them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static void run_layers(const char *dir, struct harness_cmd *cmd)
{
	char *script = harness_path(BTS_SRC_DIR, "scripts/layers");
	char *argv[] = { script, (char *)dir, NULL };

	ASSERT_EQ(harness_run(argv, 60, cmd), 0);
	free(script);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fputs(text, f);
	fclose(f);
}

TEST(layers, libbts_has_no_loop_between_folders)
{
	char *lib = harness_path(BTS_SRC_DIR, "libbts");
	struct harness_cmd cmd;

	run_layers(lib, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	EXPECT_TRUE(harness_matches("^layers: no loop among the [0-9]+ folders\n$",
				    cmd.out));
	if (harness_exit_code(&cmd))
		FAIL("%s", cmd.out);
	harness_cmd_free(&cmd);
	free(lib);
}

TEST(layers, a_loop_is_named_with_the_includes_that_make_it)
{
	const char *dir = harness_tmpdir();
	char sub[4096];
	struct harness_cmd cmd;

	snprintf(sub, sizeof(sub), "%s/a", dir);
	ASSERT_EQ(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/b", dir);
	ASSERT_EQ(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/c", dir);
	ASSERT_EQ(mkdir(sub, 0700), 0);
	put(dir, "a/x.c", "#include <stdio.h>\n#include \"b/y.h\"\n#include \"z.h\"\n");
	put(dir, "a/z.h", "");
	put(dir, "b/y.h", "#include \"c/w.h\"\n");
	put(dir, "c/w.h", "  #  include \"a/z.h\"\n#include \"uapi/none.h\"\n");
	run_layers(dir, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 1);
	EXPECT_STREQ(cmd.out,
		     "layers: a loop: a -> b -> c -> a\n"
		     "  a -> b: a/x.c includes \"b/y.h\"\n"
		     "  b -> c: b/y.h includes \"c/w.h\"\n"
		     "  c -> a: c/w.h includes \"a/z.h\"\n");
	harness_cmd_free(&cmd);
}

static void run_calls(const char *obj, const char *src,
		      struct harness_cmd *cmd)
{
	char *script = harness_path(BTS_SRC_DIR, "scripts/layers-calls");
	char *argv[] = { script, (char *)obj, (char *)src, NULL };

	ASSERT_EQ(harness_run(argv, 120, cmd), 0);
	free(script);
}

TEST(layers, libbts_has_no_loop_of_calls_across_folders)
{
	char *obj = harness_path(BTS_BUILD_DIR, "obj/libbts");
	char *lib = harness_path(BTS_SRC_DIR, "libbts");
	struct harness_cmd cmd;

	run_calls(obj, lib, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	EXPECT_TRUE(harness_matches("^layers-calls: no loop of calls across "
				    "folders among the [0-9]+ files\n$", cmd.out));
	if (harness_exit_code(&cmd))
		FAIL("%s%s", cmd.out, cmd.err);
	harness_cmd_free(&cmd);
	free(obj);
	free(lib);
}

/* @text into @dir/src/@rel, compiled into @dir/obj/@rel with .o for .c. */
static void compile(const char *dir, const char *rel, const char *text)
{
	char src[4096], obj[4096];
	/* The compiler as make names it: the shell finds it in PATH. */
	char *argv[] = { "/bin/sh", "-c", "exec $0 -c -O0 -o \"$1\" \"$2\"",
			 BTS_CC, obj, src, NULL };
	struct harness_cmd cmd;

	snprintf(src, sizeof(src), "src/%s", rel);
	put(dir, src, text);
	snprintf(src, sizeof(src), "%s/src/%s", dir, rel);
	snprintf(obj, sizeof(obj), "%s/obj/%.*s.o", dir, (int)strlen(rel) - 2, rel);
	ASSERT_EQ(harness_run(argv, 60, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	harness_cmd_free(&cmd);
}

static void mkdirs(const char *dir, const char *const *subs)
{
	char path[4096];

	for (; *subs; subs++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *subs);
		ASSERT_EQ(mkdir(path, 0700), 0);
	}
}

/*
 * Files of a and b call each other: a loop of files, and so of folders.
 * c calls d and d calls c, through files that do not call back: a loop
 * of folders only.  e is called by c, calls nothing: no loop.  The object
 * of a file gone from the sources (b/gone.c) is left out.
 */
TEST(layers, a_loop_of_calls_is_named_with_a_symbol_that_makes_it)
{
	static const char *const subs[] = {
		"src", "obj", "src/a", "src/b", "src/c", "src/d", "src/e",
		"obj/a", "obj/b", "obj/c", "obj/d", "obj/e", NULL,
	};
	const char *dir = harness_tmpdir();
	char obj[4096], src[4096], gone[4096];
	struct harness_cmd cmd;

	mkdirs(dir, subs);
	compile(dir, "a/x.c", "int b_f(void);\nint a_g(void) { return b_f(); }\n");
	compile(dir, "b/y.c", "int a_g(void);\nint b_f(void) { return a_g(); }\n");
	compile(dir, "c/p.c", "int d_q(void);\nint e_k(void);\n"
		"int c_p(void) { return d_q() + e_k(); }\n");
	compile(dir, "c/s.c", "int c_s(void) { return 1; }\n");
	compile(dir, "d/q.c", "int d_q(void) { return 2; }\n");
	compile(dir, "d/r.c", "int c_s(void);\nint d_r(void) { return c_s(); }\n");
	compile(dir, "e/k.c", "int e_k(void) { return 3; }\n");
	compile(dir, "b/gone.c", "int e_k(void);\nint b_g(void) { return e_k(); }\n");
	snprintf(gone, sizeof(gone), "%s/src/b/gone.c", dir);
	ASSERT_EQ(unlink(gone), 0);
	snprintf(obj, sizeof(obj), "%s/obj", dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	run_calls(obj, src, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 1);
	EXPECT_STREQ(cmd.out,
		     "layers-calls: a loop of 2 files over 2 folders:\n"
		     "  a/x.c\n"
		     "  b/y.c\n"
		     "  a -> b: a/x.c uses b_f of b/y.c\n"
		     "  b -> a: b/y.c uses a_g of a/x.c\n"
		     "layers-calls: a loop of 2 folders:\n"
		     "  a\n"
		     "  b\n"
		     "  a -> b: a/x.c uses b_f of b/y.c\n"
		     "  b -> a: b/y.c uses a_g of a/x.c\n"
		     "layers-calls: a loop of 2 folders:\n"
		     "  c\n"
		     "  d\n"
		     "  c -> d: c/p.c uses d_q of d/q.c\n"
		     "  d -> c: d/r.c uses c_s of c/s.c\n");
	harness_cmd_free(&cmd);
}

TEST(layers, a_folder_that_is_not_there_is_an_error)
{
	struct harness_cmd cmd;
	char path[4096];

	snprintf(path, sizeof(path), "%s/none", harness_tmpdir());
	run_layers(path, &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 2);
	EXPECT_TRUE(harness_matches("^layers: .*/none: no such folder\n$", cmd.err));
	harness_cmd_free(&cmd);
}

TEST(layers, calls_of_a_folder_that_is_not_there_are_an_error)
{
	struct harness_cmd cmd;
	char path[4096];

	snprintf(path, sizeof(path), "%s/none", harness_tmpdir());
	run_calls(path, BTS_SRC_DIR "/libbts", &cmd);
	EXPECT_EQ(harness_exit_code(&cmd), 2);
	EXPECT_TRUE(harness_matches("^layers-calls: .*/none: no such folder\n$",
				    cmd.err));
	harness_cmd_free(&cmd);
}
