// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptrace-step's skip list (sources/ptrace-step/skip.c): which mapped
 * objects the --skip options of `btrace record` name.  Each option is a
 * glob (fnmatch, no flags) on the base name of the mapped file.
 */
#include <string.h>

#include "bts_internal.h"
#include "harness.h"

#define LIBC	"/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO	"/lib64/ld-linux-x86-64.so.2"

static struct bts_skip *list(const char *const *globs)
{
	struct bts_skip *k = NULL;

	if (bts_skip_list_new(globs, &k) || !k)
		FAIL("skip list: %s", bts_errdetail());
	return k;
}

TEST(skip_list, no_globs_no_list)
{
	const char *const none[] = { NULL };
	struct bts_skip *k = (struct bts_skip *)1;

	EXPECT_EQ(bts_skip_list_new(NULL, &k), 0);
	EXPECT_TRUE(k == NULL);
	k = (struct bts_skip *)1;
	EXPECT_EQ(bts_skip_list_new(none, &k), 0);
	EXPECT_TRUE(k == NULL);
}

TEST(skip_list, an_empty_glob_is_refused)
{
	const char *const globs[] = { "libc.so.6", "", NULL };
	struct bts_skip *k = (struct bts_skip *)1;

	EXPECT_EQ(bts_skip_list_new(globs, &k), -BTS_E_INVAL);
	EXPECT_TRUE(k == NULL);
	EXPECT_STREQ(bts_errdetail(), "skip: empty object name");
}

TEST(skip_list, a_name_matches_the_file_in_any_directory)
{
	const char *const globs[] = { "libc.so.6", NULL };
	struct bts_skip *k = list(globs);

	EXPECT_TRUE(bts_skip_list_matches(k, LIBC));
	EXPECT_TRUE(bts_skip_list_matches(k, "/tmp/chroot/lib/libc.so.6"));
	EXPECT_TRUE(bts_skip_list_matches(k, "libc.so.6"));
	/* the whole base name, not a prefix or a directory */
	EXPECT_FALSE(bts_skip_list_matches(k, "/usr/lib/libc.so.6.1"));
	EXPECT_FALSE(bts_skip_list_matches(k, "/usr/lib/libc.so"));
	EXPECT_FALSE(bts_skip_list_matches(k, "/opt/libc.so.6/prog"));
	EXPECT_FALSE(bts_skip_list_matches(k, LDSO));
	bts_skip_list_free(k);
}

TEST(skip_list, patterns_as_the_cli_gives_them)
{
	const char *const globs[] = { "ld-linux*", "libm.so.?", "lib[xz]*.so*",
				      NULL };
	struct bts_skip *k = list(globs);

	EXPECT_TRUE(bts_skip_list_matches(k, LDSO));
	EXPECT_TRUE(bts_skip_list_matches(k, "/lib/ld-linux.so.2"));
	EXPECT_TRUE(bts_skip_list_matches(k, "/usr/lib/libm.so.6"));
	EXPECT_FALSE(bts_skip_list_matches(k, "/usr/lib/libm.so.61"));
	EXPECT_TRUE(bts_skip_list_matches(k, "/usr/lib/libz.so.1"));
	EXPECT_TRUE(bts_skip_list_matches(k, "/usr/lib/libxml2.so.2"));
	EXPECT_FALSE(bts_skip_list_matches(k, "/usr/lib/liby.so.1"));
	EXPECT_FALSE(bts_skip_list_matches(k, LIBC));
	/* case counts */
	EXPECT_FALSE(bts_skip_list_matches(k, "/lib64/LD-LINUX-x86-64.so.2"));
	bts_skip_list_free(k);
}

TEST(skip_list, a_glob_with_a_slash_never_matches)
{
	const char *const globs[] = { "/usr/lib/*", "*/libc.so.6", NULL };
	struct bts_skip *k = list(globs);

	/* only base names are compared: a directory cannot be skipped */
	EXPECT_FALSE(bts_skip_list_matches(k, LIBC));
	EXPECT_FALSE(bts_skip_list_matches(k, "/usr/lib/libz.so.1"));
	bts_skip_list_free(k);
}

TEST(skip_list, brackets_are_a_glob_set_not_a_name)
{
	const char *const globs[] = { "[vdso]", NULL };
	struct bts_skip *k = list(globs);

	/* "[vdso]" is one character of v, d, s, o: not the vDSO's name */
	EXPECT_FALSE(bts_skip_list_matches(k, "[vdso]"));
	EXPECT_TRUE(bts_skip_list_matches(k, "/tmp/v"));
	bts_skip_list_free(k);
}

TEST(skip_list, star_matches_every_object)
{
	const char *const globs[] = { "*", NULL };
	struct bts_skip *k = list(globs);

	EXPECT_TRUE(bts_skip_list_matches(k, LIBC));
	EXPECT_TRUE(bts_skip_list_matches(k, "[vdso]"));
	/* fnmatch without FNM_PERIOD: a leading dot is an ordinary character */
	EXPECT_TRUE(bts_skip_list_matches(k, "/tmp/.hidden.so"));
	bts_skip_list_free(k);
}

TEST(skip_list, addresses_are_skipped_by_the_map_that_holds_them)
{
	const char *const globs[] = { "libc.so.6", NULL };
	struct bts_map maps[] = {
		{ .start = 0x1000, .end = 0x3000, .path = (char *)"/bin/prog" },
		{ .start = 0x7000, .end = 0x9000, .path = (char *)LIBC },
		{ .start = 0x9000, .end = 0xa000, .path = (char *)"/bin/prog" },
	};
	struct bts_mapset set = { .maps = maps, .n = 3 };
	struct bts_skip *k = list(globs);

	EXPECT_FALSE(bts_skip_list_at(k, &set, 0x1000));
	EXPECT_TRUE(bts_skip_list_at(k, &set, 0x7000));
	EXPECT_TRUE(bts_skip_list_at(k, &set, 0x8fff));
	/* the end is not in the map: the next one answers */
	EXPECT_FALSE(bts_skip_list_at(k, &set, 0x9000));
	EXPECT_TRUE(bts_skip_list_at(k, &set, 0x7abc));
	/* no map (not read yet): traced */
	EXPECT_FALSE(bts_skip_list_at(k, &set, 0x5000));
	EXPECT_FALSE(bts_skip_list_at(k, &set, 0));
	EXPECT_TRUE(bts_skip_list_at(k, &set, 0x8000));
	bts_skip_list_free(k);
}
