// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The folders of libbts are layers: no folder includes a header of a
 * folder that, through others, includes one of its own.  scripts/layers
 * derives the graph from the #include lines; here it runs over libbts/,
 * and over a small tree with a loop, to show that it finds one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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
