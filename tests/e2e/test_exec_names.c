// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names after an exec (libbts/symbols/symbols.c): symbols belong to an image, not
 * to a process.  A process that execs maps libc and ld.so again at other
 * addresses; both copies keep their names, whichever comes first in
 * address order.  Libraries live at 0x7f..., so the share of those
 * addresses that dump leaves bare measures what lost its names (a few
 * PLT headers and stripped local functions stay bare: near zero).  The
 * dump's header names every program a process ran.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"

#define LIB_PREFIX "0x00007f"

/* Records `btrace record -- ARGV...` and returns `btrace dump`'s output. */
static char *record_dump(const char *name, const char *const prog[])
{
	char *btr = harness_path(harness_tmpdir(), name);
	const char *args[16] = { "record", "-o", btr, "--" };
	struct harness_cmd cmd;
	char *out;
	size_t n = 4;

	for (size_t i = 0; prog[i] && n < 15; i++)
		args[n++] = prog[i];
	args[n] = NULL;
	EXPECT_EQ(harness_btrace_argv(&cmd, 600, args), 0);
	harness_cmd_free(&cmd);
	EXPECT_EQ(harness_btrace(&cmd, 600, "dump", btr, NULL), 0);
	out = strdup(cmd.out);
	harness_cmd_free(&cmd);
	unlink(btr);
	free(btr);
	return out;
}

/*
 * Addresses in 0x7f... in @dump, and how many of them have no <name>.
 * Scanned by hand: strstr() over megabytes, once per hit, is quadratic
 * under ASan, whose strstr measures the whole haystack each time.
 */
static void count_bare(const char *dump, size_t *all, size_t *bare)
{
	size_t len = strlen(LIB_PREFIX);

	*all = *bare = 0;
	for (const char *p = dump; *p; p++) {
		if (*p != '0' || strncmp(p, LIB_PREFIX, len))
			continue;
		p += 18;	/* "0x" and 16 digits */
		(*all)++;
		if (strncmp(p, " <", 2) || !strncmp(p, " <?? from ", 10))
			(*bare)++;
		p--;
	}
}

static void expect_libraries_named(const char *dump)
{
	size_t all, bare;

	count_bare(dump, &all, &bare);
	EXPECT_GT(all, (size_t)1000);
	/* Under 0.5 %: before the fix, one copy of libc/ld.so was all bare. */
	if (bare * 200 > all)
		FAIL("%zu of %zu library addresses have no name", bare, all);
}

/* The line after @p's, or NULL at the end. */
static const char *next_line(const char *p)
{
	while (*p && *p != '\n')
		p++;
	return *p ? p + 1 : NULL;
}

/* Whether the line at @p (up to @eol) is a record: "FROM  ->  TO". */
static bool is_record(const char *p, const char *eol)
{
	for (; p + 6 <= eol; p++)
		if (!strncmp(p, "  ->  ", 6))
			return true;
	return false;
}

/*
 * The lines after the last exec marker (or all), addresses and record
 * numbers taken out: "<_start+3> <_dl_start> ", at most @max of them.
 * Line by line: no search runs over the rest of a long dump.
 */
static char *names_after_exec(const char *dump, size_t max)
{
	const char *start = dump, *p;
	char *out = calloc(1, strlen(dump) + 1), *o = out;
	size_t n = 0;

	for (p = dump; p; p = next_line(p))
		if (!strncmp(p, "          # exec ", 17))
			start = p;
	for (p = next_line(start); p && n < max; p = next_line(p)) {
		const char *eol = next_line(p) ? next_line(p) - 1 : p + strlen(p);

		if (!is_record(p, eol))
			continue;
		for (const char *q = p; q < eol; q++) {
			if (*q != '<')
				continue;
			while (q < eol && *q != '>')
				*o++ = *q++;
			*o++ = '>';
			*o++ = ' ';
		}
		*o++ = '\n';
		n++;
	}
	*o = 0;
	return out;
}

TEST(exec_names, libraries_keep_names_after_exec)
{
	/* env -i: dash exports PWD, which alone changes ld.so's walk later on. */
	const char *const execd[] = { "/usr/bin/env", "-i", "/bin/sh", "-c",
				      "exec /bin/true", NULL };
	const char *const plain[] = { "/usr/bin/env", "-i", "/bin/true", NULL };
	char *a = record_dump("exec.btr", execd);
	char *b = record_dump("plain.btr", plain);
	char *na = names_after_exec(a, 60), *nb = names_after_exec(b, 60);

	/* The header names each program the process ran, in order. */
	EXPECT_TRUE(strstr(a, "): /usr/bin/env\n# process ") != NULL);
	EXPECT_TRUE(strstr(a, " exec'd /usr/bin/dash\n# process ") != NULL);
	EXPECT_TRUE(strstr(a, " exec'd /usr/bin/true\n# process ") != NULL);
	EXPECT_TRUE(strstr(b, " exec'd /usr/bin/true\n# process ") != NULL);
	ASSERT_TRUE(strstr(na, "<_start+3> <_dl_start> \n") == na);
	EXPECT_STREQ(na, nb);
	expect_libraries_named(a);
	free(na);
	free(nb);
	free(a);
	free(b);
}

TEST(exec_names, children_of_bash_keep_library_names)
{
	const char *const prog[] = { "/bin/bash", "-c", "ls / | wc -l", NULL };
	char *dump = record_dump("bash.btr", prog);

	EXPECT_TRUE(strstr(dump, "# process ") != NULL);
	EXPECT_TRUE(strstr(dump, " exec'd /usr/bin/ls\n# process ") != NULL);
	EXPECT_TRUE(strstr(dump, " exec'd /usr/bin/wc\n# process ") != NULL);
	expect_libraries_named(dump);
	free(dump);
}

TEST(exec_names, ifunc_plt_stubs_are_named_as_objdump_does)
{
	const char *const prog[] = { "/bin/true", NULL };
	char *dump = record_dump("ifunc.btr", prog);

	/* libc's own calls to its string functions go through these. */
	EXPECT_TRUE(strstr(dump, "<*ABS*+0x") != NULL);
	free(dump);
}
