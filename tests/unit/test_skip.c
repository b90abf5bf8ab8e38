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

struct match {
	const char *path;
	bool skipped;
};

/* Each path of @cases against the list of @globs. */
static void expect_matches(const char *const *globs, const struct match *cases,
			   size_t n)
{
	struct bts_skip *k = list(globs);

	for (size_t i = 0; i < n; i++)
		if (bts_skip_list_matches(k, cases[i].path) != cases[i].skipped)
			harness_fail(__FILE__, __LINE__, "%s: %s, expected %s",
				     cases[i].path, cases[i].skipped ? "traced" :
				     "skipped", cases[i].skipped ? "skipped" : "traced");
	bts_skip_list_free(k);
}

#define EXPECT_MATCHES(globs, ...) do {					\
	static const struct match __c[] = { __VA_ARGS__ };		\
									\
	expect_matches(globs, __c, sizeof(__c) / sizeof(__c[0]));	\
} while (0)

TEST(skip_list, a_name_matches_the_file_in_any_directory)
{
	const char *const globs[] = { "libc.so.6", NULL };

	EXPECT_MATCHES(globs,
		{ LIBC, true },
		{ "/tmp/chroot/lib/libc.so.6", true },
		{ "libc.so.6", true },
		/* the whole base name, not a prefix or a directory */
		{ "/usr/lib/libc.so.6.1", false },
		{ "/usr/lib/libc.so", false },
		{ "/opt/libc.so.6/prog", false },
		{ LDSO, false });
}

TEST(skip_list, patterns_as_the_cli_gives_them)
{
	const char *const globs[] = { "ld-linux*", "libm.so.?", "lib[xz]*.so*",
				      NULL };

	EXPECT_MATCHES(globs,
		{ LDSO, true },
		{ "/lib/ld-linux.so.2", true },
		{ "/usr/lib/libm.so.6", true },
		{ "/usr/lib/libm.so.61", false },
		{ "/usr/lib/libz.so.1", true },
		{ "/usr/lib/libxml2.so.2", true },
		{ "/usr/lib/liby.so.1", false },
		{ LIBC, false },
		/* case counts */
		{ "/lib64/LD-LINUX-x86-64.so.2", false });
}

TEST(skip_list, a_glob_with_a_slash_never_matches)
{
	const char *const globs[] = { "/usr/lib/*", "*/libc.so.6", NULL };

	/* only base names are compared: a directory cannot be skipped */
	EXPECT_MATCHES(globs,
		{ LIBC, false },
		{ "/usr/lib/libz.so.1", false });
}

TEST(skip_list, brackets_are_a_glob_set_not_a_name)
{
	const char *const globs[] = { "[vdso]", NULL };

	/* "[vdso]" is one character of v, d, s, o: not the vDSO's name */
	EXPECT_MATCHES(globs,
		{ "[vdso]", false },
		{ "/tmp/v", true });
}

TEST(skip_list, star_matches_every_object)
{
	const char *const globs[] = { "*", NULL };

	/* fnmatch without FNM_PERIOD: a leading dot is an ordinary character */
	EXPECT_MATCHES(globs,
		{ LIBC, true },
		{ "[vdso]", true },
		{ "/tmp/.hidden.so", true });
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
