// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C++ and Rust names as people read them in every view, and as the binary
 * spells them with --no-demangle: cxx-names calls a method, a function
 * template and a Rust-mangled function from main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"

#define TIMEOUT 120

static char *record_cxx(void)
{
	char *prog = PROG_PATH("cxx-names");
	char *btr = harness_path(harness_tmpdir(), "cxx.btr");
	struct harness_cmd c;

	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", btr, "--",
				 prog, NULL), 5);
	harness_cmd_free(&c);
	free(prog);
	return btr;
}

/* The --calls lines from main's first segment on, numbers cut off. */
static void expect_calls_from_main(const char *out, const char *const want[])
{
	const char *p = strstr(out, "\tmain\n");

	ASSERT_TRUE(p != NULL);
	for (size_t i = 0; want[i]; i++) {
		const char *nl = strchr(++p, '\n');

		ASSERT_TRUE(nl != NULL);
		if ((size_t)(nl - p) != strlen(want[i]) || strncmp(p, want[i], nl - p))
			FAIL("call %zu after main: got \"%.*s\", expected \"%s\"",
			     i, (int)(nl - p), p, want[i]);
		p = strchr(nl + 1, '\t');
		ASSERT_TRUE(p != NULL);
	}
}

TEST(demangle, calls_show_cxx_and_rust_names_demangled)
{
	static const char *const want[] = {
		"main", "shapes::Circle::area() const", "main",
		"long shapes::twice<long>(long)", "main", "mycrate::foo", "main",
		NULL,
	};
	char *btr = record_cxx();
	struct harness_cmd c;

	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--calls", btr, NULL), 0);
	expect_calls_from_main(c.out, want);
	harness_cmd_free(&c);
	free(btr);
}

TEST(demangle, no_demangle_keeps_the_symbols)
{
	static const char *const want[] = {
		"main", "_ZNK6shapes6Circle4areaEv", "main",
		"_ZN6shapes5twiceIlEET_S1_", "main", "_RNvCs1234_7mycrate3foo",
		"main", NULL,
	};
	char *btr = record_cxx();
	struct harness_cmd c;

	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--calls", "--no-demangle",
				 btr, NULL), 0);
	expect_calls_from_main(c.out, want);
	harness_cmd_free(&c);
	free(btr);
}

/* The branch, instruction, JSON and report views name them alike. */
TEST(demangle, every_view_demangles)
{
	static const struct {
		const char *view, *want, *raw;
	} views[] = {
		{ "--branches", " <shapes::Circle::area() const>\n",
		  " <_ZNK6shapes6Circle4areaEv>\n" },
		{ "--insns", " <mycrate::foo+0>:\t", " <_RNvCs1234_7mycrate3foo+0>:\t" },
		{ "--json", "\"to_func\":\"long shapes::twice<long>(long)\"",
		  "\"to_func\":\"_ZN6shapes5twiceIlEET_S1_\"" },
	};
	char *btr = record_cxx();
	struct harness_cmd c;

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		ASSERT_EQ(harness_btrace(&c, TIMEOUT, "dump", views[i].view, btr,
					 NULL), 0);
		if (!strstr(c.out, views[i].want) || strstr(c.out, views[i].raw))
			FAIL("dump %s: expected %s, not %s", views[i].view,
			     views[i].want, views[i].raw);
		harness_cmd_free(&c);
		ASSERT_EQ(harness_btrace(&c, TIMEOUT, "dump", views[i].view,
					 "--no-demangle", btr, NULL), 0);
		if (!strstr(c.out, views[i].raw) || strstr(c.out, views[i].want))
			FAIL("dump %s --no-demangle: expected %s", views[i].view,
			     views[i].raw);
		harness_cmd_free(&c);
	}
	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "report", "--last", "200", btr,
				 NULL), 0);
	EXPECT_TRUE(strstr(c.out, " <long shapes::twice<long>(long)>\n") != NULL);
	EXPECT_TRUE(strstr(c.out, "\t          mycrate::foo\tinst ") != NULL);
	harness_cmd_free(&c);
	free(btr);
}
